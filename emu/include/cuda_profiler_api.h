/* cudaProfilerStart and cudaProfilerStop mark what a profiler records; the
 * emulator has no profiler (its metrics cover every launch), so they do
 * nothing and succeed. */
#pragma once
#include "cuda_runtime_api.h"
static inline cudaError_t cudaProfilerStart(void) { return cudaSuccess; }
static inline cudaError_t cudaProfilerStop(void) { return cudaSuccess; }
