/*
 * Which of nvcc's two passes a __host__ __device__ function is running:
 * where its body differs under __CUDA_ARCH__, the rewriter makes it choose
 * with this call (emu/rewrite/arch.c). Device code is whatever runs inside
 * a kernel's threads.
 */
#include "internal.h"

int cuemu_in_device_code(void)
{
	return rt.in_kernel;
}
