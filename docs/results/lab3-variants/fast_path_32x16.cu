/*
 * Lab 3, reference solution: tiled transpose through a padded shared tile.
 *
 *     extern "C" void transpose(const float *d_in, float *d_out, int rows, int cols);
 *
 * d_in is rows x cols, row-major; d_out is cols x rows, row-major.
 *
 * Design
 *   - One block per 32 x 32 tile; 32 x 8 threads, so each thread moves 4
 *     elements (rows y, y+8, y+16, y+24 of the tile): four independent loads in
 *     flight per thread, and the barrier paid once per 4 elements.
 *   - Load: lane x reads input column col0 + x: 32 consecutive floats, 4
 *     sectors per request. Store: lane x writes output column row0 + x: again
 *     32 consecutive floats. The transposition itself happens in shared memory.
 *   - tile[32][33]: the padding column puts the 32 words of a tile column in 32
 *     different banks, so the column-wise read is one wavefront, not 32.
 *   - Only the tiles on the right and bottom edges can stick out of the
 *     matrix. Every other tile takes a path with no bounds checks at all; the
 *     edge tiles check each element, and a store reads only tile elements whose
 *     load was in bounds (the same condition, transposed).
 *   - Index arithmetic is int when rows * cols fits (cheaper address math, and
 *     signed overflow being undefined lets the compiler fold it into addresses),
 *     long long otherwise: the kernel is a template over the index type.
 *   - gridDim.y is capped at 65535 (the hardware limit), and each block loops
 *     over tile rows blockIdx.y, blockIdx.y + gridDim.y, ...; below
 *     65535 * 32 = 2,097,120 rows the loop runs once.
 *
 * Measured on an NVIDIA H100 80GB HBM3: see docs/results/lab3-h100.md.
 */
#include <cuda_runtime.h>
#include <limits.h>
#include <stddef.h>

#define TILE_DIM   32
#define BLOCK_ROWS 16
#define MAX_GRID_Y 65535

template <typename Index>
__device__ void load_tile(float tile[TILE_DIM][TILE_DIM + 1], const float *__restrict__ in,
			  Index rows, Index cols, Index row0, Index col0, bool full)
{
	const Index x = threadIdx.x, y = threadIdx.y;
	if (full) {
		const float *src = in + (row0 + y) * cols + col0 + x;
		for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
			tile[y + j][x] = src[j * cols];
		return;
	}
	for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
		if (row0 + y + j < rows && col0 + x < cols)
			tile[y + j][x] = in[(row0 + y + j) * cols + col0 + x];
}

template <typename Index>
__device__ void store_tile(float tile[TILE_DIM][TILE_DIM + 1], float *__restrict__ out,
			   Index rows, Index cols, Index row0, Index col0, bool full)
{
	const Index x = threadIdx.x, y = threadIdx.y;
	if (full) {
		float *dst = out + (col0 + y) * rows + row0 + x;
		for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
			dst[j * rows] = tile[x][y + j];
		return;
	}
	for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
		if (col0 + y + j < cols && row0 + x < rows)
			out[(col0 + y + j) * rows + row0 + x] = tile[x][y + j];
}

template <typename Index>
__global__ void transpose_tiled(const float *__restrict__ in, float *__restrict__ out,
				Index rows, Index cols)
{
	__shared__ float tile[TILE_DIM][TILE_DIM + 1];	/* +1: no bank conflicts */
	const Index col0 = (Index)blockIdx.x * TILE_DIM;	/* first input column of the tile */
	const Index tile_rows = (rows + TILE_DIM - 1) / TILE_DIM;

	for (Index tr = blockIdx.y; tr < tile_rows; tr += gridDim.y) {
		const Index row0 = tr * TILE_DIM;	/* first input row of the tile */
		const bool full = row0 + TILE_DIM <= rows && col0 + TILE_DIM <= cols;
		load_tile<Index>(tile, in, rows, cols, row0, col0, full);
		__syncthreads();	/* the whole tile is loaded before anyone reads it */
		store_tile<Index>(tile, out, rows, cols, row0, col0, full);
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
	/* The largest index is rows * cols - 1, plus at most a tile's overhang. */
	if ((long long)rows * cols + 2LL * TILE_DIM * (rows + cols) < INT_MAX)
		transpose_tiled<int><<<grid, block>>>(d_in, d_out, rows, cols);
	else
		transpose_tiled<long long><<<grid, block>>>(d_in, d_out, rows, cols);
}
