/*
 * Lab 2, reference solution: exclusive scan, Blelloch (work-efficient).
 *
 *     extern "C" void scan_exclusive(const unsigned int *d_in, unsigned int *d_out, size_t n);
 *
 * out[0] = 0, out[i] = in[0] + ... + in[i-1] (mod 2^32).
 *
 * Design
 *   - Block scan: 1024 elements, 512 threads, 2 elements per thread, in a
 *     padded shared array (1024 + 32 words). Thread t loads elements t and
 *     t + 512 (coalesced), so the 16 warps all load and store whole sectors.
 *   - Up-sweep (reduce) with 512, 256, ..., 2 active threads; the root step
 *     (one thread) takes the block's total, and does the last up-sweep add
 *     and the first down-sweep swap at once; down-sweep with 2, 4, ..., 512
 *     active threads. Active thread t of a step works on the pair
 *     (offset*(2t+1) - 1, offset*(2t+2) - 1): the active threads are the
 *     lowest-numbered ones, packed into as few warps as possible, and the other
 *     warps skip straight to the barrier. Active warps per step:
 *     16 8 4 2 1 1 1 1 1 | 1 | 1 1 1 1 1 2 4 8 16 = 71 warp-steps a block
 *     (Hillis-Steele on 1024 elements: 289).
 *   - CONFLICT_FREE_OFFSET: word i is stored at i + i/32. The strided pairs of
 *     the sweeps (stride 2, 4, ... 512 words) would otherwise pile up in a few
 *     banks (up to 32-way); with one padding word per 32 every sweep request is
 *     one wavefront.
 *   - Multi-block: each block writes its total to sums[]; sums[] is scanned
 *     (exclusively) by the same code, recursively (2^28 -> 2^18 -> 2^8 -> 1
 *     block); then block b >= 1 adds scanned_sums[b]. Scratch for all levels
 *     is one cudaMalloc per call.
 *   - Elements past n are loaded as 0; stores are bounds-checked. Positions
 *     are size_t.
 *
 * Cost: about 2 * 1024 additions per 1024 elements (work-efficient), the data
 * crosses DRAM four times (scan: read + write; add: read + write).
 */
#include <cuda_runtime.h>
#include <stddef.h>

#define ELEMS   1024		/* elements per block (a power of two) */
#define THREADS (ELEMS / 2)	/* 512 threads, 2 elements each */
#define NUM_BANKS 32
#define LOG_NUM_BANKS 5
#define CONFLICT_FREE_OFFSET(i) ((i) >> LOG_NUM_BANKS)	/* one padding word per 32 */
#define PADDED(i) ((i) + CONFLICT_FREE_OFFSET(i))

__global__ void scan_block(const unsigned int *in, unsigned int *out,
			   unsigned int *block_sums, size_t n)
{
	__shared__ unsigned int temp[ELEMS + ELEMS / NUM_BANKS];
	const unsigned int tid = threadIdx.x;
	const size_t base = (size_t)blockIdx.x * ELEMS;
	const unsigned int ai = tid, bi = tid + THREADS;	/* this thread's two elements */
	unsigned int total = 0;		/* the block's total: thread 0 sets it at the root */
	unsigned int offset = 1, d;

	temp[PADDED(ai)] = (base + ai < n) ? in[base + ai] : 0;
	temp[PADDED(bi)] = (base + bi < n) ? in[base + bi] : 0;

	/* Up-sweep: after the step with d active threads, temp[k] for
	 * k = 2*offset*(t+1) - 1 holds the sum of the 2*offset elements ending at k. */
	for (d = THREADS; d > 1; d >>= 1) {
		__syncthreads();
		if (tid < d) {
			unsigned int a = offset * (2 * tid + 1) - 1;
			unsigned int b = offset * (2 * tid + 2) - 1;
			temp[PADDED(b)] += temp[PADDED(a)];
		}
		offset <<= 1;
	}

	/* Root (offset = 512): temp[511] and temp[1023] hold the sums of the two
	 * halves. The block's total is their sum; the exclusive scan's root is 0,
	 * so the left half starts at 0 and the right half at the left half's sum. */
	__syncthreads();
	if (tid == 0) {
		unsigned int left = temp[PADDED(ELEMS / 2 - 1)];
		unsigned int right = temp[PADDED(ELEMS - 1)];

		total = left + right;
		temp[PADDED(ELEMS / 2 - 1)] = 0;
		temp[PADDED(ELEMS - 1)] = left;
	}

	/* Down-sweep: each active thread passes its node's prefix to the left
	 * child and prefix + left child's sum to the right child. */
	for (d = 2; d <= THREADS; d <<= 1) {
		offset >>= 1;
		__syncthreads();
		if (tid < d) {
			unsigned int a = offset * (2 * tid + 1) - 1;
			unsigned int b = offset * (2 * tid + 2) - 1;
			unsigned int t = temp[PADDED(a)];
			temp[PADDED(a)] = temp[PADDED(b)];
			temp[PADDED(b)] += t;
		}
	}
	__syncthreads();

	if (base + ai < n)
		out[base + ai] = temp[PADDED(ai)];
	if (base + bi < n)
		out[base + bi] = temp[PADDED(bi)];
	if (block_sums != NULL && tid == 0)
		block_sums[blockIdx.x] = total;
}

/* out[i] += scanned_sums[b] for the elements of block b >= 1 (exclusive:
 * scanned_sums[b] is the sum of blocks 0 .. b-1). */
__global__ void add_block_sums(unsigned int *out, const unsigned int *scanned_sums, size_t n)
{
	const size_t b = (size_t)blockIdx.x + 1;
	const size_t i = b * ELEMS + threadIdx.x;
	const unsigned int add = scanned_sums[b];

	if (i < n)
		out[i] += add;
	if (i + THREADS < n)
		out[i + THREADS] += add;
}

static size_t blocks_for(size_t n)
{
	return (n + ELEMS - 1) / ELEMS;
}

static size_t scratch_words(size_t n)
{
	size_t words = 0;

	while (n > ELEMS) {
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
		scan_block<<<1, THREADS>>>(d_in, d_out, NULL, n);
		return;
	}
	sums = scratch;
	scanned = scratch + nblocks;
	scan_block<<<(unsigned int)nblocks, THREADS>>>(d_in, d_out, sums, n);
	scan_level(sums, scanned, nblocks, scratch + 2 * nblocks);
	add_block_sums<<<(unsigned int)(nblocks - 1), THREADS>>>(d_out, scanned, n);
}

extern "C" void scan_exclusive(const unsigned int *d_in, unsigned int *d_out, size_t n)
{
	const size_t words = scratch_words(n);
	unsigned int *scratch = NULL;

	if (words > 0 && cudaMalloc((void **)&scratch, words * sizeof(unsigned int)) != cudaSuccess)
		return;
	scan_level(d_in, d_out, n, scratch);
	if (scratch != NULL)
		cudaFree(scratch);
}
