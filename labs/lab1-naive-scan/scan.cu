/*
 * Lab 1: an inclusive scan, the Hillis-Steele way.
 *
 *     extern "C" void scan_inclusive(const unsigned int *d_in, unsigned int *d_out, size_t n);
 *
 * out[i] = in[0] + in[1] + ... + in[i]   (mod 2^32: unsigned int wraps around)
 * Device pointers; d_out never overlaps d_in; n from 1 up to 2^28 and beyond.
 *
 * What is given, and works: the multi-block structure in the host code at the
 * bottom (block scans, block sums, a recursive scan of the block sums, and an
 * add of the scanned sums). What is yours: the block scan, scan_block(), at
 * the TODO. Read handouts/lab1-naive-scan.md first.
 *
 * As shipped, the TODO kernel scans nothing: it copies its block of the input
 * to the output. `./grade lab1` then passes n = 1 only; for every other size
 * it reports the first wrong index as 1, with "expected" = in[0] + in[1] and
 * "got" = in[1] (the copied input). Fix scan_block() and that test passes.
 */
#include <cuda_runtime.h>
#include <stddef.h>

#define BLOCK 1024	/* threads per block = elements per block (a power of two) */

/*
 * scan_block: inclusive scan of one block of BLOCK elements.
 *
 * Block b handles in[b*BLOCK .. b*BLOCK + BLOCK - 1] (fewer in the last block:
 * the elements past n are loaded as 0, which changes no sum). It writes the
 * scanned elements to out[], and, when block_sums is not NULL, the block's
 * total (its last scanned element) to block_sums[b].
 *
 * Hillis-Steele: log2(BLOCK) = 10 steps. At the step with offset d (1, 2, 4,
 * ..., 512) every element i >= d adds the element d places to its left:
 *
 *     x[i] = x[i] + x[i - d]        (elements i < d are already final)
 *
 * After the step with offset d, x[i] holds the sum of the (up to) 2d elements
 * ending at i; after d = 512 that is all of them.
 *
 * Why not update x in place? Thread i reads x[i - d] in the same step in which
 * thread i - d writes x[i - d] (it adds its own left neighbour). Which happens
 * first depends on warp scheduling: a read-after-write race, and a wrong sum
 * whenever the write wins. A __syncthreads() between the read and the write
 * of a step would fix it, at two barriers a step. Double buffering fixes it
 * with one: keep two arrays, read every value of the step from one and write
 * every result to the other, then swap their roles:
 *
 *     __shared__ unsigned int buf[2][BLOCK];    buf[cur] is "before the step"
 *     each step: buf[1 - cur][i] = buf[cur][i] (+ buf[cur][i - d] if i >= d)
 *                cur = 1 - cur; __syncthreads();
 *
 * Nobody writes the array that is being read, so the step has no race; the
 * barrier at the end makes the step's results visible to the next step. Note
 * that threads i < d must still copy their value into the other buffer.
 *
 * The emulator (./grade lab1 --backend emu) checks your kernel for races.
 */
__global__ void scan_block(const unsigned int *in, unsigned int *out,
			   unsigned int *block_sums, size_t n)
{
	__shared__ unsigned int buf[2][BLOCK];
	const unsigned int tid = threadIdx.x;
	const size_t i = (size_t)blockIdx.x * BLOCK + tid;	/* this thread's element */
	int cur = 0;						/* buf[cur] holds the current values */

	buf[cur][tid] = (i < n) ? in[i] : 0;
	__syncthreads();

	/*
	 * TODO: the 10 Hillis-Steele steps, double-buffered, as described above.
	 * When the loop ends, buf[cur][] must hold the inclusive scan of the block.
	 */

	if (i < n)
		out[i] = buf[cur][tid];
	if (block_sums != NULL && tid == BLOCK - 1)
		block_sums[blockIdx.x] = buf[cur][BLOCK - 1];
}

/* ---- Given: the multi-block structure. You need not change anything below. ---- */

/* out[i] += (sum of all blocks before i's block), for the blocks b >= 1.
 * Launched with one block of BLOCK threads per data block, block 0 skipped. */
__global__ void add_block_sums(unsigned int *out, const unsigned int *scanned_sums, size_t n)
{
	const size_t b = (size_t)blockIdx.x + 1;
	const size_t i = b * BLOCK + threadIdx.x;

	if (i < n)
		out[i] += scanned_sums[b - 1];	/* inclusive: blocks 0 .. b-1 */
}

static size_t blocks_for(size_t n)
{
	return (n + BLOCK - 1) / BLOCK;
}

/* Words that one array of n block sums takes in the scratch buffer: n
 * rounded up to a multiple of 32 words (128 bytes), so that every array
 * starts on a sector boundary and a warp's 32 consecutive words fill 4 whole
 * 32-byte sectors. Packed at scratch + n, the next array would start
 * mid-sector, and each warp's access to it would touch 5. */
static size_t sums_words(size_t n)
{
	return (n + 31) / 32 * 32;
}

/* Words of scratch that scan_level() needs for n elements: two arrays of
 * block sums (raw and scanned) at each level of the recursion, each
 * starting on a 128-byte boundary. */
static size_t scratch_words(size_t n)
{
	size_t words = 0;

	while (n > BLOCK) {
		n = blocks_for(n);
		words += 2 * sums_words(n);
	}
	return words;
}

/*
 * The multi-block scan of n elements, recursively:
 *   1. scan each block of BLOCK elements; write each block's total to sums[]
 *   2. scan sums[] (nblocks elements) the same way, into scanned[]
 *   3. add scanned[b - 1] to every element of block b >= 1
 * n = 2^28 gives 2^18 block sums, then 2^8, then one block: three levels.
 */
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
	scanned = scratch + sums_words(nblocks);
	scan_block<<<(unsigned int)nblocks, BLOCK>>>(d_in, d_out, sums, n);
	scan_level(sums, scanned, nblocks, scanned + sums_words(nblocks));
	add_block_sums<<<(unsigned int)(nblocks - 1), BLOCK>>>(d_out, scanned, n);
}

extern "C" void scan_inclusive(const unsigned int *d_in, unsigned int *d_out, size_t n)
{
	const size_t words = scratch_words(n);
	unsigned int *scratch = NULL;

	if (words > 0 && cudaMalloc((void **)&scratch, words * sizeof(unsigned int)) != cudaSuccess)
		return;		/* the harness sees the error through cudaGetLastError() */
	scan_level(d_in, d_out, n, scratch);
	if (scratch != NULL)
		cudaFree(scratch);
}
