/*
 * Held-out model file, lab 1: 4 elements a thread. 256 threads stage 1024
 * elements in shared memory (coalesced), each thread scans its 4 consecutive
 * elements serially, a Kogge-Stone scan (double-buffered) runs over the 256
 * thread totals, and each thread adds its prefix; block totals scanned
 * recursively, then added by a 256-thread kernel, 4 elements a thread.
 */
#include <cuda_runtime.h>
#include <stddef.h>

#define THREADS 256
#define ITEMS   4
#define TILE    (THREADS * ITEMS)

__global__ void scan_tile(const unsigned *in, unsigned *out, unsigned *sums, size_t n)
{
	__shared__ unsigned data[TILE];
	__shared__ unsigned tot[2][THREADS];
	const unsigned t = threadIdx.x;
	const size_t base = (size_t)blockIdx.x * TILE;
	unsigned run = 0, v[ITEMS];
	int cur = 0;

	for (int k = 0; k < ITEMS; k++) {
		const size_t i = base + k * THREADS + t;
		data[k * THREADS + t] = i < n ? in[i] : 0u;
	}
	__syncthreads();
	for (int k = 0; k < ITEMS; k++) {
		run += data[t * ITEMS + k];
		v[k] = run;
	}
	tot[0][t] = run;
	__syncthreads();
	for (unsigned d = 1; d < THREADS; d <<= 1) {
		tot[1 - cur][t] = tot[cur][t] + (t >= d ? tot[cur][t - d] : 0u);
		cur = 1 - cur;
		__syncthreads();
	}
	const unsigned before = tot[cur][t] - run;
	for (int k = 0; k < ITEMS; k++)
		data[t * ITEMS + k] = v[k] + before;
	__syncthreads();
	for (int k = 0; k < ITEMS; k++) {
		const size_t i = base + k * THREADS + t;
		if (i < n)
			out[i] = data[k * THREADS + t];
	}
	if (sums != NULL && t == THREADS - 1)
		sums[blockIdx.x] = tot[cur][t];
}

__global__ void add_tile_sums(unsigned *out, const unsigned *scanned, size_t n)
{
	const size_t base = ((size_t)blockIdx.x + 1) * TILE;
	const unsigned add = scanned[blockIdx.x];
	for (int k = 0; k < ITEMS; k++) {
		const size_t i = base + k * THREADS + threadIdx.x;
		if (i < n)
			out[i] += add;
	}
}

static void scan_rec(const unsigned *in, unsigned *out, size_t n, unsigned *scratch)
{
	const size_t tiles = (n + TILE - 1) / TILE;
	if (tiles == 1) {
		scan_tile<<<1, THREADS>>>(in, out, NULL, n);
		return;
	}
	scan_tile<<<(unsigned)tiles, THREADS>>>(in, out, scratch, n);
	scan_rec(scratch, scratch + tiles, tiles, scratch + 2 * tiles);
	add_tile_sums<<<(unsigned)(tiles - 1), THREADS>>>(out, scratch + tiles, n);
}

extern "C" void scan_inclusive(const unsigned int *d_in, unsigned int *d_out, size_t n)
{
	size_t words = 0, m = n;
	unsigned *scratch = NULL;

	while (m > TILE) {
		m = (m + TILE - 1) / TILE;
		words += 2 * m;
	}
	if (words > 0 && cudaMalloc((void **)&scratch, words * sizeof(unsigned)) != cudaSuccess)
		return;
	scan_rec(d_in, d_out, n, scratch);
	if (scratch != NULL)
		cudaFree(scratch);
}
