/*
 * The kernels of the speed table (docs/results/emu-speed.md), written the
 * textbook way: the CUDA samples' naive and tiled transposes, and
 * multi-block scans (block scan, scan of the block sums, add) with a
 * double-buffered Hillis-Steele block scan and a Blelloch block scan.
 */
#include <cuda_runtime.h>

#define TILE 32
#define ROWS 8
#define B 1024

__global__ void transpose_naive(const float *in, float *out, int rows, int cols)
{
	int x = blockIdx.x * TILE + threadIdx.x, y = blockIdx.y * TILE + threadIdx.y;
	for (int j = 0; j < TILE; j += ROWS)
		if (x < cols && y + j < rows)
			out[x * rows + y + j] = in[(y + j) * cols + x];
}

__global__ void transpose_tiled(const float *in, float *out, int rows, int cols)
{
	__shared__ float tile[TILE][TILE + 1];
	int x = blockIdx.x * TILE + threadIdx.x, y = blockIdx.y * TILE + threadIdx.y;
	for (int j = 0; j < TILE; j += ROWS)
		if (x < cols && y + j < rows)
			tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * cols + x];
	__syncthreads();
	x = blockIdx.y * TILE + threadIdx.x;
	y = blockIdx.x * TILE + threadIdx.y;
	for (int j = 0; j < TILE; j += ROWS)
		if (x < rows && y + j < cols)
			out[(y + j) * rows + x] = tile[threadIdx.x][threadIdx.y + j];
}

extern "C" void bench_transpose(int tiled, const float *d_in, float *d_out, int rows, int cols)
{
	dim3 block(TILE, ROWS), grid((cols + TILE - 1) / TILE, (rows + TILE - 1) / TILE);
	if (tiled)
		transpose_tiled<<<grid, block>>>(d_in, d_out, rows, cols);
	else
		transpose_naive<<<grid, block>>>(d_in, d_out, rows, cols);
}

/* Inclusive scan of B elements per block, B threads. */
__global__ void hs_block(const unsigned *in, unsigned *out, unsigned *sums, size_t n)
{
	__shared__ unsigned buf[2][B];
	unsigned tid = threadIdx.x;
	size_t i = (size_t)blockIdx.x * B + tid;
	int cur = 0;
	buf[0][tid] = i < n ? in[i] : 0;
	__syncthreads();
	for (unsigned off = 1; off < B; off *= 2) {
		unsigned v = buf[cur][tid];
		if (tid >= off)
			v += buf[cur][tid - off];
		buf[1 - cur][tid] = v;
		cur = 1 - cur;
		__syncthreads();
	}
	if (i < n)
		out[i] = buf[cur][tid];
	if (sums && tid == B - 1)
		sums[blockIdx.x] = buf[cur][B - 1];
}

/* Exclusive scan of B elements per block, B / 2 threads. */
__global__ void blelloch_block(const unsigned *in, unsigned *out, unsigned *sums, size_t n)
{
	__shared__ unsigned t[B];
	unsigned tid = threadIdx.x, offset = 1;
	size_t base = (size_t)blockIdx.x * B;
	t[2 * tid] = base + 2 * tid < n ? in[base + 2 * tid] : 0;
	t[2 * tid + 1] = base + 2 * tid + 1 < n ? in[base + 2 * tid + 1] : 0;
	for (unsigned d = B / 2; d > 0; d /= 2) {
		__syncthreads();
		if (tid < d)
			t[offset * (2 * tid + 2) - 1] += t[offset * (2 * tid + 1) - 1];
		offset *= 2;
	}
	__syncthreads();
	if (tid == 0) {
		if (sums)
			sums[blockIdx.x] = t[B - 1];
		t[B - 1] = 0;
	}
	for (unsigned d = 1; d < B; d *= 2) {
		offset /= 2;
		__syncthreads();
		if (tid < d) {
			unsigned a = offset * (2 * tid + 1) - 1, b = offset * (2 * tid + 2) - 1;
			unsigned x = t[a];
			t[a] = t[b];
			t[b] += x;
		}
	}
	__syncthreads();
	if (base + 2 * tid < n)
		out[base + 2 * tid] = t[2 * tid];
	if (base + 2 * tid + 1 < n)
		out[base + 2 * tid + 1] = t[2 * tid + 1];
}

/* out[i] += sums[block of i] (scanned block totals), blocks >= 1. */
__global__ void add_sums(unsigned *out, const unsigned *sums, size_t n, int inclusive)
{
	size_t b = blockIdx.x + 1, i = b * B + threadIdx.x;
	unsigned add = sums[inclusive ? b - 1 : b];
	if (i < n)
		out[i] += add;
}

static void scan_level(int blelloch, const unsigned *in, unsigned *out, size_t n, unsigned *scratch)
{
	size_t blocks = (n + B - 1) / B;
	unsigned threads = blelloch ? B / 2 : B;
	if (blocks == 1) {
		if (blelloch)
			blelloch_block<<<1, threads>>>(in, out, NULL, n);
		else
			hs_block<<<1, threads>>>(in, out, NULL, n);
		return;
	}
	if (blelloch)
		blelloch_block<<<(unsigned)blocks, threads>>>(in, out, scratch, n);
	else
		hs_block<<<(unsigned)blocks, threads>>>(in, out, scratch, n);
	scan_level(blelloch, scratch, scratch + blocks, blocks, scratch + 2 * blocks);
	add_sums<<<(unsigned)(blocks - 1), B>>>(out, scratch + blocks, n, !blelloch);
}

/* scratch: at least 4 * n / B + 64 words. */
extern "C" void bench_scan(int blelloch, const unsigned *d_in, unsigned *d_out, size_t n, unsigned *scratch)
{
	scan_level(blelloch, d_in, d_out, n, scratch);
}
