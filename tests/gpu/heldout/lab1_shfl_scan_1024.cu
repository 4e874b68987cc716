/*
 * Held-out model file, lab 1: an inclusive block scan built from warp shuffles
 * (__shfl_up_sync ladders), 1024 threads, one element each; a second ladder
 * over the 32 warp totals; recursive over blocks (block sums scanned by the
 * same entry, then added). Written fresh for the model's held-out set.
 */
#include <cuda_runtime.h>
#include <stddef.h>

#define BLOCK 1024

__device__ __forceinline__ unsigned warp_inclusive(unsigned v, unsigned lane)
{
	for (unsigned d = 1; d < 32; d <<= 1) {
		unsigned up = __shfl_up_sync(0xffffffffu, v, d);
		if (lane >= d)
			v += up;
	}
	return v;
}

__global__ void shfl_scan(const unsigned *in, unsigned *out, unsigned *sums, size_t n)
{
	__shared__ unsigned warp_tot[32];
	const unsigned lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
	const size_t i = (size_t)blockIdx.x * BLOCK + threadIdx.x;
	unsigned v = i < n ? in[i] : 0u;

	v = warp_inclusive(v, lane);
	if (lane == 31)
		warp_tot[warp] = v;
	__syncthreads();
	if (warp == 0)
		warp_tot[lane] = warp_inclusive(warp_tot[lane], lane);
	__syncthreads();
	if (warp > 0)
		v += warp_tot[warp - 1];
	if (i < n)
		out[i] = v;
	if (sums != NULL && threadIdx.x == BLOCK - 1)
		sums[blockIdx.x] = v;
}

__global__ void add_offsets(unsigned *out, const unsigned *scanned, size_t n)
{
	const size_t i = ((size_t)blockIdx.x + 1) * BLOCK + threadIdx.x;
	if (i < n)
		out[i] += scanned[blockIdx.x];
}

static void scan_rec(const unsigned *in, unsigned *out, size_t n, unsigned *scratch)
{
	const size_t blocks = (n + BLOCK - 1) / BLOCK;
	if (blocks == 1) {
		shfl_scan<<<1, BLOCK>>>(in, out, NULL, n);
		return;
	}
	shfl_scan<<<(unsigned)blocks, BLOCK>>>(in, out, scratch, n);
	scan_rec(scratch, scratch + blocks, blocks, scratch + 2 * blocks);
	add_offsets<<<(unsigned)(blocks - 1), BLOCK>>>(out, scratch + blocks, n);
}

extern "C" void scan_inclusive(const unsigned int *d_in, unsigned int *d_out, size_t n)
{
	size_t words = 0, m = n;
	unsigned *scratch = NULL;

	while (m > BLOCK) {
		m = (m + BLOCK - 1) / BLOCK;
		words += 2 * m;
	}
	if (words > 0 && cudaMalloc((void **)&scratch, words * sizeof(unsigned)) != cudaSuccess)
		return;
	scan_rec(d_in, d_out, n, scratch);
	if (scratch != NULL)
		cudaFree(scratch);
}
