/*
 * Held-out model file, lab 3: a naive transpose with 16x16 blocks: coalesced loads of 64 bytes,
 * stores 16 sectors a request.
 */
#include <cuda_runtime.h>

__global__ void transpose_naive(const float *__restrict__ in, float *__restrict__ out, int rows, int cols)
{
	const int c = blockIdx.x * 16 + threadIdx.x;
	const int r = blockIdx.y * 16 + threadIdx.y;
	if (r < rows && c < cols)
		out[(size_t)c * rows + r] = in[(size_t)r * cols + c];
}

extern "C" void transpose(const float *d_in, float *d_out, int rows, int cols)
{
	dim3 block(16, 16);
	dim3 grid((unsigned)((cols + 16 - 1) / 16), (unsigned)((rows + 16 - 1) / 16));

	transpose_naive<<<grid, block>>>(d_in, d_out, rows, cols);
}
