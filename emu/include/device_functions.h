/* Device intrinsics: declared by cuemu_device.h. */
#pragma once
#include "cuda_runtime_api.h"
