/* Device intrinsics: declared by cuemu_device.h. */
#ifndef CUEMU_DEVICE_FUNCTIONS_H
#define CUEMU_DEVICE_FUNCTIONS_H
#include "cuda_runtime_api.h"
#endif
