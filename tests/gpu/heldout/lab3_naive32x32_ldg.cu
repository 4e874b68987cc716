/*
 * Held-out model file, lab 3: a naive transpose with 32x32 blocks, __ldg loads: stores touch
 * 32 sectors a request.
 */
#include <cuda_runtime.h>

__global__ void transpose_naive(const float *__restrict__ in, float *__restrict__ out, int rows, int cols)
{
	const int c = blockIdx.x * 32 + threadIdx.x;
	const int r = blockIdx.y * 32 + threadIdx.y;
	if (r < rows && c < cols)
		out[(size_t)c * rows + r] = __ldg(&in[(size_t)r * cols + c]);
}

extern "C" void transpose(const float *d_in, float *d_out, int rows, int cols)
{
	dim3 block(32, 32);
	dim3 grid((unsigned)((cols + 32 - 1) / 32), (unsigned)((rows + 32 - 1) / 32));

	transpose_naive<<<grid, block>>>(d_in, d_out, rows, cols);
}
