/*
 * Lab 2 candidates, one reduce-then-scan with knobs: tests/gpu/ref_variants.sh
 * writes one copy per setting of the three #defines below and grades each.
 *
 *   THREADS  threads per block (a power of two, 64 .. 1024)
 *   ITEMS    consecutive elements each thread scans in registers (4, 8, 16)
 *   STAGED   1: tiles move between DRAM and registers through shared memory
 *            (coalesced uint4 requests, then each thread reads its ITEMS
 *            consecutive words); 0: each thread loads and stores its own
 *            ITEMS words directly as uint4 (neighbouring lanes 16*ITEMS
 *            bytes apart; the L1 cache and L2 merge the sectors)
 *
 * Pass 1 reduces each tile of THREADS * ITEMS elements to its sum; the sums
 * are scanned by the same code (recursively); pass 3 scans each tile and adds
 * its offset. Reads n, reads n, writes n: 3n words against a copy's 2n.
 */
#include <cuda_runtime.h>
#include <stddef.h>
#include <stdint.h>

#define THREADS 256
#define ITEMS 8
#define STAGED 1

#define TILE (THREADS * ITEMS)
#define PADDED(i) ((i) + ((i) >> 5))	/* one padding word per 32: no bank conflicts */

/* Exclusive Blelloch scan of one value per thread; *total gets the block's sum. */
__device__ unsigned int block_exclusive_scan(unsigned int *s, unsigned int value, unsigned int *total)
{
	const unsigned int tid = threadIdx.x;
	unsigned int offset = 1, d;

	s[PADDED(tid)] = value;
	for (d = THREADS / 2; d > 0; d >>= 1) {
		__syncthreads();
		if (tid < d) {
			unsigned int a = offset * (2 * tid + 1) - 1, b = offset * (2 * tid + 2) - 1;
			s[PADDED(b)] += s[PADDED(a)];
		}
		offset <<= 1;
	}
	__syncthreads();
	*total = s[PADDED(THREADS - 1)];
	__syncthreads();
	if (tid == 0)
		s[PADDED(THREADS - 1)] = 0;
	for (d = 1; d < THREADS; d <<= 1) {
		offset >>= 1;
		__syncthreads();
		if (tid < d) {
			unsigned int a = offset * (2 * tid + 1) - 1, b = offset * (2 * tid + 2) - 1;
			unsigned int t = s[PADDED(a)];
			s[PADDED(a)] = s[PADDED(b)];
			s[PADDED(b)] += t;
		}
	}
	__syncthreads();
	value = s[PADDED(tid)];
	__syncthreads();	/* s may be reused at once */
	return value;
}

/* This thread's ITEMS consecutive elements of the tile at base (0 past n). */
__device__ void load_items(const unsigned int *in, size_t base, size_t n, bool wide,
			   unsigned int *stage, unsigned int v[ITEMS])
{
	const unsigned int tid = threadIdx.x;
#if STAGED
	for (int k = 0; k < ITEMS / 4; k++) {
		unsigned int i = 4 * (k * THREADS + tid);
		if (wide) {
			uint4 q = *(const uint4 *)(in + base + i);
			stage[PADDED(i)] = q.x; stage[PADDED(i + 1)] = q.y;
			stage[PADDED(i + 2)] = q.z; stage[PADDED(i + 3)] = q.w;
		} else {
			for (int m = 0; m < 4; m++)
				stage[PADDED(i + m)] = base + i + m < n ? in[base + i + m] : 0;
		}
	}
	__syncthreads();
	for (int m = 0; m < ITEMS; m++)
		v[m] = stage[PADDED(tid * ITEMS + m)];
#else
	(void)stage;
	size_t first = base + (size_t)tid * ITEMS;
	if (wide) {
		for (int k = 0; k < ITEMS / 4; k++) {
			uint4 q = *(const uint4 *)(in + first + 4 * k);
			v[4 * k] = q.x; v[4 * k + 1] = q.y; v[4 * k + 2] = q.z; v[4 * k + 3] = q.w;
		}
	} else {
		for (int m = 0; m < ITEMS; m++)
			v[m] = first + m < n ? in[first + m] : 0;
	}
#endif
}

__device__ void store_items(unsigned int *out, size_t base, size_t n, bool wide,
			    unsigned int *stage, const unsigned int v[ITEMS])
{
	const unsigned int tid = threadIdx.x;
#if STAGED
	for (int m = 0; m < ITEMS; m++)
		stage[PADDED(tid * ITEMS + m)] = v[m];
	__syncthreads();
	for (int k = 0; k < ITEMS / 4; k++) {
		unsigned int i = 4 * (k * THREADS + tid);
		if (wide) {
			*(uint4 *)(out + base + i) = make_uint4(stage[PADDED(i)], stage[PADDED(i + 1)],
								stage[PADDED(i + 2)], stage[PADDED(i + 3)]);
		} else {
			for (int m = 0; m < 4; m++)
				if (base + i + m < n)
					out[base + i + m] = stage[PADDED(i + m)];
		}
	}
#else
	(void)stage;
	size_t first = base + (size_t)tid * ITEMS;
	if (wide) {
		for (int k = 0; k < ITEMS / 4; k++)
			*(uint4 *)(out + first + 4 * k) = make_uint4(v[4 * k], v[4 * k + 1], v[4 * k + 2], v[4 * k + 3]);
	} else {
		for (int m = 0; m < ITEMS; m++)
			if (first + m < n)
				out[first + m] = v[m];
	}
#endif
}

/* Pass 1: sums[b] = the sum of tile b. Order does not matter in a sum, so
 * the loads are plain coalesced uint4 requests. */
__global__ void reduce_tiles(const unsigned int *in, unsigned int *sums, size_t n, bool aligned)
{
	__shared__ unsigned int s[THREADS];
	const unsigned int tid = threadIdx.x;
	const size_t base = (size_t)blockIdx.x * TILE;
	unsigned int sum = 0;

	if (aligned && base + TILE <= n) {
		for (int k = 0; k < ITEMS / 4; k++) {
			uint4 q = *(const uint4 *)(in + base + 4 * (k * THREADS + tid));
			sum += q.x + q.y + q.z + q.w;
		}
	} else {
		for (int k = 0; k < ITEMS; k++) {
			size_t i = base + (size_t)k * THREADS + tid;
			sum += i < n ? in[i] : 0;
		}
	}
	s[tid] = sum;
	for (unsigned int d = THREADS / 2; d > 0; d >>= 1) {
		__syncthreads();
		if (tid < d)
			s[tid] += s[tid + d];
	}
	if (tid == 0)
		sums[blockIdx.x] = s[0];
}

/* Pass 3: scan tile b and add offsets[b] (the sum of every earlier tile). */
__global__ void scan_tiles(const unsigned int *in, unsigned int *out, const unsigned int *offsets,
			   size_t n, bool aligned)
{
	__shared__ unsigned int stage[PADDED(TILE)];
	__shared__ unsigned int totals[PADDED(THREADS)];
	const size_t base = (size_t)blockIdx.x * TILE;
	const bool wide = aligned && base + TILE <= n;
	unsigned int v[ITEMS], sum = 0, tile_total;

	load_items(in, base, n, wide, stage, v);
	for (int m = 0; m < ITEMS; m++) {	/* exclusive scan in registers */
		unsigned int x = v[m];
		v[m] = sum;
		sum += x;
	}
	unsigned int before = block_exclusive_scan(totals, sum, &tile_total);
	before += offsets ? offsets[blockIdx.x] : 0;
	for (int m = 0; m < ITEMS; m++)
		v[m] += before;
	store_items(out, base, n, wide, stage, v);
}

static size_t tiles_for(size_t n)
{
	return (n + TILE - 1) / TILE;
}

/* Words of scratch for every level, each level's arrays rounded to 4 words
 * so that they stay 16-byte aligned. */
static size_t scratch_words(size_t n)
{
	size_t words = 0;
	for (; n > TILE; n = tiles_for(n))
		words += 2 * ((tiles_for(n) + 3) / 4 * 4);
	return words;
}

static bool aligned16(const void *a, const void *b)
{
	return ((uintptr_t)a | (uintptr_t)b) % 16 == 0;
}

static void scan_level(const unsigned int *in, unsigned int *out, size_t n, unsigned int *scratch)
{
	const size_t tiles = tiles_for(n);
	const bool aligned = aligned16(in, out);
	if (tiles == 1) {
		scan_tiles<<<1, THREADS>>>(in, out, NULL, n, aligned);
		return;
	}
	unsigned int *sums = scratch, *offsets = scratch + (tiles + 3) / 4 * 4;
	reduce_tiles<<<(unsigned int)tiles, THREADS>>>(in, sums, n, aligned);
	scan_level(sums, offsets, tiles, offsets + (tiles + 3) / 4 * 4);
	scan_tiles<<<(unsigned int)tiles, THREADS>>>(in, out, offsets, n, aligned);
}

extern "C" void scan_exclusive(const unsigned int *d_in, unsigned int *d_out, size_t n)
{
	/* Kept from call to call: cudaMalloc and cudaFree cost more than
	 * scanning a million elements. */
	static unsigned int *scratch = NULL;
	static size_t capacity = 0;
	const size_t words = scratch_words(n);

	if (words > capacity) {
		cudaFree(scratch);
		scratch = NULL;
		capacity = 0;
		if (cudaMalloc((void **)&scratch, words * sizeof(unsigned int)) != cudaSuccess)
			return;
		capacity = words;
	}
	scan_level(d_in, d_out, n, scratch);
}
