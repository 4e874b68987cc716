/*
 * The kit's fill kernel (device_fill.h): word first + k of a seed's stream
 * into d_dst[k], with rng.h's rng_word itself, so that the GPU's words are
 * the host's, bit for bit (the float's steps are exact: rng_word_f32).
 *
 * Compiled by nvcc into the GPU harness (the Makefile), and by the
 * emulator's compiler only for the kit's test of this kernel
 * (tests/gpu/device_hash_check.cu), where there is no launch log.
 */
#include <cuda_runtime.h>
#include <stddef.h>
#include <stdint.h>

#include "../../common/rng.h"
#include "device_fill.h"
#include "kit_kernel.h"

#define FILL_THREADS 256

/* static: a kernel of the student's may have any name, this one's included.
 * Neighbouring threads write neighbouring words: every store coalesced. */
static __global__ void fill_words(uint32_t *dst, size_t first, size_t count, enum rng_kind kind,
				  uint64_t key)
{
	size_t stride = (size_t)gridDim.x * blockDim.x;
	for (size_t k = (size_t)blockIdx.x * blockDim.x + threadIdx.x; k < count; k += stride)
		dst[k] = rng_word(kind, key, first + k);
}

extern "C" cudaError_t kit_device_fill(uint32_t *d_dst, size_t first, size_t count, enum rng_kind kind,
				       uint64_t seed)
{
	if (count == 0)
		return cudaSuccess;	/* nothing to write; and a grid of no blocks is an error */
	kit_kernel_unlogged(1);	/* kit_kernel.h: not the student's launch */
	fill_words<<<kit_kernel_blocks(count, FILL_THREADS), FILL_THREADS>>>(d_dst, first, count, kind,
									       rng_key(seed));
	kit_kernel_unlogged(0);
	cudaError_t e = cudaGetLastError();
	/* Waited for here: the student's kernel that reads the words may run
	 * on a stream of its own, which does not wait for the default one. */
	if (e == cudaSuccess)
		e = cudaStreamSynchronize(0);
	return e;
}
