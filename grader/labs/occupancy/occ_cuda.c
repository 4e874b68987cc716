/* lab 4's questions put to cuda_occupancy.h (see occ_cuda.h). */
#include <cuda_occupancy.h>

#include <string.h>

#include "../../../common/occupancy_table.h"
#include "occ_cuda.h"

int occ_cuda_header(const struct occ_device *d, const struct occ_kernel *k, struct occ_result *r)
{
	cudaOccDeviceProp prop;
	cudaOccFuncAttributes attr;
	cudaOccDeviceState state;
	cudaOccResult res;
	memset(&prop, 0, sizeof(prop));
	memset(&attr, 0, sizeof(attr));
	memset(&state, 0, sizeof(state));
	memset(&res, 0, sizeof(res));

	prop.computeMajor = d->major;
	prop.computeMinor = d->minor;
	prop.maxThreadsPerBlock = d->max_threads_per_block;
	prop.maxThreadsPerMultiprocessor = d->max_threads_per_sm;
	prop.regsPerBlock = d->regs_per_block;
	prop.regsPerMultiprocessor = d->regs_per_sm;
	prop.warpSize = d->warp_size;
	prop.sharedMemPerBlock = 48 * 1024;
	prop.sharedMemPerMultiprocessor = (size_t)d->shared_per_sm;
	prop.numSms = 1;
	prop.sharedMemPerBlockOptin = (size_t)d->shared_per_block_optin;
	prop.reservedSharedMemPerBlock = (size_t)d->shared_reserved_per_block;

	attr.maxThreadsPerBlock = d->max_threads_per_block;
	attr.numRegs = k->regs_per_thread;
	attr.sharedSizeBytes = 0;
	attr.partitionedGCConfig = PARTITIONED_GC_OFF;
	attr.shmemLimitConfig = FUNC_SHMEM_LIMIT_OPTIN;
	attr.maxDynamicSharedSizeBytes = (size_t)d->shared_per_block_optin;
	attr.numBlockBarriers = 0;

	/* Zero would mean "prefer L1"; the runtime's default is no preference. */
	state.cacheConfig = CACHE_PREFER_NONE;
	state.carveoutConfig = SHAREDMEM_CARVEOUT_DEFAULT;

	if (cudaOccMaxActiveBlocksPerMultiprocessor(&res, &prop, &attr, &state, k->threads_per_block,
						    (size_t)k->shared_per_block) != CUDA_OCC_SUCCESS)
		return -1;
	occ_result_set_blocks(d, k->threads_per_block, res.activeBlocksPerMultiprocessor, r);
	r->limits = 0;
	if (res.limitingFactors & OCC_LIMIT_WARPS)
		r->limits |= KIT_OCC_LIMIT_WARPS;
	if (res.limitingFactors & OCC_LIMIT_REGISTERS)
		r->limits |= KIT_OCC_LIMIT_REGISTERS;
	if (res.limitingFactors & OCC_LIMIT_SHARED_MEMORY)
		r->limits |= KIT_OCC_LIMIT_SHARED;
	if (res.limitingFactors & OCC_LIMIT_BLOCKS)
		r->limits |= KIT_OCC_LIMIT_BLOCKS;
	return 0;
}
