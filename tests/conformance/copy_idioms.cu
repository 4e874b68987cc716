/*
 * Conformance fixture, lab 3 (transpose). Idioms: memcpy of a size known
 * only at run time into shared memory, a struct copy out of it, memset of
 * a __device__ array, an atomic on a __device__ counter, a memcpy of a
 * local array into a __device__ one (std::copy is host code to nvcc).
 * Expected: passes on every size, on the emulator and on the GPU.
 */
#include <cuda_runtime.h>
#include <string.h>

#define TILE 32
#define ROWS 8

struct boxed {
	float v;
};

__device__ unsigned int tiles_done;
__device__ float scratch[TILE];

__global__ void transpose_copies(const float *in, float *out, int rows, int cols, size_t width)
{
	__shared__ float tile[TILE][TILE + 1];
	int x = blockIdx.x * TILE + threadIdx.x, y = blockIdx.y * TILE + threadIdx.y;
	for (int j = 0; j < TILE; j += ROWS)
		if (x < cols && y + j < rows)
			memcpy(&tile[threadIdx.y + j][threadIdx.x], &in[(size_t)(y + j) * cols + x], width);
	__syncthreads();
	x = blockIdx.y * TILE + threadIdx.x;
	y = blockIdx.x * TILE + threadIdx.y;
	for (int j = 0; j < TILE; j += ROWS)
		if (x < rows && y + j < cols)
			*reinterpret_cast<boxed *>(&out[(size_t)(y + j) * rows + x]) =
				*reinterpret_cast<const boxed *>(&tile[threadIdx.x][threadIdx.y + j]);
	if (threadIdx.x == 0 && threadIdx.y == 0) {
		float words[4] = { 0, 0, 0, 0 };
		memset(scratch, 0, sizeof words);
		memcpy(scratch + 4, words, sizeof words);
		atomicAdd(&tiles_done, 1u);
	}
}

extern "C" void transpose(const float *d_in, float *d_out, int rows, int cols)
{
	dim3 block(TILE, ROWS), grid((cols + TILE - 1) / TILE, (rows + TILE - 1) / TILE);
	transpose_copies<<<grid, block>>>(d_in, d_out, rows, cols, sizeof(float));
}
