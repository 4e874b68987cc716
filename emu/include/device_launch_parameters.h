/* threadIdx, blockIdx, blockDim, gridDim: declared by cuemu_device.h. */
#ifndef CUEMU_DEVICE_LAUNCH_PARAMETERS_H
#define CUEMU_DEVICE_LAUNCH_PARAMETERS_H
#include "cuda_runtime_api.h"
#endif
