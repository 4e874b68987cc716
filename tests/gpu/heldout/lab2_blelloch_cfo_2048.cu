/*
 * Held-out model file, lab 2: the textbook work-efficient (Blelloch) block
 * scan with conflict-free offsets (an index i is stored at i + i / 32), 1024
 * threads and 2048 elements a block; the block totals scanned recursively by
 * the same kernel, then added back. Exclusive.
 */
#include <cuda_runtime.h>
#include <stddef.h>

#define ELEMS   2048
#define THREADS (ELEMS / 2)
#define LOG_BANKS 5
#define PAD(i) ((i) + ((i) >> LOG_BANKS))

__global__ void blelloch(const unsigned *in, unsigned *out, unsigned *sums, size_t n)
{
	__shared__ unsigned s[PAD(ELEMS) + 1];
	const unsigned t = threadIdx.x;
	const size_t base = (size_t)blockIdx.x * ELEMS;
	const unsigned a = t, b = t + THREADS;
	unsigned off = 1;

	s[PAD(a)] = base + a < n ? in[base + a] : 0u;
	s[PAD(b)] = base + b < n ? in[base + b] : 0u;
	for (unsigned d = ELEMS >> 1; d > 0; d >>= 1) {	/* up-sweep */
		__syncthreads();
		if (t < d) {
			unsigned ai = off * (2 * t + 1) - 1, bi = off * (2 * t + 2) - 1;
			s[PAD(bi)] += s[PAD(ai)];
		}
		off <<= 1;
	}
	if (t == 0) {
		if (sums != NULL)
			sums[blockIdx.x] = s[PAD(ELEMS - 1)];
		s[PAD(ELEMS - 1)] = 0;
	}
	for (unsigned d = 1; d < ELEMS; d <<= 1) {	/* down-sweep */
		off >>= 1;
		__syncthreads();
		if (t < d) {
			unsigned ai = off * (2 * t + 1) - 1, bi = off * (2 * t + 2) - 1;
			unsigned v = s[PAD(ai)];
			s[PAD(ai)] = s[PAD(bi)];
			s[PAD(bi)] += v;
		}
	}
	__syncthreads();
	if (base + a < n)
		out[base + a] = s[PAD(a)];
	if (base + b < n)
		out[base + b] = s[PAD(b)];
}

__global__ void add_block_offsets(unsigned *out, const unsigned *scanned, size_t n)
{
	const size_t base = (size_t)blockIdx.x * ELEMS;
	const unsigned add = scanned[blockIdx.x];
	for (unsigned k = threadIdx.x; k < ELEMS; k += THREADS)
		if (base + k < n)
			out[base + k] += add;
}

static void scan_rec(const unsigned *in, unsigned *out, size_t n, unsigned *scratch)
{
	const size_t blocks = (n + ELEMS - 1) / ELEMS;
	if (blocks == 1) {
		blelloch<<<1, THREADS>>>(in, out, NULL, n);
		return;
	}
	blelloch<<<(unsigned)blocks, THREADS>>>(in, out, scratch, n);
	scan_rec(scratch, scratch + blocks, blocks, scratch + 2 * blocks);
	add_block_offsets<<<(unsigned)blocks, THREADS>>>(out, scratch + blocks, n);
}

extern "C" void scan_exclusive(const unsigned int *d_in, unsigned int *d_out, size_t n)
{
	size_t words = 0, m = n;
	unsigned *scratch = NULL;

	while (m > ELEMS) {
		m = (m + ELEMS - 1) / ELEMS;
		words += 2 * m;
	}
	if (words > 0 && cudaMalloc((void **)&scratch, words * sizeof(unsigned)) != cudaSuccess)
		return;
	scan_rec(d_in, d_out, n, scratch);
	if (scratch != NULL)
		cudaFree(scratch);
}
