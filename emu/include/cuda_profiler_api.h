/* cudaProfilerStart and cudaProfilerStop mark what a profiler records; the
 * emulator has no profiler (its metrics cover every launch), so they do
 * nothing and succeed. */
#ifndef CUEMU_CUDA_PROFILER_API_H
#define CUEMU_CUDA_PROFILER_API_H
#include "cuda_runtime_api.h"
static inline cudaError_t cudaProfilerStart(void) { return cudaSuccess; }
static inline cudaError_t cudaProfilerStop(void) { return cudaSuccess; }
#endif
