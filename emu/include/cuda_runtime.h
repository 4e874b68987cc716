/*
 * The CPU emulator's cuda_runtime.h: the runtime API (cuda_runtime_api.h).
 * In a student's .cu file the device side (threadIdx, __syncthreads, atomics,
 * shuffles, <<< >>>) comes from cuemu_device.h, which cuemu-cc force-includes.
 */
#pragma once

#include "cuda_runtime_api.h"
