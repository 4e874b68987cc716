/*
 * Conformance fixture, lab 1 (inclusive scan). Idioms: the preprocessor
 * tests that real code makes of the compiler: __NVCC__, __CUDACC__, the
 * version macros and CUDART_VERSION choose the scan; a test for a macro of
 * the CPU emulator's own headers (which a file could use to be two
 * programs) finds none; __ldg, atomicAdd_block and __expf are no macros.
 * Expected: passes on every size, on the emulator and on the GPU.
 */
#include <cuda_runtime.h>

#define BLOCK 256

#if !defined(__NVCC__) || !defined(__CUDACC__) || !defined(__CUDACC_VER_MAJOR__) || \
	!defined(__CUDACC_VER_MINOR__) || !defined(__CUDACC_VER_BUILD__) || CUDART_VERSION < 11000 || \
	__CUDACC_VER_MAJOR__ < 11
#define WRONG_COMPILER 1
#endif
/* Names a file could test to tell the emulator apart: none is defined. */
#if defined(CUEMU) || defined(KIT_EMU) || defined(__CUEMU__) || defined(CUEMU_H) || \
	defined(CUEMU_DEVICE_H) || defined(CUEMU_CUDA_RUNTIME_API_H) || defined(CUEMU_REWRITE_PASS) || \
	defined(CUEMU_SITE_FN) || defined(CUEMU_PURE) || defined(CUEMU_FATAL_EXIT) || \
	defined(__ldg) || defined(atomicAdd_block) || defined(__expf) || defined(__STRICT_ANSI__)
#define WRONG_COMPILER 1
#endif

__global__ void block_scan(const unsigned int *in, unsigned int *out, unsigned int *sums, size_t n,
			   unsigned int *checks)
{
	__shared__ unsigned int buf[2][BLOCK];
	size_t i = blockIdx.x * (size_t)BLOCK + threadIdx.x;
	unsigned int t = threadIdx.x, src = 0;
	buf[0][t] = i < n ? __ldg(&in[i]) : 0;
	__syncthreads();
	for (unsigned int d = 1; d < BLOCK; d <<= 1) {
		buf[src ^ 1][t] = buf[src][t] + (t >= d ? buf[src][t - d] : 0);
		src ^= 1;
		__syncthreads();
	}
	if (i < n)
		out[i] = buf[src][t];
	if (t == BLOCK - 1)
		sums[blockIdx.x] = buf[src][t];
	if (t == 0 && __expf(0.0f) == 1.0f)
		atomicAdd_block(checks, 1u);
}

__global__ void add_offsets(unsigned int *out, const unsigned int *scanned_sums, size_t n)
{
	size_t i = blockIdx.x * (size_t)BLOCK + threadIdx.x;
	if (i < n && blockIdx.x > 0)
		out[i] += scanned_sums[blockIdx.x - 1];
}

/* What a file built by the wrong compiler gets: the first element off by one. */
__global__ void spoil(unsigned int *out)
{
	out[0] += 1;
}

static void scan_levels(const unsigned int *d_in, unsigned int *d_out, size_t n)
{
	size_t blocks = (n + BLOCK - 1) / BLOCK;
	unsigned int *sums, *checks, h_checks = 0;
	cudaMalloc(&sums, blocks * sizeof(unsigned int));
	cudaMalloc(&checks, sizeof(unsigned int));
	cudaMemset(checks, 0, sizeof(unsigned int));
	block_scan<<<(unsigned int)blocks, BLOCK>>>(d_in, d_out, sums, n, checks);
	cudaMemcpy(&h_checks, checks, sizeof h_checks, cudaMemcpyDeviceToHost);
	if (blocks > 1) {
		unsigned int *scanned;
		cudaMalloc(&scanned, blocks * sizeof(unsigned int));
		scan_levels(sums, scanned, blocks);
		add_offsets<<<(unsigned int)blocks, BLOCK>>>(d_out, scanned, n);
		cudaFree(scanned);
	}
#ifdef WRONG_COMPILER
	h_checks = 0;
#endif
	if (h_checks != blocks)
		spoil<<<1, 1>>>(d_out);
	cudaFree(checks);
	cudaFree(sums);
}

extern "C" void scan_inclusive(const unsigned int *d_in, unsigned int *d_out, size_t n)
{
	scan_levels(d_in, d_out, n);
}
