/*
 * A test's input generated where the GPU reads it, in device memory: the
 * words the grader's own fill gives (rng_fill_words, lab_fill_input), bit
 * for bit. A gigabyte generated on the host and copied from pageable
 * memory cost about 0.25 s on an H100, in every child that needs one (the
 * correctness run, the timing, lab 4's sweep); a kernel writes it at the
 * GPU's memory speed.
 */
#ifndef GRADER_HARNESS_DEVICE_FILL_H
#define GRADER_HARNESS_DEVICE_FILL_H

#include <cuda_runtime_api.h>
#include <stddef.h>
#include <stdint.h>

#include "../../common/rng.h"

#ifdef __cplusplus
extern "C" {
#endif

/* d_dst[k] = word first + k of the seed's stream of kind, for k < count, in
 * device memory: what rng_fill_words(h_dst, first, count, kind, seed) writes
 * on the host. An input's chunk is refilled by first = the chunk's index
 * and d_dst = the input + first. Returns cudaSuccess or the first CUDA
 * error. Synchronous: the words are there when it returns, for a kernel on
 * any stream. On the GPU a kernel of the kit's own that the launch log does
 * not record (device_fill.cu); in the emulator, whose device memory the
 * host cannot write, the C function's words copied in (harness_main.c). */
cudaError_t kit_device_fill(uint32_t *d_dst, size_t first, size_t count, enum rng_kind kind,
			    uint64_t seed);

#ifdef __cplusplus
}
#endif

#endif
