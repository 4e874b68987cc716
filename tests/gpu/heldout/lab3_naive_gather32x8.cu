/*
 * Held-out model file, lab 3: a naive transpose that gathers: strided loads (32 sectors a
 * request), coalesced stores, 32x8 blocks.
 */
#include <cuda_runtime.h>

__global__ void transpose_naive(const float *__restrict__ in, float *__restrict__ out, int rows, int cols)
{
	/* thread (x, y) writes out row y at column x: coalesced stores, strided loads */
	const int r = blockIdx.x * 32 + threadIdx.x;	/* out column = in row */
	const int c = blockIdx.y * 8 + threadIdx.y;	/* out row = in column */
	if (r < rows && c < cols)
		out[(size_t)c * rows + r] = in[(size_t)r * cols + c];
}

extern "C" void transpose(const float *d_in, float *d_out, int rows, int cols)
{
	dim3 block(32, 8);
	dim3 grid((unsigned)((rows + 32 - 1) / 32), (unsigned)((cols + 8 - 1) / 8));

	transpose_naive<<<grid, block>>>(d_in, d_out, rows, cols);
}
