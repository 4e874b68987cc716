/*
 * The kit's own kernel: bench_output_hash() of words in device memory
 * (device_hash.h), the wrapping 64-bit sum over i of rng_hash_term(i,
 * w[i]), the host's own function (common/rng.h). A sum modulo 2^64 is the
 * same in any order, so threads, warps and blocks may add their parts as
 * they finish: the result is the C function's, bit for bit, and the same
 * on every run.
 *
 * Compiled by nvcc into the GPU harness (the Makefile), and by the
 * emulator's compiler only for the kit's test of this kernel
 * (tests/gpu/device_hash_check.cu), where there is no launch log.
 */
#include <cuda_runtime.h>
#include <stddef.h>
#include <stdint.h>

#include "../../common/rng.h"
#include "device_hash.h"
#include "kit_kernel.h"

#define HASH_THREADS 256	/* a block: whole warps, for the shuffles below */
#define WARP 32

/* static: a kernel of the student's may have any name, this one's included. */
static __global__ void hash_words(const uint32_t *w, size_t n, unsigned long long *sum)
{
	__shared__ unsigned long long warp_sum[HASH_THREADS / WARP];
	unsigned long long h = 0;
	size_t stride = (size_t)gridDim.x * blockDim.x;
	for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
		h += rng_hash_term(i, w[i]);
	/* Every thread of the block gets here: the full mask is right. */
	for (int d = WARP / 2; d > 0; d /= 2)
		h += __shfl_down_sync(0xffffffffu, h, d);
	if (threadIdx.x % WARP == 0)
		warp_sum[threadIdx.x / WARP] = h;
	__syncthreads();
	if (threadIdx.x == 0) {
		unsigned long long s = 0;
		for (int k = 0; k < HASH_THREADS / WARP; k++)
			s += warp_sum[k];
		atomicAdd(sum, s);
	}
}

extern "C" cudaError_t kit_device_hash(const uint32_t *d_words, size_t n, uint64_t *hash)
{
	/* Where the blocks add up: allocated once, kept for the process. */
	static unsigned long long *d_sum;
	unsigned long long sum = 0;
	cudaError_t e = cudaSuccess;
	*hash = 0;
	if (n == 0)
		return cudaSuccess;	/* the empty sum; and a grid of no blocks is an error */
	if (!d_sum)
		e = cudaMalloc((void **)&d_sum, sizeof(*d_sum));
	if (e == cudaSuccess)
		e = cudaMemset(d_sum, 0, sizeof(*d_sum));
	if (e != cudaSuccess)
		return e;
	kit_kernel_unlogged(1);	/* kit_kernel.h: not the student's launch */
	hash_words<<<kit_kernel_blocks(n, HASH_THREADS), HASH_THREADS>>>(d_words, n, d_sum);
	kit_kernel_unlogged(0);
	e = cudaGetLastError();
	/* A copy on the default stream: it waits for the kernel. */
	if (e == cudaSuccess)
		e = cudaMemcpy(&sum, d_sum, sizeof(sum), cudaMemcpyDeviceToHost);
	if (e == cudaSuccess)
		*hash = sum;
	return e;
}
