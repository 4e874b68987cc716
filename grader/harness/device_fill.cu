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
#ifndef CUEMU
#include "launch_log.h"
#endif

#define FILL_THREADS 256
/* Enough blocks to fill any GPU the kit has met (132 SMs x 8 blocks of 256
 * threads on an H100); each thread strides over the rest of the words. */
#define FILL_MAX_BLOCKS 2048

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
	size_t blocks = (count + FILL_THREADS - 1) / FILL_THREADS;
	if (blocks > FILL_MAX_BLOCKS)
		blocks = FILL_MAX_BLOCKS;
	/*
	 * The harness is linked with --wrap on the runtime's launch functions
	 * (launch_log.h), so this launch passes through the launch log like
	 * the student's: paused, the log lets it by unrecorded. Lab 4 grades
	 * the occupancy of every kernel in the log, and this one's is not the
	 * student's to answer for.
	 */
#ifndef CUEMU
	launch_log_pause(1);
#endif
	fill_words<<<(unsigned int)blocks, FILL_THREADS>>>(d_dst, first, count, kind, rng_key(seed));
#ifndef CUEMU
	launch_log_pause(0);
#endif
	cudaError_t e = cudaGetLastError();
	/* Waited for here: the student's kernel that reads the words may run
	 * on a stream of its own, which does not wait for the default one. */
	if (e == cudaSuccess)
		e = cudaStreamSynchronize(0);
	return e;
}
