/*
 * Lab 3, reference solution: tiled transpose through a padded shared tile.
 *
 *     extern "C" void transpose(const float *d_in, float *d_out, int rows, int cols);
 *
 * d_in is rows x cols, row-major; d_out is cols x rows, row-major.
 *
 * Design
 *   - One block per 32 x 32 tile; 32 x 8 threads, so each thread moves 4
 *     elements (rows y, y+8, y+16, y+24 of the tile). Fewer, busier threads
 *     share the index arithmetic and the barrier over 4 elements, keep 4 loads
 *     in flight each, and 8 warps a block with 4.2 KiB of shared memory let 8
 *     blocks share an SM.
 *   - Load: lane x reads input column col0 + x: 32 consecutive floats, 4
 *     sectors per request. Store: lane x writes output column row0 + x: again
 *     32 consecutive floats. The transposition itself happens in shared memory.
 *   - tile[32][33]: the padding column puts the 32 words of a tile column in 32
 *     different banks, so the column-wise read is one wavefront, not 32.
 *   - Any shape: loads and stores are bounds-checked, and a store only reads a
 *     tile element whose load was in bounds (the same condition, transposed),
 *     so edge tiles never read shared memory that was not written.
 *   - A one-dimensional grid of tiles, numbered row by row: block b handles
 *     tile row b / tiles_across, tile column b % tiles_across (the order in
 *     which a 2-D grid would run them). gridDim.y is limited to 65535, which a
 *     2^24 x 1 matrix (2^19 tile rows) would exceed; gridDim.x allows 2^31 - 1
 *     tiles, more than any matrix that fits in memory has. No loop in the
 *     kernel: on an H100 a grid-stride loop over tiles (with its second
 *     barrier) measured clearly slower than this straight-line kernel.
 *   - Positions are size_t: rows * cols may exceed 2^31.
 */
#include <cuda_runtime.h>
#include <stddef.h>

#define TILE_DIM   32
#define BLOCK_ROWS 8

__global__ void transpose_tiled(const float *__restrict__ in, float *__restrict__ out,
				int rows, int cols, unsigned int tiles_across)
{
	__shared__ float tile[TILE_DIM][TILE_DIM + 1];	/* +1: no bank conflicts */
	const unsigned int tile_row = blockIdx.x / tiles_across;
	const unsigned int tile_col = blockIdx.x % tiles_across;
	const size_t nrows = (size_t)rows, ncols = (size_t)cols;
	const size_t row0 = (size_t)tile_row * TILE_DIM;	/* first input row of the tile */
	const size_t col0 = (size_t)tile_col * TILE_DIM;	/* first input column */
	const int x = threadIdx.x, y = threadIdx.y;
	size_t c, r;
	int j;

	/* Load: tile[y + j][x] = in(row0 + y + j, col0 + x). Coalesced. */
	c = col0 + x;
	for (j = 0; j < TILE_DIM; j += BLOCK_ROWS) {
		r = row0 + y + j;
		if (r < nrows && c < ncols)
			tile[y + j][x] = in[r * ncols + c];
	}

	__syncthreads();	/* the whole tile is loaded before anyone reads it */

	/* Store: out(col0 + y + j, row0 + x) = in(row0 + x, col0 + y + j)
	 * = tile[x][y + j]. Coalesced; the shared read walks a tile column,
	 * which the padding spreads over 32 banks. Here r is an output row
	 * (an input column) and c an output column (an input row). */
	c = row0 + x;
	for (j = 0; j < TILE_DIM; j += BLOCK_ROWS) {
		r = col0 + y + j;
		if (r < ncols && c < nrows)
			out[r * nrows + c] = tile[x][y + j];
	}
}

extern "C" void transpose(const float *d_in, float *d_out, int rows, int cols)
{
	const size_t tiles_down = ((size_t)rows + TILE_DIM - 1) / TILE_DIM;
	const size_t tiles_across = ((size_t)cols + TILE_DIM - 1) / TILE_DIM;
	dim3 block(TILE_DIM, BLOCK_ROWS);

	transpose_tiled<<<(unsigned int)(tiles_down * tiles_across), block>>>(
		d_in, d_out, rows, cols, (unsigned int)tiles_across);
}
