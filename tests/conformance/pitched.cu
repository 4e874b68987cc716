/*
 * Conformance fixture, lab 3 (transpose). Idioms: cudaMallocPitch,
 * cudaMemcpy2D between a dense and a pitched buffer (device to device, both
 * ways), a [32][33] padded tile with 32x8 threads, rows addressed through
 * the pitch in bytes.
 * Expected: passes on every size, on the emulator and on the GPU.
 */
#include <cuda_runtime.h>

#define TILE 32
#define ROWS 8

__global__ void transpose_pitched(const char *in, size_t in_pitch, char *out, size_t out_pitch, int rows,
				  int cols)
{
	__shared__ float tile[TILE][TILE + 1];
	int x = blockIdx.x * TILE + threadIdx.x, y = blockIdx.y * TILE + threadIdx.y;
	for (int j = 0; j < TILE; j += ROWS)
		if (x < cols && y + j < rows)
			tile[threadIdx.y + j][threadIdx.x] = ((const float *)(in + (size_t)(y + j) * in_pitch))[x];
	__syncthreads();
	x = blockIdx.y * TILE + threadIdx.x;
	y = blockIdx.x * TILE + threadIdx.y;
	for (int j = 0; j < TILE; j += ROWS)
		if (x < rows && y + j < cols)
			((float *)(out + (size_t)(y + j) * out_pitch))[x] = tile[threadIdx.x][threadIdx.y + j];
}

extern "C" void transpose(const float *d_in, float *d_out, int rows, int cols)
{
	float *in, *out;
	size_t in_pitch, out_pitch;
	cudaMallocPitch(&in, &in_pitch, cols * sizeof(float), rows);
	cudaMallocPitch((void **)&out, &out_pitch, rows * sizeof(float), cols);
	cudaMemcpy2D(in, in_pitch, d_in, cols * sizeof(float), cols * sizeof(float), rows,
		     cudaMemcpyDeviceToDevice);
	dim3 block(TILE, ROWS), grid((cols + TILE - 1) / TILE, (rows + TILE - 1) / TILE);
	transpose_pitched<<<grid, block>>>((const char *)in, in_pitch, (char *)out, out_pitch, rows, cols);
	cudaMemcpy2D(d_out, rows * sizeof(float), out, out_pitch, rows * sizeof(float), cols,
		     cudaMemcpyDeviceToDevice);
	cudaFree(in);
	cudaFree(out);
}
