/*
 * Conformance fixture, lab 1 (inclusive scan). Idioms: threads past the end
 * return before the block's __syncthreads() (legal since sm_70: exited
 * threads no longer count at a barrier; the emulator warns); a template
 * kernel over the element type; the SharedMemory<T> idiom of NVIDIA's
 * samples over dynamic extern __shared__ memory; double buffering.
 * Expected: passes on every size, on the emulator and on the GPU.
 */
#include <cuda_runtime.h>

/* Dynamic shared memory of any type, as the samples declare it: extern
 * arrays of different types in templates would clash. */
template <class T> struct SharedMemory {
	__device__ inline operator T *()
	{
		extern __shared__ int __smem[];
		return (T *)__smem;
	}
	__device__ inline operator const T *() const
	{
		extern __shared__ int __smem[];
		return (T *)__smem;
	}
};

template <class T>
__global__ void hillis_steele(const T *in, T *out, T *sums, size_t n)
{
	T *buf = SharedMemory<T>();
	size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
	if (i >= n)
		return;	/* the active threads are a prefix of the block */
	unsigned int tid = threadIdx.x, in_buf = 0;
	buf[tid] = in[i];
	__syncthreads();
	for (unsigned int off = 1; off < blockDim.x; off <<= 1) {
		unsigned int out_buf = 1 - in_buf;
		T v = buf[in_buf * blockDim.x + tid];
		if (tid >= off)
			v += buf[in_buf * blockDim.x + tid - off];
		buf[out_buf * blockDim.x + tid] = v;
		in_buf = out_buf;
		__syncthreads();
	}
	out[i] = buf[in_buf * blockDim.x + tid];
	if (tid == blockDim.x - 1 || i == n - 1)
		sums[blockIdx.x] = buf[in_buf * blockDim.x + tid];
}

template <class T>
__global__ void add_offsets(T *out, const T *scanned_sums, size_t n)
{
	size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
	if (i >= n || blockIdx.x == 0)
		return;
	out[i] += scanned_sums[blockIdx.x - 1];
}

template <class T> static void scan_levels(const T *d_in, T *d_out, size_t n, unsigned int block)
{
	size_t blocks = (n + block - 1) / block;
	T *sums;
	cudaMalloc(&sums, blocks * sizeof(T));
	hillis_steele<T><<<(unsigned int)blocks, block, 2 * block * sizeof(T)>>>(d_in, d_out, sums, n);
	if (blocks > 1) {
		T *scanned;
		cudaMalloc(&scanned, blocks * sizeof(T));
		scan_levels(sums, scanned, blocks, block);
		add_offsets<<<(unsigned int)blocks, block>>>(d_out, (const T *)scanned, n);
		cudaFree(scanned);
	}
	cudaFree(sums);
}

extern "C" void scan_inclusive(const unsigned int *d_in, unsigned int *d_out, size_t n)
{
	scan_levels(d_in, d_out, n, 512);
}
