/*
 * Lab 3, the TUNED REFERENCE: tiled transpose, a 64 x 64 swizzled tile, float2
 * accesses. The band is calibrated on this file, and a GPU grade times it
 * beside a submission. It is not the answer key: that is
 * answer-key/transpose.cu, the skeleton completed the way the handout teaches
 * (a 32 x 33 padded tile; ./grade lab3 --solution).
 *
 *     extern "C" void transpose(const float *d_in, float *d_out, int rows, int cols);
 *
 * d_in is rows x cols, row-major; d_out is cols x rows, row-major.
 *
 * Design
 *   - One block of 256 threads per 64 x 64 tile. For the load, thread t is
 *     lane x = t % 32 of tile row y = t / 32: lane x moves the float2 at tile
 *     columns 2x and 2x+1, so a warp reads 256 consecutive bytes of one row per
 *     request (8 sectors, every byte used). Each thread handles 8 rows (y, y+8,
 *     ..., y+56): 16 floats. The store does the same along the output's rows.
 *   - The 8 loads of a thread are written before any of them is used (the
 *     values go to registers first, then to shared memory), so the compiler can
 *     keep several in flight: it issues them in two groups of four (ptxas, sm_90,
 *     40 registers). A kernel that only moves memory is limited by bytes in
 *     flight over DRAM latency (Little's law), and an H200 moves 42% more bytes
 *     per second than an H100 for the same latency: the same tile written with a
 *     2-D block of 32 x 8 threads compiled to loads issued 4, 1, 1 and 2 at a
 *     time, each group waiting for the last, and timed 90.0% of copy on an H200
 *     against this file's 94.6% (96.3% and 96.2% on an H100, where fewer bytes
 *     in flight suffice; docs/results/h200-2026-11-24/lab3-block-shape.md).
 *   - The tile is swizzled instead of padded: column c of tile row r is stored
 *     at c ^ (r % 32), so a tile column is spread over the banks as a padded
 *     [64][65] tile spreads it (two lanes a bank: lane x reads rows 2x and
 *     2x+1, and rows 2x and 2x+32 get the same swizzle), while every row stays
 *     64 words long. On an H100 the swizzled candidate of this design timed
 *     96.3% of copy, the padded one 95.4% (docs/results/h100-2026-11-24-
 *     candidates/variants.md).
 *   - Any shape: a tile that lies wholly inside the matrix, whose rows are
 *     8-byte aligned (an even row length), takes the float2 path (the load and
 *     the store decide apart: the output's rows are rows long); any other tile
 *     takes a scalar path with a bounds check on every element, in which
 *     consecutive threads move consecutive words (still coalesced). The store's
 *     bounds check is the load's, transposed, so no thread reads a tile element
 *     nobody loaded.
 *   - A one-dimensional grid of tiles (gridDim.y would cap a 2^24 x 1 matrix);
 *     positions are size_t, as rows * cols may exceed 2^31.
 */
#include <cuda_runtime.h>
#include <stddef.h>

#define TILE     64
#define THREADS  256
#define LANES    (TILE / 2)		/* threads across a tile row: one float2 each */
#define PASS     (THREADS / LANES)	/* tile rows a block moves at once: 8 */

#define AT(r, c) tile[r][(c) ^ ((r) % 32)]

__global__ void transpose_tile(const float *__restrict__ in, float *__restrict__ out,
			       int rows, int cols, unsigned int tiles_across)
{
	__shared__ float tile[TILE][TILE];
	const size_t nrows = (size_t)rows, ncols = (size_t)cols;
	const size_t row0 = (size_t)(blockIdx.x / tiles_across) * TILE;	/* first input row */
	const size_t col0 = (size_t)(blockIdx.x % tiles_across) * TILE;	/* first input column */
	const int t = threadIdx.x;
	const bool inside = row0 + TILE <= nrows && col0 + TILE <= ncols;

	/* Load: (r, c) of the tile = in(row0 + r, col0 + c), r = y + 8j. An even
	 * row length keeps every float2 8-byte aligned (cudaMalloc aligns the
	 * matrix itself). */
	if (inside && ncols % 2 == 0) {
		const int x = t % LANES, y = t / LANES;
		float2 v[TILE / PASS];
#pragma unroll
		for (int j = 0; j < TILE / PASS; j++)
			v[j] = *(const float2 *)(in + (row0 + y + j * PASS) * ncols + col0 + 2 * x);
#pragma unroll
		for (int j = 0; j < TILE / PASS; j++) {
			AT(y + j * PASS, 2 * x) = v[j].x;
			AT(y + j * PASS, 2 * x + 1) = v[j].y;
		}
	} else {
		for (int i = t; i < TILE * TILE; i += THREADS) {
			int r = i / TILE, c = i % TILE;
			if (row0 + r < nrows && col0 + c < ncols)
				AT(r, c) = in[(row0 + r) * ncols + col0 + c];
		}
	}

	__syncthreads();	/* the whole tile is loaded before anyone reads it */

	/* Store: output row col0 + cc holds input column col0 + cc, so its words
	 * row0 + rr are (rr, cc) of the tile: the read walks a tile column. */
	if (inside && nrows % 2 == 0) {
		const int x = t % LANES, y = t / LANES;
#pragma unroll
		for (int j = 0; j < TILE / PASS; j++) {
			int cc = y + j * PASS;
			*(float2 *)(out + (col0 + cc) * nrows + row0 + 2 * x) =
				make_float2(AT(2 * x, cc), AT(2 * x + 1, cc));
		}
	} else {
		for (int i = t; i < TILE * TILE; i += THREADS) {
			int cc = i / TILE, rr = i % TILE;
			if (col0 + cc < ncols && row0 + rr < nrows)
				out[(col0 + cc) * nrows + row0 + rr] = AT(rr, cc);
		}
	}
}

extern "C" void transpose(const float *d_in, float *d_out, int rows, int cols)
{
	const size_t tiles_down = ((size_t)rows + TILE - 1) / TILE;
	const size_t tiles_across = ((size_t)cols + TILE - 1) / TILE;

	transpose_tile<<<(unsigned int)(tiles_down * tiles_across), THREADS>>>(
		d_in, d_out, rows, cols, (unsigned int)tiles_across);
}
