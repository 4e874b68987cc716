/*
 * Lab 1, reference solution: inclusive scan, Hillis-Steele.
 *
 *     extern "C" void scan_inclusive(const unsigned int *d_in, unsigned int *d_out, size_t n);
 *
 * out[i] = in[0] + ... + in[i] (mod 2^32).
 *
 * Design
 *   - Block scan: 1024 threads, one element each, Hillis-Steele in shared
 *     memory, double-buffered (buf[2][1024]): each of the 10 steps reads one
 *     buffer and writes the other, so no thread writes what another reads in
 *     the same step, and one barrier a step suffices. 8 KiB of shared memory.
 *   - Multi-block: block scans write each block's total to sums[]; sums[] is
 *     scanned by the same code, recursively (2^28 -> 2^18 -> 2^8 -> 1 block);
 *     then every element of block b >= 1 gets scanned_sums[b - 1] added.
 *     Scratch for all levels is one cudaMalloc per call (about 2n/1024 words).
 *   - Elements past n are loaded as 0, so a partial last block needs no
 *     special case in the scan itself; stores are bounds-checked.
 *   - Positions are size_t (n may exceed 2^31 in principle); the grid is
 *     ceil(n / 1024) blocks, 2^18 at n = 2^28, far below the 2^31 - 1 limit.
 *
 * Cost: 1024 * 10 = 10240 additions per 1024 elements (n log n work), and the
 * data crosses DRAM four times (scan: read + write; add: read + write).
 */
#include <cuda_runtime.h>
#include <stddef.h>

#define BLOCK 1024	/* threads per block = elements per block (a power of two) */

__global__ void scan_block(const unsigned int *in, unsigned int *out,
			   unsigned int *block_sums, size_t n)
{
	__shared__ unsigned int buf[2][BLOCK];
	const unsigned int tid = threadIdx.x;
	const size_t i = (size_t)blockIdx.x * BLOCK + tid;
	unsigned int off;
	int cur = 0;

	buf[cur][tid] = (i < n) ? in[i] : 0;
	__syncthreads();

	for (off = 1; off < BLOCK; off <<= 1) {
		const int nxt = 1 - cur;
		unsigned int v = buf[cur][tid];

		if (tid >= off)
			v += buf[cur][tid - off];	/* active: the threads with tid >= off */
		buf[nxt][tid] = v;			/* the others copy their value across */
		cur = nxt;
		__syncthreads();
	}

	if (i < n)
		out[i] = buf[cur][tid];
	if (block_sums != NULL && tid == BLOCK - 1)
		block_sums[blockIdx.x] = buf[cur][BLOCK - 1];
}

/* out[i] += (sum of all blocks before i's block), for the blocks b >= 1. */
__global__ void add_block_sums(unsigned int *out, const unsigned int *scanned_sums, size_t n)
{
	const size_t b = (size_t)blockIdx.x + 1;
	const size_t i = b * BLOCK + threadIdx.x;

	if (i < n)
		out[i] += scanned_sums[b - 1];
}

static size_t blocks_for(size_t n)
{
	return (n + BLOCK - 1) / BLOCK;
}

static size_t scratch_words(size_t n)
{
	size_t words = 0;

	while (n > BLOCK) {
		n = blocks_for(n);
		words += 2 * n;
	}
	return words;
}

static void scan_level(const unsigned int *d_in, unsigned int *d_out, size_t n,
		       unsigned int *scratch)
{
	const size_t nblocks = blocks_for(n);
	unsigned int *sums, *scanned;

	if (nblocks == 1) {
		scan_block<<<1, BLOCK>>>(d_in, d_out, NULL, n);
		return;
	}
	sums = scratch;
	scanned = scratch + nblocks;
	scan_block<<<(unsigned int)nblocks, BLOCK>>>(d_in, d_out, sums, n);
	scan_level(sums, scanned, nblocks, scratch + 2 * nblocks);
	add_block_sums<<<(unsigned int)(nblocks - 1), BLOCK>>>(d_out, scanned, n);
}

extern "C" void scan_inclusive(const unsigned int *d_in, unsigned int *d_out, size_t n)
{
	const size_t words = scratch_words(n);
	unsigned int *scratch = NULL;

	if (words > 0 && cudaMalloc((void **)&scratch, words * sizeof(unsigned int)) != cudaSuccess)
		return;
	scan_level(d_in, d_out, n, scratch);
	if (scratch != NULL)
		cudaFree(scratch);
}
