/*
 * Held-out model file, lab 4: a block per 256 elements, no grid-stride loop.
 * Part 2: one element a thread, one block per 256 elements (2^20 blocks at
 * 2^28): the scheduler refills the SMs as blocks finish. Part 1: the calculator.
 */
#include <cuda_runtime.h>
#include <limits.h>
#include <stddef.h>

#include "occupancy.h"

/* ----------------------------------------------------------------------------
 * Part 1: the occupancy calculator
 */

static long long round_up(long long x, long long unit)
{
	return unit > 0 ? (x + unit - 1) / unit * unit : x;
}

static long long min_ll(long long a, long long b)
{
	return a < b ? a : b;
}

extern "C" void occupancy(const struct occ_device *dev, const struct occ_kernel *k,
			  struct occ_result *r)
{
	const long long warp = dev->warp_size;
	const long long max_warps = warp > 0 ? dev->max_threads_per_sm / warp : 0;
	const long long threads = k->threads_per_block, regs = k->regs_per_thread;
	const long long shared = k->shared_per_block;
	long long warps, by_warps, by_regs, by_shared, by_blocks, blocks;

	r->blocks_per_sm = 0;
	r->warps_per_sm = 0;
	r->occupancy = 0.0;
	r->limits = 0;
	if (warp <= 0 || max_warps <= 0 || dev->sub_partitions <= 0 || threads <= 0) {
		r->limits = KIT_OCC_LIMIT_WARPS;	/* no block of 0 threads, no warps at all */
		return;
	}
	warps = (threads + warp - 1) / warp;

	/* Warp slots. A block larger than the device allows never fits. */
	by_warps = threads > dev->max_threads_per_block ? 0 : max_warps / warps;

	/* Registers: allocated per warp, in units, within one sub-partition. */
	{
		const long long per_warp = round_up(regs * warp, dev->reg_alloc_unit);
		const long long per_block = per_warp * warps;
		const long long assumed = per_warp * round_up(warps, dev->sub_partitions);

		if (regs < 0 || regs > dev->max_regs_per_thread ||
		    per_block > dev->regs_per_block || assumed > dev->regs_per_block)
			by_regs = 0;
		else if (per_warp == 0)
			by_regs = LLONG_MAX;	/* no registers: no register limit */
		else
			by_regs = (dev->regs_per_sm / dev->sub_partitions / per_warp) *
				  dev->sub_partitions / warps;
	}

	/* Shared memory: the driver's reserved bytes come with every block. */
	{
		const long long alloc = round_up(shared + dev->shared_reserved_per_block,
						 dev->shared_alloc_unit);

		if (shared < 0 || shared > dev->shared_per_block_optin ||
		    alloc > (long long)dev->shared_per_block_optin + dev->shared_reserved_per_block)
			by_shared = 0;
		else if (alloc <= 0)
			by_shared = LLONG_MAX;
		else if (alloc > dev->shared_per_sm)
			by_shared = 1;	/* the carveout grows to hold one block */
		else
			by_shared = dev->shared_per_sm / alloc;
	}

	by_blocks = dev->max_blocks_per_sm;

	blocks = min_ll(min_ll(by_warps, by_regs), min_ll(by_shared, by_blocks));
	if (blocks < 0)
		blocks = 0;
	r->blocks_per_sm = (int)blocks;
	r->warps_per_sm = (int)(blocks * warps);
	r->occupancy = (double)(blocks * warps) / (double)max_warps;
	r->limits = (by_warps == blocks ? KIT_OCC_LIMIT_WARPS : 0) |
		    (by_regs == blocks ? KIT_OCC_LIMIT_REGISTERS : 0) |
		    (by_shared == blocks ? KIT_OCC_LIMIT_SHARED : 0) |
		    (by_blocks == blocks ? KIT_OCC_LIMIT_BLOCKS : 0);
}


/* ---- Part 2 ---- */
#define BLOCK_SIZE 256

__global__ void stream_kernel(const unsigned int *__restrict__ in, unsigned int *__restrict__ out, size_t n)
{
	const size_t i = (size_t)blockIdx.x * BLOCK_SIZE + threadIdx.x;
	if (i < n)
		out[i] = 3u * in[i] + 1u;
}

extern "C" void stream_scale_shared(const unsigned int *d_in, unsigned int *d_out, size_t n,
				    size_t extra_shared)
{
	const size_t grid = (n + BLOCK_SIZE - 1) / BLOCK_SIZE;

	if (extra_shared > 48 * 1024)
		cudaFuncSetAttribute(stream_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
				     (int)extra_shared);
	stream_kernel<<<(unsigned int)grid, BLOCK_SIZE, extra_shared>>>(d_in, d_out, n);
}

extern "C" void stream_scale(const unsigned int *d_in, unsigned int *d_out, size_t n)
{
	stream_scale_shared(d_in, d_out, n, 0);
}
