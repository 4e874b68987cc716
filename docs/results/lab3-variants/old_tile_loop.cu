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
 *     amortise the index arithmetic and the barrier over 4 elements; 8 warps a
 *     block and 4.2 KiB of shared memory leave room for many blocks per SM.
 *   - Load: lane x reads input column col0 + x: 32 consecutive floats, 4
 *     sectors per request. Store: lane x writes output column row0 + x: again
 *     32 consecutive floats. The transposition itself happens in shared memory.
 *   - tile[32][33]: the padding column puts the 32 words of a tile column in 32
 *     different banks, so the column-wise read is one wavefront, not 32.
 *   - Any shape: loads and stores are bounds-checked, and a store only reads a
 *     tile element whose load was in bounds (same condition, transposed), so
 *     no uninitialised shared memory is read on edge tiles.
 *   - gridDim.y is capped at 65535 (the hardware limit), and each block loops
 *     over tile rows blockIdx.y, blockIdx.y + gridDim.y, ...; so a 2^24 x 1
 *     matrix works; below 65535 * 32 = 2,097,120 rows the loop runs once.
 *     gridDim.x = ceil(cols / 32) stays far below its 2^31 - 1 limit.
 *   - Positions are size_t: rows * cols may exceed 2^31.
 */
#include <cuda_runtime.h>
#include <stddef.h>

#define TILE_DIM   32
#define BLOCK_ROWS 8
#define MAX_GRID_Y 65535

__global__ void transpose_tiled(const float *__restrict__ in, float *__restrict__ out,
				int rows, int cols)
{
	__shared__ float tile[TILE_DIM][TILE_DIM + 1];	/* +1: no bank conflicts */
	const int x = threadIdx.x;
	const int y = threadIdx.y;
	const size_t nrows = (size_t)rows;
	const size_t ncols = (size_t)cols;
	const size_t col0 = (size_t)blockIdx.x * TILE_DIM;	/* first input column of the tile */
	const size_t tile_rows = (nrows + TILE_DIM - 1) / TILE_DIM;
	size_t tr;

	for (tr = blockIdx.y; tr < tile_rows; tr += gridDim.y) {
		const size_t row0 = tr * TILE_DIM;	/* first input row of the tile */
		size_t c = col0 + x;			/* input column this lane loads */
		size_t oc = row0 + x;			/* output column this lane stores */
		int j;

		/* Load: tile[y + j][x] = in(row0 + y + j, col0 + x). Coalesced. */
		for (j = 0; j < TILE_DIM; j += BLOCK_ROWS) {
			size_t r = row0 + y + j;
			if (r < nrows && c < ncols)
				tile[y + j][x] = in[r * ncols + c];
		}

		__syncthreads();	/* the whole tile is loaded before anyone reads it */

		/* Store: out(col0 + y + j, row0 + x) = in(row0 + x, col0 + y + j)
		 * = tile[x][y + j]. Coalesced; the shared read walks a tile column,
		 * which the padding spreads over 32 banks. */
		for (j = 0; j < TILE_DIM; j += BLOCK_ROWS) {
			size_t orow = col0 + y + j;
			if (orow < ncols && oc < nrows)
				out[orow * nrows + oc] = tile[x][y + j];
		}

		__syncthreads();	/* everyone is done reading before the next load */
	}
}

extern "C" void transpose(const float *d_in, float *d_out, int rows, int cols)
{
	size_t tile_rows = ((size_t)rows + TILE_DIM - 1) / TILE_DIM;
	size_t tile_cols = ((size_t)cols + TILE_DIM - 1) / TILE_DIM;
	dim3 block(TILE_DIM, BLOCK_ROWS);
	dim3 grid((unsigned int)tile_cols,
		  (unsigned int)(tile_rows < MAX_GRID_Y ? tile_rows : MAX_GRID_Y));

	transpose_tiled<<<grid, block>>>(d_in, d_out, rows, cols);
}
