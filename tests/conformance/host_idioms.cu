/*
 * Conformance fixture, lab 1 (inclusive scan). Idioms of course templates
 * and samples on the host side: a cudaCheck helper that reports on stderr
 * (gcc turns the literal's fprintf into fwrite), a namespace cuda, log2 and
 * frexp for the number of passes, launches written "k<< <g, b >> >(...)"
 * and inside a macro, a stream (kernels, cudaMemcpyAsync,
 * cudaStreamSynchronize), device printf, default and overloaded kernels,
 * cudaThreadSynchronize (before CUDA 13), and the block size from the occupancy API
 * (cudaOccupancyMaxPotentialBlockSize, cudaOccupancyMaxActiveBlocksPerMultiprocessor,
 * cudaFuncGetAttributes, cudaFuncSetCacheConfig).
 * Expected: passes on every size, on the emulator and on the GPU.
 */
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

void cudaCheck(cudaError_t e, const char *file, int line)
{
	if (e != cudaSuccess) {
		fprintf(stderr, "CUDA error\n");
		fprintf(stderr, "%s:%d: %s\n", file, line, cudaGetErrorString(e));
		fputs("giving up\n", stderr);
		exit(1);
	}
}
#define CHECK(call) cudaCheck((call), __FILE__, __LINE__)
#define LAUNCH(kernel, grid, block, stream, ...) kernel<<<(grid), (block), 0, (stream)>>>(__VA_ARGS__)

namespace cuda {
/* One Hillis-Steele pass over global memory: dst[i] = src[i] + src[i - off]. */
__global__ void step(const unsigned int *src, unsigned int *dst, size_t n, size_t off)
{
	size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
	if (i < n)
		dst[i] = i >= off ? src[i] + src[i - off] : src[i];
}

/* Overloads: a copy, and a fill of the first element with a default. */
__global__ void touch(unsigned int *dst, const unsigned int *src, size_t n)
{
	size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
	if (i < n)
		dst[i] = src[i];
}
__global__ void touch(unsigned int *dst, size_t n, int say = 0)
{
	if (say && threadIdx.x == 0 && blockIdx.x == 0)
		printf("scan of %d element%s\n", (int)n, n == 1 ? "" : "s");
	(void)dst;
}

/* ceil(log2(n)) passes, from frexp's exponent; log2 for a check. */
static int passes(size_t n)
{
	int e;
	double m = frexp((double)n, &e);
	int p = m == 0.5 ? e - 1 : e;
	if (n > 1 && (int)ceil(log2((double)n)) != p)
		fprintf(stderr, "log2 and frexp disagree\n");
	return n > 1 ? p : 0;
}

int block_size()
{
	int min_grid = 0, block = 0, resident = 0;
	cudaFuncAttributes attr;
	CHECK(cudaFuncGetAttributes(&attr, step));
	CHECK(cudaFuncSetCacheConfig(step, cudaFuncCachePreferL1));
	CHECK(cudaOccupancyMaxPotentialBlockSize(&min_grid, &block, step, 0, attr.maxThreadsPerBlock));
	CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&resident, step, block, 0));
	if (block < 32 || resident < 1)
		block = 256;
	int pow2 = 32;	/* the largest power of two the occupancy API allows */
	while (pow2 * 2 <= block)
		pow2 *= 2;
	return pow2;
}
}	/* namespace cuda */

extern "C" void scan_inclusive(const unsigned int *d_in, unsigned int *d_out, size_t n)
{
	cudaStream_t stream;
	unsigned int *tmp;
	int block = cuda::block_size();
	unsigned int grid = (unsigned int)((n + block - 1) / block);
	CHECK(cudaStreamCreate(&stream));
	CHECK(cudaMalloc(&tmp, n * sizeof(unsigned int)));
	cuda::touch<< <1, 32, 0, stream >> >(tmp, n, n == 1);
	LAUNCH(cuda::touch, grid, block, stream, d_out, d_in, n);
	unsigned int *src = d_out, *dst = tmp;
	for (int p = 0; p < cuda::passes(n); p++) {
		cuda::step<< <grid, block, 0, stream >> >(src, dst, n, (size_t)1 << p);
		unsigned int *t = src;
		src = dst;
		dst = t;
	}
	if (src != d_out)
		CHECK(cudaMemcpyAsync(d_out, src, n * sizeof(unsigned int), cudaMemcpyDeviceToDevice, stream));
	CHECK(cudaStreamSynchronize(stream));
#if CUDART_VERSION < 13000	/* CUDA 13 dropped the CUDA 3 name; older code still calls it */
	CHECK(cudaThreadSynchronize());
#else
	CHECK(cudaDeviceSynchronize());
#endif
	CHECK(cudaStreamDestroy(stream));
	CHECK(cudaFree(tmp));
}
