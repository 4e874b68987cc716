/*
 * Conformance fixture, lab 1 (inclusive scan). Idioms: __CUDA_ARCH__ as
 * nvcc's two passes define it: a __host__ __device__ block scan whose
 * device branch uses warp shuffles and shared memory (its host branch is
 * a plain identity, as in code bases whose host side never scans); a
 * device function that exists only under __CUDA_ARCH__; a kernel body
 * that tests __CUDA_ARCH__'s value; __host__ __device__ functions (a
 * plain one, an extern "C" one, a constructor) that say which pass
 * compiled them, called from a kernel and from the host.
 * Expected: passes on every size, on the emulator and on the GPU.
 */
#include <cuda_runtime.h>

#define BLOCK 256

__host__ __device__ inline unsigned int compiled_for_device(void)
{
#ifdef __CUDA_ARCH__
	return 1;
#else
	return 0;
#endif
}

/* The same from a constructor's body, and from an extern "C" function. */
struct PassTag {
	unsigned int device;
	__host__ __device__ PassTag() : device(0)
	{
#ifdef __CUDA_ARCH__
		device = 1;
#endif
	}
};

extern "C" __host__ __device__ unsigned int device_pass_c(void)
{
#if defined(__CUDA_ARCH__)
	return PassTag().device;
#else
	return 0;
#endif
}

#ifdef __CUDA_ARCH__
__device__ unsigned int warp_inclusive_scan(unsigned int v)
{
	unsigned int lane = threadIdx.x & 31;
	for (unsigned int d = 1; d < 32; d <<= 1) {
		unsigned int up = __shfl_up_sync(0xffffffffu, v, d);
		if (lane >= d)
			v += up;
	}
	return v;
}
#endif

/* Every thread of the block calls it with its element; all BLOCK threads. */
template <class T> __host__ __device__ T block_inclusive_scan(T v)
{
#ifdef __CUDA_ARCH__
	__shared__ T warp_sums[BLOCK / 32];
	unsigned int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
	v = warp_inclusive_scan(v);
	if (lane == 31)
		warp_sums[warp] = v;
	__syncthreads();
	if (warp == 0) {
		T s = lane < BLOCK / 32 ? warp_sums[lane] : 0;
		s = warp_inclusive_scan(s);
		if (lane < BLOCK / 32)
			warp_sums[lane] = s;
	}
	__syncthreads();
	if (warp > 0)
		v += warp_sums[warp - 1];
	return v;
#else
	return v;	/* one element on the host: its own scan */
#endif
}

__global__ void block_scan(const unsigned int *in, unsigned int *out, unsigned int *sums, size_t n,
			   unsigned int *device_flags)
{
	size_t i = blockIdx.x * (size_t)BLOCK + threadIdx.x;
	unsigned int v = block_inclusive_scan(i < n ? in[i] : 0u);
	if (i < n)
		out[i] = v;
	if (threadIdx.x == BLOCK - 1)
		sums[blockIdx.x] = v;
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 700
	if (threadIdx.x == 0)
		atomicAdd(device_flags, compiled_for_device() & device_pass_c() & PassTag().device);
#endif
}

__global__ void add_offsets(unsigned int *out, const unsigned int *scanned_sums, size_t n)
{
	size_t i = blockIdx.x * (size_t)BLOCK + threadIdx.x;
	if (i < n && blockIdx.x > 0)
		out[i] += scanned_sums[blockIdx.x - 1];
}

/* What a wrong pass gets: the first element off by one. */
__global__ void spoil(unsigned int *out)
{
	out[0] += 1;
}

static void scan_levels(const unsigned int *d_in, unsigned int *d_out, size_t n)
{
	size_t blocks = (n + BLOCK - 1) / BLOCK;
	unsigned int *sums, *flags, h_flags = 0;
	cudaMalloc(&sums, blocks * sizeof(unsigned int));
	cudaMalloc(&flags, sizeof(unsigned int));
	cudaMemset(flags, 0, sizeof(unsigned int));
	block_scan<<<(unsigned int)blocks, BLOCK>>>(d_in, d_out, sums, n, flags);
	cudaMemcpy(&h_flags, flags, sizeof h_flags, cudaMemcpyDeviceToHost);
	if (blocks > 1) {
		unsigned int *scanned;
		cudaMalloc(&scanned, blocks * sizeof(unsigned int));
		scan_levels(sums, scanned, blocks);
		add_offsets<<<(unsigned int)blocks, BLOCK>>>(d_out, scanned, n);
		cudaFree(scanned);
	}
	/* Every block ran device code; the host runs host code. */
	if (h_flags != blocks || compiled_for_device() != 0 || device_pass_c() != 0 || PassTag().device != 0 ||
	    block_inclusive_scan(5u) != 5u)
		spoil<<<1, 1>>>(d_out);
	cudaFree(flags);
	cudaFree(sums);
}

extern "C" void scan_inclusive(const unsigned int *d_in, unsigned int *d_out, size_t n)
{
	scan_levels(d_in, d_out, n);
}
