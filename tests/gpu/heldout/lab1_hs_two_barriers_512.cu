/*
 * Held-out model file, lab 1: Hillis-Steele in place in one shared array, a
 * barrier between each step's read and its write (two barriers a step), 512
 * threads a block; the block sums are scanned by one block that walks them in
 * chunks with a running carry (a serial pass over the sums), then added.
 */
#include <cuda_runtime.h>
#include <stddef.h>

#define BLOCK 512

__global__ void hs_block(const unsigned *in, unsigned *out, unsigned *sums, size_t n)
{
	__shared__ unsigned x[BLOCK];
	const unsigned t = threadIdx.x;
	const size_t i = (size_t)blockIdx.x * BLOCK + t;

	x[t] = i < n ? in[i] : 0u;
	__syncthreads();
	for (unsigned d = 1; d < BLOCK; d <<= 1) {
		unsigned left = t >= d ? x[t - d] : 0u;
		__syncthreads();
		x[t] += left;
		__syncthreads();
	}
	if (i < n)
		out[i] = x[t];
	if (sums != NULL && t == BLOCK - 1)
		sums[blockIdx.x] = x[t];
}

/* One block: the inclusive scan of m sums, BLOCK at a time, carried along. */
__global__ void scan_sums_serial(unsigned *sums, size_t m)
{
	__shared__ unsigned x[BLOCK];
	__shared__ unsigned carry;
	const unsigned t = threadIdx.x;

	if (t == 0)
		carry = 0;
	for (size_t base = 0; base < m; base += BLOCK) {
		const size_t i = base + t;
		x[t] = i < m ? sums[i] : 0u;
		__syncthreads();
		for (unsigned d = 1; d < BLOCK; d <<= 1) {
			unsigned left = t >= d ? x[t - d] : 0u;
			__syncthreads();
			x[t] += left;
			__syncthreads();
		}
		if (i < m)
			sums[i] = x[t] + carry;
		__syncthreads();
		if (t == BLOCK - 1)
			carry += x[t];
		__syncthreads();
	}
}

__global__ void add_sums(unsigned *out, const unsigned *scanned, size_t n)
{
	const size_t i = ((size_t)blockIdx.x + 1) * BLOCK + threadIdx.x;
	if (i < n)
		out[i] += scanned[blockIdx.x];
}

extern "C" void scan_inclusive(const unsigned int *d_in, unsigned int *d_out, size_t n)
{
	const size_t blocks = (n + BLOCK - 1) / BLOCK;
	unsigned *sums = NULL;

	if (blocks == 1) {
		hs_block<<<1, BLOCK>>>(d_in, d_out, NULL, n);
		return;
	}
	if (cudaMalloc((void **)&sums, blocks * sizeof(unsigned)) != cudaSuccess)
		return;
	hs_block<<<(unsigned)blocks, BLOCK>>>(d_in, d_out, sums, n);
	scan_sums_serial<<<1, BLOCK>>>(sums, blocks);
	add_sums<<<(unsigned)(blocks - 1), BLOCK>>>(d_out, sums, n);
	cudaFree(sums);
}
