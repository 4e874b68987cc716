/*
 * Kernels for the performance model's figures (emu/runtime/perf.c,
 * emu/runtime/sample.c): which blocks a launch traces, and how many loads a
 * warp keeps in flight.
 */
#include <cuda_runtime.h>

/* Each block that runs marks its own slot. */
__global__ void mark(unsigned int *seen)
{
	if (threadIdx.x == 0)
		seen[blockIdx.x] = 1;
}

/* Four independent loads, then four stores (ILP 1: one load, one store, x4). */
template <int ILP4>
__global__ void copy4(const unsigned int *in, unsigned int *out, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (ILP4) {
		unsigned int a = in[i], b = in[i + n], c = in[i + 2 * n], d = in[i + 3 * n];
		out[i] = a;
		out[i + n] = b;
		out[i + 2 * n] = c;
		out[i + 3 * n] = d;
	} else {
		out[i] = in[i];
		out[i + n] = in[i + n];
		out[i + 2 * n] = in[i + 2 * n];
		out[i + 3 * n] = in[i + 3 * n];
	}
}

/* The blocks of a grid of `grid` that ran, into seen (host, grid words). */
extern "C" long mk_which_blocks(int grid, unsigned int *seen)
{
	unsigned int *d;
	if (cudaMalloc((void **)&d, grid * sizeof(unsigned int)) != cudaSuccess)
		return -1;
	cudaMemset(d, 0, grid * sizeof(unsigned int));
	mark<<<grid, 32>>>(d);
	long rc = cudaMemcpy(seen, d, grid * sizeof(unsigned int), cudaMemcpyDeviceToHost) != cudaSuccess;
	cudaFree(d);
	return rc;
}

extern "C" long mk_copy4(int ilp4)
{
	const int n = 4096;
	unsigned int *in, *out;
	if (cudaMalloc((void **)&in, 4 * n * sizeof(unsigned int)) != cudaSuccess ||
	    cudaMalloc((void **)&out, 4 * n * sizeof(unsigned int)) != cudaSuccess)
		return -1;
	if (ilp4)
		copy4<1><<<n / 256, 256>>>(in, out, n);
	else
		copy4<0><<<n / 256, 256>>>(in, out, n);
	long rc = cudaDeviceSynchronize() != cudaSuccess;
	cudaFree(in);
	cudaFree(out);
	return rc;
}

/* Lab 2's add_block_sums in small: every warp of a block loads the block's
 * one word of sums, and 8 sectors of its own part of the data. */
__global__ void add_sum(const unsigned int *sums, unsigned int *data)
{
	unsigned int s = sums[blockIdx.x];
	size_t i = (size_t)blockIdx.x * 1024 + threadIdx.x;
	data[i] += s;
	data[i + 512] += s;
}

extern "C" long mk_add_sum(int blocks)
{
	unsigned int *sums, *data;
	if (cudaMalloc((void **)&sums, blocks * sizeof(unsigned int)) != cudaSuccess ||
	    cudaMalloc((void **)&data, (size_t)blocks * 1024 * sizeof(unsigned int)) != cudaSuccess)
		return -1;
	add_sum<<<blocks, 512>>>(sums, data);
	long rc = cudaDeviceSynchronize() != cudaSuccess;
	cudaFree(sums);
	cudaFree(data);
	return rc;
}

/* A grid-stride copy whose blocks do unequal work: 12 blocks of 32 threads
 * over 832 words, blocks 0 and 1 three passes, the others two. */
__global__ void uneven_copy(const unsigned int *in, unsigned int *out, int n)
{
	for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
		out[i] = in[i];
}

extern "C" long mk_uneven_copy(void)
{
	const int n = 832;
	unsigned int *in, *out;
	if (cudaMalloc((void **)&in, n * sizeof(unsigned int)) != cudaSuccess ||
	    cudaMalloc((void **)&out, n * sizeof(unsigned int)) != cudaSuccess)
		return -1;
	uneven_copy<<<12, 32>>>(in, out, n);
	long rc = cudaDeviceSynchronize() != cudaSuccess;
	cudaFree(in);
	cudaFree(out);
	return rc;
}
