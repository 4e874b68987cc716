/*
 * Conformance fixture, lab 3 (transpose). Idioms: a [16][16] shared tile
 * with 16x16 threads (correct, with bank conflicts: the emulator's hint
 * should suggest [16][17]), cooperative groups' thread_block with
 * thread_index() and sync(), dim3 grids from a ceiling division.
 * Expected: passes on every size, on the emulator and on the GPU.
 */
#include <cooperative_groups.h>
#include <cuda_runtime.h>

namespace cg = cooperative_groups;

#define TILE 16

__global__ void transpose16(const float *in, float *out, int rows, int cols)
{
	__shared__ float tile[TILE][TILE];
	cg::thread_block block = cg::this_thread_block();
	dim3 t = block.thread_index();
	int x = blockIdx.x * TILE + t.x, y = blockIdx.y * TILE + t.y;
	if (x < cols && y < rows)
		tile[t.y][t.x] = in[(size_t)y * cols + x];
	block.sync();
	x = blockIdx.y * TILE + t.x;
	y = blockIdx.x * TILE + t.y;
	if (x < rows && y < cols)
		out[(size_t)y * rows + x] = tile[t.x][t.y];
}

extern "C" void transpose(const float *d_in, float *d_out, int rows, int cols)
{
	dim3 block(TILE, TILE), grid((cols + TILE - 1) / TILE, (rows + TILE - 1) / TILE);
	transpose16<<<grid, block>>>(d_in, d_out, rows, cols);
}
