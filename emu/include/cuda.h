/* The CPU emulator has no driver API; the runtime API is all there is. */
#pragma once
#include "cuda_runtime_api.h"
