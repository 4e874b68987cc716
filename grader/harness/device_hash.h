/*
 * bench_output_hash() (common/bench_plan.h) of words in device memory,
 * without bringing them to the host: the harness's check that a call left
 * its input alone, and the hash of a timed run's output (bench.c). A
 * gigabyte copied to fresh host memory cost 0.3 s on an H100; its hash on
 * the GPU costs about a millisecond.
 */
#ifndef GRADER_HARNESS_DEVICE_HASH_H
#define GRADER_HARNESS_DEVICE_HASH_H

#include <cuda_runtime_api.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* *hash = bench_output_hash() of the n words at d_words, the same 64 bits
 * (0 for n = 0). Returns cudaSuccess, or the first CUDA error, with *hash 0.
 * Synchronous: the work on the default stream before it is finished first.
 * On the GPU a kernel of the kit's own that the launch log does not record
 * (device_hash.cu); in the emulator, whose device memory the host cannot
 * read, a copy hashed by the C function (harness_main.c). */
cudaError_t kit_device_hash(const uint32_t *d_words, size_t n, uint64_t *hash);

#ifdef __cplusplus
}
#endif

#endif
