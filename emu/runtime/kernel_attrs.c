/*
 * A kernel's attributes and the occupancy API, for the emulated device
 * (cudaGetDeviceProperties: 2048 threads, 32 blocks and 228 KiB of shared
 * memory per multiprocessor, one multiprocessor). The emulator knows no
 * register counts, so occupancy is limited by threads, blocks and shared
 * memory only; a program that sizes its grid from these gets a valid
 * configuration, as it would on a GPU.
 */
#include "internal.h"

#define SM_THREADS 2048
#define SM_BLOCKS 32
#define SM_SHARED DYN_SMEM_MAX
#define BLOCK_RESERVED_SHARED 1024	/* what the runtime keeps per block since sm_80 */

cudaError_t cudaFuncGetAttributes(struct cudaFuncAttributes *attr, const void *func)
{
	if (!attr)
		return rt_error(cudaErrorInvalidValue);
	if (!func)
		return rt_error(cudaErrorInvalidDeviceFunction);
	*attr = (struct cudaFuncAttributes){
		.maxThreadsPerBlock = MAX_THREADS,
		.ptxVersion = 80,
		.binaryVersion = 80,
		.maxDynamicSharedSizeBytes = (int)sched_smem_limit(),
		.preferredShmemCarveout = -1,
	};
	return cudaSuccess;
}

cudaError_t cudaFuncSetCacheConfig(const void *func, enum cudaFuncCache config)
{
	if (!func)
		return rt_error(cudaErrorInvalidDeviceFunction);
	return (unsigned)config <= cudaFuncCachePreferEqual ? cudaSuccess : rt_error(cudaErrorInvalidValue);
}

cudaError_t cudaFuncSetSharedMemConfig(const void *func, enum cudaSharedMemConfig config)
{
	if (!func)
		return rt_error(cudaErrorInvalidDeviceFunction);
	return (unsigned)config <= cudaSharedMemBankSizeEightByte ? cudaSuccess
								: rt_error(cudaErrorInvalidValue);
}

/* Resident blocks of block_size threads needing smem bytes of dynamic shared memory. */
static int blocks_per_sm(int block_size, size_t smem)
{
	if (block_size <= 0 || block_size > MAX_THREADS || smem > sched_smem_limit())
		return 0;
	int warps = (block_size + WARP - 1) / WARP;
	int n = SM_THREADS / (warps * WARP);
	if (n > SM_BLOCKS)
		n = SM_BLOCKS;
	size_t by_shared = SM_SHARED / (smem + BLOCK_RESERVED_SHARED);
	return by_shared < (size_t)n ? (int)by_shared : n;
}

cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(int *numBlocks, const void *func,
								    int blockSize, size_t dynamicSMemSize,
								    unsigned int flags)
{
	(void)flags;
	if (!numBlocks || blockSize <= 0)
		return rt_error(cudaErrorInvalidValue);
	if (!func)
		return rt_error(cudaErrorInvalidDeviceFunction);
	*numBlocks = blocks_per_sm(blockSize, dynamicSMemSize);
	return cudaSuccess;
}

cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int *numBlocks, const void *func, int blockSize,
							   size_t dynamicSMemSize)
{
	return cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(numBlocks, func, blockSize,
								       dynamicSMemSize, 0);
}

/* As the CUDA header's template does: from the largest block size down, the
 * first with the most resident threads. */
cudaError_t cuemu_occupancy_best_block(int *minGridSize, int *blockSize, size_t (*smem_of)(int, void *),
				       void *ctx, size_t dynamicSMemSize, int blockSizeLimit)
{
	if (!minGridSize || !blockSize || blockSizeLimit < 0)
		return rt_error(cudaErrorInvalidValue);
	int limit = blockSizeLimit > 0 && blockSizeLimit < MAX_THREADS ? blockSizeLimit : MAX_THREADS;
	int best = 0, best_blocks = 0, best_threads = 0;
	for (int b = (limit + WARP - 1) / WARP * WARP; b > 0; b -= WARP) {
		int size = b > limit ? limit : b;
		int n = blocks_per_sm(size, smem_of ? smem_of(size, ctx) : dynamicSMemSize);
		if (n * size > best_threads) {
			best = size;
			best_blocks = n;
			best_threads = n * size;
		}
	}
	*blockSize = best;
	*minGridSize = best_blocks;	/* times the multiprocessors: one */
	return cudaSuccess;
}
