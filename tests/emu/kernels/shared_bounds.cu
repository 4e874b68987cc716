/*
 * Kernels for test_shared_bounds.c: accesses past a __shared__ array (each
 * is a fault naming the array and the line), and the legal idioms that
 * must never be one. The markers (@name) let the tests find the lines.
 */
#include <cuda_runtime.h>
#include <string.h>

/* Blelloch's up-sweep into an array one word short: the last thread's
 * second element is one past its end. */
__global__ void short_by_one(int *out)
{
	__shared__ int before[64];
	__shared__ int temp[2 * 64 - 1];
	before[threadIdx.x] = 1;
	temp[threadIdx.x] = 1;
	temp[threadIdx.x + 64] = 2; /* @short */
	__syncthreads();
	out[threadIdx.x] = temp[threadIdx.x] + before[threadIdx.x];
}

extern "C" cudaError_t sb_short_by_one(void)
{
	int *d;
	cudaMalloc(&d, 64 * sizeof(int));
	short_by_one<<<1, 64>>>(d);
	return cudaDeviceSynchronize();
}

/* A [32][32] tile loaded one row down: row 32 is past the array. */
__global__ void tile_row_past(const float *in, float *out)
{
	__shared__ float tile[32][32];
	tile[threadIdx.y + 1][threadIdx.x] = in[threadIdx.y * 32 + threadIdx.x]; /* @tile */
	__syncthreads();
	out[threadIdx.y * 32 + threadIdx.x] = tile[threadIdx.x][threadIdx.y];
}

extern "C" cudaError_t sb_tile_row_past(void)
{
	float *d;
	cudaMalloc(&d, 1024 * sizeof(float));
	tile_row_past<<<1, dim3(32, 32)>>>(d, d);
	return cudaDeviceSynchronize();
}

/* A read one element before the array's start. */
__global__ void before_start(int *out)
{
	__shared__ int s[32];
	s[threadIdx.x] = (int)threadIdx.x;
	__syncthreads();
	out[threadIdx.x] = s[(int)threadIdx.x - 1]; /* @before */
}

extern "C" cudaError_t sb_before_start(void)
{
	int *d;
	cudaMalloc(&d, 32 * sizeof(int));
	before_start<<<1, 32>>>(d);
	return cudaDeviceSynchronize();
}

/* Only the last of many blocks writes past its array: with lockstep on for
 * the first four, the block that does it runs untraced. */
__global__ void last_block_past(int *out)
{
	__shared__ int s[32];
	unsigned i = threadIdx.x + (blockIdx.x == gridDim.x - 1 ? 1u : 0u);
	s[i] = 1; /* @last_block */
	__syncthreads();
	out[blockIdx.x * 32 + threadIdx.x] = s[threadIdx.x];
}

extern "C" cudaError_t sb_last_block_past(int blocks)
{
	int *d;
	cudaMalloc(&d, (size_t)blocks * 32 * sizeof(int));
	last_block_past<<<blocks, 32>>>(d);
	return cudaDeviceSynchronize();
}

/* A byte past a char array whose size is no multiple of 16. */
__global__ void odd_chars(char *out)
{
	__shared__ char c[5];
	c[threadIdx.x] = 'a'; /* @odd */
	__syncthreads();
	out[threadIdx.x] = c[threadIdx.x];
}

extern "C" cudaError_t sb_odd_chars(int threads)
{
	char *d;
	cudaMalloc(&d, 32);
	odd_chars<<<1, threads>>>(d);
	return cudaDeviceSynchronize();
}

/* One thread copies words ints into a 32-int array: a range checked whole
 * outside traced blocks. */
__global__ void copy_in(const int *in, int *out, int words)
{
	__shared__ int s[32];
	if (threadIdx.x == 0)
		memcpy(s, in, words * sizeof(int)); /* @copy */
	__syncthreads();
	out[threadIdx.x] = s[threadIdx.x];
}

extern "C" cudaError_t sb_copy_in(int words)
{
	int *d;
	cudaMalloc(&d, 64 * sizeof(int));
	copy_in<<<1, 32>>>(d, d + 32, words);
	return cudaDeviceSynchronize();
}

/* ---- legal idioms ---- */

/* A counter declared in a device function. */
__device__ int block_count(int v)
{
	__shared__ int count;
	if (threadIdx.x == 0)
		count = 0;
	__syncthreads();
	atomicAdd(&count, v);
	__syncthreads();
	return count;
}

/* Two kernels that both declare the dynamic buffer. */
__global__ void carve_dynamic(int *out, int n)
{
	extern __shared__ int dyn[];
	int *a = dyn, *b = dyn + n;	/* two arrays carved from one area */
	a[threadIdx.x] = (int)threadIdx.x;
	b[threadIdx.x] = 2 * (int)threadIdx.x;
	__syncthreads();
	out[threadIdx.x] = a[n - 1 - threadIdx.x] + b[threadIdx.x];
}

__global__ void also_dynamic(float *out)
{
	extern __shared__ float f[];
	f[threadIdx.x] = 1.0f;
	__syncthreads();
	out[threadIdx.x] = f[31 - threadIdx.x];
}

/* A padded tile written row by row through a flat pointer: past a row's end
 * is the next row, inside the array. Several arrays, of several types. */
__global__ void flat_tile(int *out)
{
	__shared__ float tile[32][33];
	__shared__ char tag[3];
	__shared__ double d[2];
	float *flat = &tile[0][0];
	for (int k = threadIdx.x; k < 32 * 33; k += 32)
		flat[k] = (float)k;
	if (threadIdx.x < 3)
		tag[threadIdx.x] = 'x';
	if (threadIdx.x < 2)
		d[threadIdx.x] = 0.5;
	__syncthreads();
	int sum = block_count(1);
	out[threadIdx.x] = (int)tile[threadIdx.x][32] + sum + (tag[threadIdx.x % 3] == 'x') +
			   (int)(2 * d[threadIdx.x % 2]);
}

extern "C" long sb_legal(void)
{
	int *d;
	float *f;
	int h[32];
	cudaMalloc(&d, 32 * sizeof(int));
	cudaMalloc(&f, 32 * sizeof(float));
	flat_tile<<<2, 32>>>(d);
	cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
	long bad = 0;
	for (int i = 0; i < 32; i++)
		bad += h[i] != i * 33 + 32 + 32 + 1 + 1;
	carve_dynamic<<<1, 32, 64 * sizeof(int)>>>(d, 32);
	also_dynamic<<<1, 32, 32 * sizeof(float)>>>(f);
	cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
	for (int i = 0; i < 32; i++)
		bad += h[i] != 31 - i + 2 * i;
	return cudaDeviceSynchronize() != cudaSuccess ? -1 : bad;
}

/* Two arrays touched by one kernel: the span of shared memory it reports. */
__global__ void two_arrays(int *out)
{
	__shared__ int a[100];
	__shared__ int b[28];
	a[threadIdx.x] = 1;
	b[threadIdx.x % 28] = 2;
	__syncthreads();
	out[threadIdx.x] = a[99 - threadIdx.x] + b[(threadIdx.x * 5) % 28];
}

extern "C" long sb_two_arrays(void)
{
	int *d;
	cudaMalloc(&d, 100 * sizeof(int));
	two_arrays<<<1, 100>>>(d);
	return cudaDeviceSynchronize() == cudaSuccess ? 0 : -1;
}
