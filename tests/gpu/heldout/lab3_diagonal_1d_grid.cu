/*
 * Held-out model file, lab 3: a 32x32 padded tile with 32x8 threads on a 1-D
 * grid whose blocks are reordered along diagonals (block b takes tile column
 * (b + b / across) % across of row b / across: neighbouring blocks touch
 * different DRAM partitions), bounds on every access, row pitches as size_t.
 */
#include <cuda_runtime.h>
#include <stddef.h>

#define TILE 32
#define ROWS 8

__global__ void transpose_diag(const float *__restrict__ in, float *__restrict__ out,
			       int rows, int cols, unsigned across)
{
	__shared__ float tile[TILE][TILE + 1];
	const unsigned b = blockIdx.x, by = b / across, bx = (b % across + by) % across;
	const size_t in_pitch = (size_t)cols, out_pitch = (size_t)rows;
	const int c0 = (int)bx * TILE, r0 = (int)by * TILE;

	for (int k = threadIdx.y; k < TILE; k += ROWS) {
		const int r = r0 + k, c = c0 + threadIdx.x;
		if (r < rows && c < cols)
			tile[k][threadIdx.x] = in[r * in_pitch + c];
	}
	__syncthreads();
	for (int k = threadIdx.y; k < TILE; k += ROWS) {
		const int c = c0 + k, r = r0 + threadIdx.x;
		if (c < cols && r < rows)
			out[c * out_pitch + r] = tile[threadIdx.x][k];
	}
}

extern "C" void transpose(const float *d_in, float *d_out, int rows, int cols)
{
	const unsigned across = (unsigned)((cols + TILE - 1) / TILE);
	const unsigned down = (unsigned)((rows + TILE - 1) / TILE);

	transpose_diag<<<across * down, dim3(TILE, ROWS)>>>(d_in, d_out, rows, cols, across);
}
