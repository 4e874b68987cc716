/* The CPU emulator has no driver API; the runtime API is all there is. */
#ifndef CUEMU_CUDA_H
#define CUEMU_CUDA_H
#include "cuda_runtime_api.h"
#endif
