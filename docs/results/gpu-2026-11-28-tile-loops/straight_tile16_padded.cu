/*
 * tests/gpu/heldout/lab3_tile16_padded.cu with its two one-step loops written as
 * straight lines: the same tile, padding, block, grid, bounds checks and
 * index arithmetic. Measured against the held-out file to see what the loop
 * form costs a lab file (docs/results/gpu-2026-11-28-tile-loops/README.md).
 */
#include <cuda_runtime.h>

#define TILE 16

__global__ void transpose_tile(const float *__restrict__ in, float *__restrict__ out, int rows, int cols)
{
	__shared__ float tile[TILE][TILE + 1];
	const int c0 = blockIdx.x * TILE, r0 = blockIdx.y * TILE;
	const int k = threadIdx.y;

	{
		const int r = r0 + k, c = c0 + threadIdx.x;
		if (r < rows && c < cols)
			tile[k][threadIdx.x] = in[(size_t)r * cols + c];
	}
	__syncthreads();
	{
		const int c = c0 + k, r = r0 + threadIdx.x;	/* out row c, column r */
		if (c < cols && r < rows)
			out[(size_t)c * rows + r] = tile[threadIdx.x][k];
	}
}

extern "C" void transpose(const float *d_in, float *d_out, int rows, int cols)
{
	dim3 block(TILE, TILE);
	dim3 grid((unsigned)((cols + TILE - 1) / TILE), (unsigned)((rows + TILE - 1) / TILE));

	transpose_tile<<<grid, block>>>(d_in, d_out, rows, cols);
}
