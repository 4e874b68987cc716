/*
 * Conformance fixture, lab 3 (transpose). Idioms: __ldg loads, float2 loads
 * of two neighbouring elements (when every row starts 8-byte aligned), a
 * uint4 copy of 16 bytes at a time with a scalar tail, make_float2, a
 * temporary buffer.
 * Expected: passes on every size, on the emulator and on the GPU.
 */
#include <cuda_runtime.h>

#define TILE 32

/* Each thread moves two neighbouring elements of a row. */
__global__ void transpose_pairs(const float *__restrict__ in, float *__restrict__ out, int rows, int cols)
{
	__shared__ float tile[TILE][TILE + 1];
	int x = blockIdx.x * TILE + 2 * threadIdx.x, y = blockIdx.y * TILE + threadIdx.y;
	if (y < rows) {
		if (cols % 2 == 0 && x + 1 < cols) {
			float2 p = __ldg(reinterpret_cast<const float2 *>(in + (size_t)y * cols + x));
			tile[threadIdx.y][2 * threadIdx.x] = p.x;
			tile[threadIdx.y][2 * threadIdx.x + 1] = p.y;
		} else {
			if (x < cols)
				tile[threadIdx.y][2 * threadIdx.x] = __ldg(in + (size_t)y * cols + x);
			if (x + 1 < cols)
				tile[threadIdx.y][2 * threadIdx.x + 1] = __ldg(in + (size_t)y * cols + x + 1);
		}
	}
	__syncthreads();
	int ox = blockIdx.y * TILE + 2 * threadIdx.x, oy = blockIdx.x * TILE + threadIdx.y;
	if (oy < cols) {
		float2 p = make_float2(tile[2 * threadIdx.x][threadIdx.y], tile[2 * threadIdx.x + 1][threadIdx.y]);
		if (rows % 2 == 0 && ox + 1 < rows) {
			reinterpret_cast<float2 *>(out + (size_t)oy * rows + ox)[0] = p;
		} else {
			if (ox < rows)
				out[(size_t)oy * rows + ox] = p.x;
			if (ox + 1 < rows)
				out[(size_t)oy * rows + ox + 1] = p.y;
		}
	}
}

/* 16 bytes a thread; the last n % 4 words one by one. */
__global__ void copy_vec4(const float *src, float *dst, size_t n)
{
	size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x, quads = n / 4;
	if (i < quads)
		reinterpret_cast<uint4 *>(dst)[i] = __ldg(reinterpret_cast<const uint4 *>(src) + i);
	else if (i - quads < n % 4)
		dst[4 * quads + (i - quads)] = src[4 * quads + (i - quads)];
}

extern "C" void transpose(const float *d_in, float *d_out, int rows, int cols)
{
	float *tmp;
	size_t n = (size_t)rows * cols;
	cudaMalloc(&tmp, n * sizeof(float));
	dim3 block(TILE / 2, TILE), grid((cols + TILE - 1) / TILE, (rows + TILE - 1) / TILE);
	transpose_pairs<<<grid, block>>>(d_in, tmp, rows, cols);
	size_t threads = n / 4 + 4;
	copy_vec4<<<(unsigned int)((threads + 255) / 256), 256>>>(tmp, d_out, n);
	cudaFree(tmp);
}
