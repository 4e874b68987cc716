/*
 * The CPU emulator's cuda_runtime.h: the runtime API (cuda_runtime_api.h).
 * In a student's .cu file the device side (threadIdx, __syncthreads, atomics,
 * shuffles, <<< >>>) comes from cuemu_device.h, which cuemu-cc force-includes.
 */
#ifndef CUEMU_CUDA_RUNTIME_H
#define CUEMU_CUDA_RUNTIME_H

#include "cuda_runtime_api.h"

#endif
