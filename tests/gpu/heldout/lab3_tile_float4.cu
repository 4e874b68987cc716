/*
 * Held-out model file, lab 3: float4 on both sides. A padded 32x32 tile,
 * 8x32 threads: each thread loads a float4 (4 columns) of one input row and
 * stores a float4 (4 consecutive output columns = 4 input rows); a warp's
 * request covers 4 rows of 128 bytes. Scalar path at edges or odd alignment.
 */
#include <cuda_runtime.h>

#define TILE 32

__global__ void transpose_f4(const float *__restrict__ in, float *__restrict__ out, int rows, int cols)
{
	__shared__ float tile[TILE][TILE + 1];
	const int x = threadIdx.x, y = threadIdx.y;	/* x: 0..7 (float4 slot), y: 0..31 */
	const int c0 = blockIdx.x * TILE, r0 = blockIdx.y * TILE;
	const int r = r0 + y, c = c0 + 4 * x;

	if (r < rows) {
		if ((cols & 3) == 0 && c + 3 < cols) {
			const float4 v = *(const float4 *)(in + (size_t)r * cols + c);
			tile[y][4 * x] = v.x;
			tile[y][4 * x + 1] = v.y;
			tile[y][4 * x + 2] = v.z;
			tile[y][4 * x + 3] = v.w;
		} else {
			for (int j = 0; j < 4; j++)
				if (c + j < cols)
					tile[y][4 * x + j] = in[(size_t)r * cols + c + j];
		}
	}
	__syncthreads();
	const int oc = c0 + y, orow = r0 + 4 * x;	/* out row oc, columns orow..orow+3 */
	if (oc >= cols)
		return;
	if ((rows & 3) == 0 && orow + 3 < rows) {
		*(float4 *)(out + (size_t)oc * rows + orow) =
			make_float4(tile[4 * x][y], tile[4 * x + 1][y], tile[4 * x + 2][y], tile[4 * x + 3][y]);
	} else {
		for (int j = 0; j < 4; j++)
			if (orow + j < rows)
				out[(size_t)oc * rows + orow + j] = tile[4 * x + j][y];
	}
}

extern "C" void transpose(const float *d_in, float *d_out, int rows, int cols)
{
	dim3 grid((unsigned)((cols + TILE - 1) / TILE), (unsigned)((rows + TILE - 1) / TILE));

	transpose_f4<<<grid, dim3(8, TILE)>>>(d_in, d_out, rows, cols);
}
