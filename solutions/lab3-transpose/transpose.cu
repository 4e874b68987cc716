/*
 * Lab 3, reference solution: tiled transpose, a 64 x 64 swizzled tile, float2
 * accesses.
 *
 *     extern "C" void transpose(const float *d_in, float *d_out, int rows, int cols);
 *
 * d_in is rows x cols, row-major; d_out is cols x rows, row-major.
 *
 * Design
 *   - One block per 64 x 64 tile, 32 x 8 threads. Lane x moves the float2 at
 *     tile columns 2x and 2x+1: a warp reads or writes 256 consecutive bytes of
 *     one row per request (8 sectors, every byte used). Each thread handles 8
 *     rows (y, y+8, ..., y+56): 16 floats.
 *   - The 8 loads of a thread are all issued before any of them is used (the
 *     values go to registers first, then to shared memory), so each thread keeps
 *     64 bytes in flight, 4 times what a 32 x 32 tile with 32 x 8 threads keeps.
 *     A kernel that only moves memory is limited by bytes in flight over DRAM
 *     latency (Little's law): this is what the higher bandwidth of an H200 asks
 *     for (see the handout, section 9).
 *   - The tile is swizzled instead of padded: column c of tile row r is stored
 *     at c ^ (r % 32), so a tile column is spread over the banks as a padded
 *     [64][65] tile spreads it (two lanes a bank: lane x reads rows 2x and
 *     2x+1, and rows 2x and 2x+32 get the same swizzle), while every row stays
 *     64 words long. On an H100 the swizzled candidate of this design timed
 *     96.3% of copy, the padded one 95.4% (docs/results/h100-2026-11-24-
 *     candidates/variants.md); this file is that candidate's kernel.
 *   - Any shape: a tile that lies wholly inside the matrix, whose rows are
 *     8-byte aligned (an even row length), takes the float2 path (the load and
 *     the store decide apart: the output's rows are rows long); any other tile
 *     takes a scalar path with a bounds check on every element, in which lane x
 *     moves columns x and x + 32 (still coalesced). The store's bounds check is
 *     the load's, transposed, so no thread reads a tile element nobody loaded.
 *   - A one-dimensional grid of tiles (gridDim.y would cap a 2^24 x 1 matrix);
 *     positions are size_t, as rows * cols may exceed 2^31.
 */
#include <cuda_runtime.h>
#include <stddef.h>

#define TILE       64
#define BLOCK_ROWS 8			/* rows of threads; TILE / 2 = 32 threads per row */
#define PER_THREAD (TILE / BLOCK_ROWS)	/* tile rows per thread: 8 */

#define AT(r, c) tile[r][(c) ^ ((r) % 32)]

__global__ void transpose_tile(const float *__restrict__ in, float *__restrict__ out,
			       int rows, int cols, unsigned int tiles_across)
{
	__shared__ float tile[TILE][TILE];
	const size_t nrows = (size_t)rows, ncols = (size_t)cols;
	const size_t row0 = (size_t)(blockIdx.x / tiles_across) * TILE;	/* first input row */
	const size_t col0 = (size_t)(blockIdx.x % tiles_across) * TILE;	/* first input column */
	const int x = threadIdx.x, y = threadIdx.y;
	const bool inside = row0 + TILE <= nrows && col0 + TILE <= ncols;

	/* Load: (r, c) of the tile = in(row0 + r, col0 + c), r = y + 8j. An even
	 * row length keeps every float2 8-byte aligned (cudaMalloc aligns the
	 * matrix itself). */
	if (inside && ncols % 2 == 0) {
		float2 v[PER_THREAD];
#pragma unroll
		for (int j = 0; j < PER_THREAD; j++)	/* 8 independent loads in flight */
			v[j] = *(const float2 *)&in[(row0 + y + j * BLOCK_ROWS) * ncols + col0 + 2 * x];
#pragma unroll
		for (int j = 0; j < PER_THREAD; j++) {
			AT(y + j * BLOCK_ROWS, 2 * x) = v[j].x;
			AT(y + j * BLOCK_ROWS, 2 * x + 1) = v[j].y;
		}
	} else {
		for (int j = 0; j < PER_THREAD; j++)
			for (int k = 0; k < 2; k++) {
				int r = y + j * BLOCK_ROWS, c = x + k * (TILE / 2);
				if (row0 + r < nrows && col0 + c < ncols)
					AT(r, c) = in[(row0 + r) * ncols + col0 + c];
			}
	}

	__syncthreads();	/* the whole tile is loaded before anyone reads it */

	/* Store: output row col0 + c holds input column col0 + c, so its words
	 * row0 + r are (r, c) of the tile, c = y + 8j: the read walks a column. */
	if (inside && nrows % 2 == 0) {
#pragma unroll
		for (int j = 0; j < PER_THREAD; j++) {
			int c = y + j * BLOCK_ROWS;
			float2 v = make_float2(AT(2 * x, c), AT(2 * x + 1, c));
			*(float2 *)&out[(col0 + c) * nrows + row0 + 2 * x] = v;
		}
	} else {
		for (int j = 0; j < PER_THREAD; j++)
			for (int k = 0; k < 2; k++) {
				int c = y + j * BLOCK_ROWS, r = x + k * (TILE / 2);
				if (col0 + c < ncols && row0 + r < nrows)
					out[(col0 + c) * nrows + row0 + r] = AT(r, c);
			}
	}
}

extern "C" void transpose(const float *d_in, float *d_out, int rows, int cols)
{
	const size_t tiles_down = ((size_t)rows + TILE - 1) / TILE;
	const size_t tiles_across = ((size_t)cols + TILE - 1) / TILE;
	dim3 block(TILE / 2, BLOCK_ROWS);

	transpose_tile<<<(unsigned int)(tiles_down * tiles_across), block>>>(
		d_in, d_out, rows, cols, (unsigned int)tiles_across);
}
