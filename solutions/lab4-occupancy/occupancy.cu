/*
 * Lab 4, reference solution: an exact occupancy calculator, and a stream
 * kernel built to reach the copy ceiling at 12.5% occupancy. It is also the
 * answer key: the skeleton's TODOs (labs/lab4-occupancy/occupancy.cu)
 * completed the way the handout teaches, with the skeleton's functions,
 * knobs and launch; ./grade lab4 --solution grades it, and lab 4's band is
 * calibrated on it.
 *
 *     void occupancy(const struct occ_device *dev, const struct occ_kernel *k,
 *                    struct occ_result *r);
 *     void stream_scale(const unsigned int *d_in, unsigned int *d_out, size_t n);
 *     void stream_scale_shared(const unsigned int *d_in, unsigned int *d_out,
 *                              size_t n, size_t extra_shared);
 *
 * (declared, with C linkage, in common/occupancy.h).
 *
 * Part 1: the calculator
 *   The same four limits, with the same granularities, as the CUDA occupancy
 *   calculator (cuda_occupancy.h) for a kernel with no static shared memory, no
 *   block barriers beyond __syncthreads, opted in to the device's largest
 *   dynamic shared memory, default carveout:
 *   - warps: a block takes ceil(threads / 32) warp slots;
 *   - registers: a warp takes regs x 32 rounded up to 256 registers; each of the
 *     4 sub-partitions holds regs_per_sm / 4 of them, in whole warps; a block
 *     must also pass the per-block check with its warps rounded up to a
 *     multiple of 4 (the hardware assumes a block spans all sub-partitions);
 *   - shared memory: shared + 1024 reserved bytes, rounded up to 128; a block
 *     that asks for more than the opt-in maximum does not fit at all;
 *   - the cap on resident blocks (32).
 *   Every limit equal to the smallest is reported: ties are common.
 *   All arithmetic is in long long, so no input overflows; nonsense inputs
 *   (0 or negative threads, negative registers or bytes) give 0 blocks.
 *
 * Part 2: the stream kernel
 *   - Little's law: bytes in flight = bandwidth x latency. An H100 moves about
 *     3 TB/s (half of it reads in a copy-like kernel) with a DRAM latency under
 *     load near 1 us: some 1.5 MB of reads must be in flight, about 12 KB per
 *     SM of 132. One 256-thread block per SM (8 warps of 64: 12.5% occupancy)
 *     gets there only if each thread has many loads in flight: 32 independent
 *     4-byte loads = 128 bytes a thread, 32 KB an SM, some 2.5x the need.
 *   - Each thread issues all 32 loads before it uses any of them, then
 *     computes and stores. Load k of a warp reads 32 consecutive words
 *     (element base + k * BLOCK_SIZE + lane): 128 bytes, 4 sectors, coalesced.
 *   - 32 values in flight cost registers: ptxas gives the kernel 48 on sm_90
 *     (nvcc -Xptxas -v). __launch_bounds__(256, 1) promises no more than one
 *     block per SM, so ptxas need not squeeze: asking for 8 blocks per SM caps
 *     the kernel at 32 registers, and ptxas then interleaves the stores with the
 *     loads, halving the loads in flight.
 *   - Low occupancy comes from dynamic shared memory the kernel never touches:
 *     more than half the SM's shared memory per block lets only one block fit.
 *     It is read from the device (cudaDevAttrMaxSharedMemoryPerMultiprocessor),
 *     so the same file runs at one block per SM on an A100 too.
 *   - A grid-stride loop over chunks of BLOCK_SIZE x 32 elements, on a grid of
 *     exactly the blocks that fit at once (SMs x resident blocks per SM, which
 *     Part 1 computes): every block lives for the whole call, its warps drift
 *     apart and keep loads in flight, and no SM idles while a finished block
 *     is replaced.
 *   - Any n: full chunks take the fast path with no bounds checks; the last,
 *     partial chunk is spread over the whole grid, one element per thread
 *     (checking each of 32 loads in the fast path's style would double the
 *     kernel's registers, for a few thousand elements).
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

/* ----------------------------------------------------------------------------
 * Part 2: the stream kernel
 */

#define BLOCK_SIZE        256	/* 8 warps */
#define MIN_BLOCKS_PER_SM 1	/* no register cap: 48 registers on sm_90 */
#define ITEMS_PER_THREAD  32	/* independent loads in flight per thread */
#define CHUNK             ((size_t)BLOCK_SIZE * ITEMS_PER_THREAD)

__global__ void __launch_bounds__(BLOCK_SIZE, MIN_BLOCKS_PER_SM)
stream_kernel(const unsigned int *__restrict__ in, unsigned int *__restrict__ out, size_t n)
{
	const size_t full = n / CHUNK;	/* chunks with no element past n */
	size_t c, i;
	int k;

	for (c = blockIdx.x; c < full; c += gridDim.x) {
		const unsigned int *src = in + c * CHUNK + threadIdx.x;
		unsigned int *dst = out + c * CHUNK + threadIdx.x;
		unsigned int v[ITEMS_PER_THREAD];

#pragma unroll
		for (k = 0; k < ITEMS_PER_THREAD; k++)	/* all loads first: in flight together */
			v[k] = src[k * BLOCK_SIZE];
#pragma unroll
		for (k = 0; k < ITEMS_PER_THREAD; k++)
			dst[k * BLOCK_SIZE] = 3u * v[k] + 1u;
	}

	/* The partial chunk, if any: fewer than CHUNK elements, spread over the
	 * whole grid (on a grid of 32 blocks or more, one element per thread). */
	for (i = full * CHUNK + (size_t)blockIdx.x * BLOCK_SIZE + threadIdx.x; i < n;
	     i += (size_t)gridDim.x * BLOCK_SIZE)
		out[i] = 3u * in[i] + 1u;
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
	/* Registers: 0 = not counted. 48 of them (sm_90) allow 5 blocks of 256,
	 * so they never limit the one block that stream_scale runs; if they limit
	 * a sweep point of high occupancy, the blocks beyond the slots wait for a
	 * slot: the same work, a slightly ragged finish. */
	k.threads_per_block = BLOCK_SIZE;
	k.regs_per_thread = 0;
	k.shared_per_block = extra_shared > INT_MAX ? INT_MAX : (int)extra_shared;
	occupancy(&dev, &k, &r);

	grid = (size_t)(sms > 0 ? sms : 1) * (size_t)(r.blocks_per_sm > 0 ? r.blocks_per_sm : 1);
	if (grid > chunks)
		grid = chunks;
	if (extra_shared > 48 * 1024)	/* beyond 48 KB a kernel must opt in */
		cudaFuncSetAttribute(stream_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
				     (int)extra_shared);
	stream_kernel<<<(unsigned int)grid, BLOCK_SIZE, extra_shared>>>(d_in, d_out, n);
}

extern "C" void stream_scale(const unsigned int *d_in, unsigned int *d_out, size_t n)
{
	int dev = 0, shared_per_sm;

	/* More than half of the SM's shared memory per block (with the 1024
	 * reserved bytes, at least): one block of 8 warps per SM, 12.5%. */
	cudaGetDevice(&dev);
	shared_per_sm = attribute(cudaDevAttrMaxSharedMemoryPerMultiprocessor, dev);
	stream_scale_shared(d_in, d_out, n, (size_t)shared_per_sm / 2);
}
