/*
 * Held-out model file, lab 3: vector loads. A tile of 32 rows x 64 columns;
 * 32x8 threads each load float2 pairs (two columns) from 4 rows, so a warp's
 * load is 256 contiguous bytes; the stores are 32 floats of an output row
 * (128 bytes). Padded tile (65 words a row). Scalar path when cols is odd.
 */
#include <cuda_runtime.h>

#define TR 32		/* tile rows (input) */
#define TC 64		/* tile columns (input) */
#define BY 8

__global__ void transpose_f2(const float *__restrict__ in, float *__restrict__ out, int rows, int cols)
{
	__shared__ float tile[TR][TC + 1];
	const int c0 = blockIdx.x * TC, r0 = blockIdx.y * TR;
	const int x = threadIdx.x, y = threadIdx.y;

	for (int k = y; k < TR; k += BY) {
		const int r = r0 + k, c = c0 + 2 * x;
		if (r >= rows)
			continue;
		if ((cols & 1) == 0 && c + 1 < cols) {
			const float2 v = *(const float2 *)(in + (size_t)r * cols + c);
			tile[k][2 * x] = v.x;
			tile[k][2 * x + 1] = v.y;
		} else {
			if (c < cols)
				tile[k][2 * x] = in[(size_t)r * cols + c];
			if (c + 1 < cols)
				tile[k][2 * x + 1] = in[(size_t)r * cols + c + 1];
		}
	}
	__syncthreads();
	for (int k = y; k < TC; k += BY) {
		const int c = c0 + k, r = r0 + x;
		if (c < cols && r < rows)
			out[(size_t)c * rows + r] = tile[x][k];
	}
}

extern "C" void transpose(const float *d_in, float *d_out, int rows, int cols)
{
	dim3 block(32, BY);
	dim3 grid((unsigned)((cols + TC - 1) / TC), (unsigned)((rows + TR - 1) / TR));

	transpose_f2<<<grid, block>>>(d_in, d_out, rows, cols);
}
