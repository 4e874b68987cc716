/*
 * The runtime's launch entry points, wrapped (see launch_log.h): linked only
 * into a harness that holds student code, with LAUNCH_LOG_WRAP_FLAGS, so that
 * each launch is logged on its way to the real function.
 */
#include <cuda_runtime_api.h>

#include "launch_log.h"

static int depth;	/* a runtime launch calling another is one launch */

#define WRAP_LAUNCH(name)                                                                           \
	cudaError_t __real_##name(const void *kernel, dim3 grid, dim3 block, void **args, size_t shared, \
				  cudaStream_t stream);                                             \
	cudaError_t __wrap_##name(const void *kernel, dim3 grid, dim3 block, void **args, size_t shared, \
				  cudaStream_t stream);                                             \
	cudaError_t __wrap_##name(const void *kernel, dim3 grid, dim3 block, void **args, size_t shared, \
				  cudaStream_t stream)                                              \
	{                                                                                           \
		if (depth == 0)                                                                     \
			launch_log_record(kernel, (const unsigned[3]){ grid.x, grid.y, grid.z },    \
					  (const unsigned[3]){ block.x, block.y, block.z }, shared); \
		depth++;                                                                            \
		cudaError_t e = __real_##name(kernel, grid, block, args, shared, stream);           \
		depth--;                                                                            \
		return e;                                                                           \
	}

WRAP_LAUNCH(cudaLaunchKernel)
WRAP_LAUNCH(cudaLaunchKernel_ptsz)

#if CUDART_VERSION >= 13000
WRAP_LAUNCH(__cudaLaunchKernel)
WRAP_LAUNCH(__cudaLaunchKernel_ptsz)

cudaError_t __real___cudaGetKernel(const void **handle, const void *fn);
cudaError_t __wrap___cudaGetKernel(const void **handle, const void *fn);
cudaError_t __wrap___cudaGetKernel(const void **handle, const void *fn)
{
	cudaError_t e = __real___cudaGetKernel(handle, fn);
	if (e == cudaSuccess && handle)
		launch_log_handle(*handle, fn);
	return e;
}
#endif
