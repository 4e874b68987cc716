/*
 * Matrix transposes written the textbook way (the CUDA samples' naive and
 * tiled kernels), for the emulator's coalescing and bank-conflict figures.
 * The @markers name the lines the tests look up.
 */
#include <cuda_runtime.h>
#include <stdlib.h>

#define TILE 32
#define ROWS 8

__global__ void transpose_naive(const float *in, float *out, int rows, int cols)
{
	int x = blockIdx.x * TILE + threadIdx.x;
	int y = blockIdx.y * TILE + threadIdx.y;
	for (int j = 0; j < TILE; j += ROWS)
		if (x < cols && y + j < rows)
			out[x * rows + y + j] = in[(y + j) * cols + x]; /* @naive */
}

/* PAD 1: the padded tile, PAD 0: a 32-way bank conflict on the column reads. */
template <int PAD>
__global__ void transpose_tiled(const float *in, float *out, int rows, int cols)
{
	__shared__ float tile[TILE][TILE + PAD];
	int x = blockIdx.x * TILE + threadIdx.x;
	int y = blockIdx.y * TILE + threadIdx.y;
	for (int j = 0; j < TILE; j += ROWS)
		if (x < cols && y + j < rows)
			tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * cols + x]; /* @tile_in */
	__syncthreads();
	x = blockIdx.y * TILE + threadIdx.x;
	y = blockIdx.x * TILE + threadIdx.y;
	for (int j = 0; j < TILE; j += ROWS)
		if (x < rows && y + j < cols)
			out[(y + j) * rows + x] = tile[threadIdx.x][threadIdx.y + j]; /* @tile_out */
}

/* The tiled kernel with its barrier forgotten. */
__global__ void transpose_nosync(const float *in, float *out, int rows, int cols)
{
	__shared__ float tile[TILE][TILE + 1];
	int x = blockIdx.x * TILE + threadIdx.x;
	int y = blockIdx.y * TILE + threadIdx.y;
	for (int j = 0; j < TILE; j += ROWS)
		if (x < cols && y + j < rows)
			tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * cols + x]; /* @nosync_in */
	x = blockIdx.y * TILE + threadIdx.x;
	y = blockIdx.x * TILE + threadIdx.y;
	for (int j = 0; j < TILE; j += ROWS)
		if (x < rows && y + j < cols)
			out[(y + j) * rows + x] = tile[threadIdx.x][threadIdx.y + j]; /* @nosync_out */
}

/* Runs one variant (0 naive, 1 padded, 2 unpadded, 3 no barrier) on a
 * rows x cols matrix; returns the wrong elements, or -1 on a CUDA error. */
extern "C" long tk_transpose(int variant, int rows, int cols)
{
	size_t n = (size_t)rows * cols;
	float *h_in = (float *)malloc(n * sizeof(float)), *h_out = (float *)malloc(n * sizeof(float));
	float *d_in, *d_out;
	for (size_t i = 0; i < n; i++)
		h_in[i] = (float)i;
	cudaMalloc(&d_in, n * sizeof(float));
	cudaMalloc(&d_out, n * sizeof(float));
	cudaMemcpy(d_in, h_in, n * sizeof(float), cudaMemcpyHostToDevice);
	dim3 block(TILE, ROWS), grid((cols + TILE - 1) / TILE, (rows + TILE - 1) / TILE);
	switch (variant) {
	case 0: transpose_naive<<<grid, block>>>(d_in, d_out, rows, cols); break;
	case 1: transpose_tiled<1><<<grid, block>>>(d_in, d_out, rows, cols); break;
	case 2: transpose_tiled<0><<<grid, block>>>(d_in, d_out, rows, cols); break;
	default: transpose_nosync<<<grid, block>>>(d_in, d_out, rows, cols); break;
	}
	long bad = -1;
	if (cudaGetLastError() == cudaSuccess &&
	    cudaMemcpy(h_out, d_out, n * sizeof(float), cudaMemcpyDeviceToHost) == cudaSuccess) {
		bad = 0;
		for (int r = 0; r < rows; r++)
			for (int c = 0; c < cols; c++)
				bad += h_out[(size_t)c * rows + r] != h_in[(size_t)r * cols + c];
	}
	cudaFree(d_in);
	cudaFree(d_out);
	free(h_in);
	free(h_out);
	return bad;
}
