/*
 * Held-out model file, lab 4: one word a thread an iteration at 50% occupancy.
 * Part 2: a grid-stride loop over chunks of 256 threads x 1 unsigned int each
 * (4 bytes a lane a load), 4 block(s) per SM through extra shared memory;
 * the tail (and misaligned pointers) one word a thread. Part 1: the calculator.
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
#define ITEMS      1
#define VEC        1
#define CHUNK      ((size_t)BLOCK_SIZE * ITEMS * VEC)

__global__ void stream_kernel(const unsigned int *__restrict__ in_w, unsigned int *__restrict__ out_w, size_t n)
{
	const int aligned = (((size_t)in_w | (size_t)out_w) & (VEC * 4 - 1)) == 0;
	const size_t full = aligned ? n / CHUNK : 0;
	const unsigned int *in = (const unsigned int *)in_w;
	unsigned int *out = (unsigned int *)out_w;

	for (size_t c = blockIdx.x; c < full; c += gridDim.x) {
		const unsigned int *src = in + c * (CHUNK / VEC) + threadIdx.x;
		unsigned int *dst = out + c * (CHUNK / VEC) + threadIdx.x;
		unsigned int v[ITEMS];

#pragma unroll
		for (int k = 0; k < ITEMS; k++)
			v[k] = src[k * BLOCK_SIZE];
#pragma unroll
		for (int k = 0; k < ITEMS; k++)
			dst[k * BLOCK_SIZE] = 3u * v[k] + 1u;
	}
	for (size_t i = full * CHUNK + (size_t)blockIdx.x * BLOCK_SIZE + threadIdx.x; i < n;
	     i += (size_t)gridDim.x * BLOCK_SIZE)
		out_w[i] = 3u * in_w[i] + 1u;
}

static int attribute(enum cudaDeviceAttr attr, int device)
{
	int value = 0;

	cudaDeviceGetAttribute(&value, attr, device);
	return value;
}

/* This GPU's limits: what the runtime reports, plus the architecture's
 * granularities (the same on sm_80 and sm_90). */
static void this_device(struct occ_device *d, int *sms)
{
	int dev = 0;

	cudaGetDevice(&dev);
	*sms = attribute(cudaDevAttrMultiProcessorCount, dev);
	d->name[0] = '\0';
	d->major = attribute(cudaDevAttrComputeCapabilityMajor, dev);
	d->minor = attribute(cudaDevAttrComputeCapabilityMinor, dev);
	d->warp_size = attribute(cudaDevAttrWarpSize, dev);
	d->max_threads_per_block = attribute(cudaDevAttrMaxThreadsPerBlock, dev);
	d->max_threads_per_sm = attribute(cudaDevAttrMaxThreadsPerMultiProcessor, dev);
	d->max_blocks_per_sm = attribute(cudaDevAttrMaxBlocksPerMultiprocessor, dev);
	d->regs_per_sm = attribute(cudaDevAttrMaxRegistersPerMultiprocessor, dev);
	d->regs_per_block = attribute(cudaDevAttrMaxRegistersPerBlock, dev);
	d->shared_per_sm = attribute(cudaDevAttrMaxSharedMemoryPerMultiprocessor, dev);
	d->shared_per_block_optin = attribute(cudaDevAttrMaxSharedMemoryPerBlockOptin, dev);
	d->shared_reserved_per_block = 1024;
	d->max_regs_per_thread = 255;
	d->reg_alloc_unit = 256;
	d->sub_partitions = 4;
	d->shared_alloc_unit = 128;
}

extern "C" void stream_scale_shared(const unsigned int *d_in, unsigned int *d_out, size_t n,
				    size_t extra_shared)
{
	struct occ_device dev;
	struct occ_kernel k;
	struct occ_result r;
	size_t chunks = (n + CHUNK - 1) / CHUNK, grid;
	int sms;

	this_device(&dev, &sms);
	k.threads_per_block = BLOCK_SIZE;
	k.regs_per_thread = 0;
	k.shared_per_block = extra_shared > INT_MAX ? INT_MAX : (int)extra_shared;
	occupancy(&dev, &k, &r);
	grid = (size_t)(sms > 0 ? sms : 1) * (size_t)(r.blocks_per_sm > 0 ? r.blocks_per_sm : 1);
	if (grid > chunks)
		grid = chunks;
	if (extra_shared > 48 * 1024)
		cudaFuncSetAttribute(stream_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
				     (int)extra_shared);
	stream_kernel<<<(unsigned int)grid, BLOCK_SIZE, extra_shared>>>(d_in, d_out, n);
}

extern "C" void stream_scale(const unsigned int *d_in, unsigned int *d_out, size_t n)
{
	int dev = 0, shared_per_sm;

	cudaGetDevice(&dev);
	shared_per_sm = attribute(cudaDevAttrMaxSharedMemoryPerMultiprocessor, dev);
	(void)shared_per_sm;
	stream_scale_shared(d_in, d_out, n, (size_t)shared_per_sm / 4 - 2048);
}
