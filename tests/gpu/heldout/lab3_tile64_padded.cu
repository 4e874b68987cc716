/*
 * Held-out model file, lab 3: a 64x64 tile.
 * A 64x64 tile through shared memory padded to 64x65, blocks of 64x16 threads
 * (4 elements a thread), a 2-D grid, bounds on every access.
 */
#include <cuda_runtime.h>

#define TILE 64
#define ROWS 16

__global__ void transpose_tile(const float *__restrict__ in, float *__restrict__ out, int rows, int cols)
{
	__shared__ float tile[TILE][TILE + 1];
	const int c0 = blockIdx.x * TILE, r0 = blockIdx.y * TILE;

	for (int k = threadIdx.y; k < TILE; k += ROWS) {
		const int r = r0 + k, c = c0 + threadIdx.x;
		if (r < rows && c < cols)
			tile[k][threadIdx.x] = in[(size_t)r * cols + c];
	}
	__syncthreads();
	for (int k = threadIdx.y; k < TILE; k += ROWS) {
		const int c = c0 + k, r = r0 + threadIdx.x;	/* out row c, column r */
		if (c < cols && r < rows)
			out[(size_t)c * rows + r] = tile[threadIdx.x][k];
	}
}

extern "C" void transpose(const float *d_in, float *d_out, int rows, int cols)
{
	dim3 block(TILE, ROWS);
	dim3 grid((unsigned)((cols + TILE - 1) / TILE), (unsigned)((rows + TILE - 1) / TILE));

	transpose_tile<<<grid, block>>>(d_in, d_out, rows, cols);
}
