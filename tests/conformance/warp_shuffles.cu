/*
 * Conformance fixture, lab 1 (inclusive scan). Idioms: __shfl_up_sync with
 * the full warp and with a partial mask (the lanes of the last warp that
 * hold elements), __shfl_up_sync and __shfl_down_sync with width 8,
 * __shfl_xor_sync butterflies, __shfl_sync broadcasts, __ballot_sync, __clz.
 * Expected: passes on every size, on the emulator and on the GPU.
 */
#include <cuda_runtime.h>

#define BLOCK 256
#define WARPS (BLOCK / 32)

__global__ void warp_block_scan(const unsigned int *in, unsigned int *out, unsigned int *sums, size_t n)
{
	__shared__ unsigned int warp_total[WARPS];
	size_t i = blockIdx.x * (size_t)BLOCK + threadIdx.x;
	unsigned int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
	unsigned int mask = __ballot_sync(0xffffffffu, i < n);
	unsigned int v = i < n ? in[i] : 0;
	if (i < n)
		for (unsigned int d = 1; d < 32; d <<= 1) {
			unsigned int up = __shfl_up_sync(mask, v, d);
			if (lane >= d)
				v += up;
		}
	unsigned int last = mask ? 31 - __clz((int)mask) : 0;
	unsigned int total = __shfl_sync(0xffffffffu, v, last);
	if (lane == 0)
		warp_total[warp] = mask ? total : 0;
	__syncthreads();
	if (warp == 0 && lane < WARPS) {
		unsigned int x = warp_total[lane], sum = x;
		for (unsigned int d = 1; d < WARPS; d <<= 1) {
			unsigned int up = __shfl_up_sync(0xffu, x, d, WARPS);
			if (lane >= d)
				x += up;
		}
		/* The block's total twice more: a butterfly and a tree. */
		unsigned int bfly = sum;
		for (int m = WARPS / 2; m > 0; m >>= 1)
			bfly += __shfl_xor_sync(0xffu, bfly, m, WARPS);
		for (int o = WARPS / 2; o > 0; o >>= 1)
			sum += __shfl_down_sync(0xffu, sum, o, WARPS);
		sum = __shfl_sync(0xffu, sum, 0, WARPS);
		warp_total[lane] = x;
		if (lane == 0)
			sums[blockIdx.x] = sum == bfly ? sum : 0xdeadbeefu;
	}
	__syncthreads();
	if (warp > 0)
		v += warp_total[warp - 1];
	if (i < n)
		out[i] = v;
}

/* Adds the scanned total of the blocks before to each element: one lane
 * loads it, the warp shares it through an xor butterfly of a one-hot sum. */
__global__ void add_block_offsets(unsigned int *out, const unsigned int *scanned_sums, size_t n)
{
	size_t i = blockIdx.x * (size_t)BLOCK + threadIdx.x;
	unsigned int lane = threadIdx.x & 31;
	unsigned int off = (lane == 0 && blockIdx.x > 0) ? scanned_sums[blockIdx.x - 1] : 0;
	for (int m = 16; m > 0; m >>= 1)
		off += __shfl_xor_sync(0xffffffffu, off, m);
	if (i < n)
		out[i] += off;
}

static void scan_levels(const unsigned int *d_in, unsigned int *d_out, size_t n)
{
	size_t blocks = (n + BLOCK - 1) / BLOCK;
	unsigned int *sums;
	cudaMalloc(&sums, blocks * sizeof(unsigned int));
	warp_block_scan<<<(unsigned int)blocks, BLOCK>>>(d_in, d_out, sums, n);
	if (blocks > 1) {
		unsigned int *scanned;
		cudaMalloc(&scanned, blocks * sizeof(unsigned int));
		scan_levels(sums, scanned, blocks);
		add_block_offsets<<<(unsigned int)blocks, BLOCK>>>(d_out, scanned, n);
		cudaFree(scanned);
	}
	cudaFree(sums);
}

extern "C" void scan_inclusive(const unsigned int *d_in, unsigned int *d_out, size_t n)
{
	scan_levels(d_in, d_out, n);
}
