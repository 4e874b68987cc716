/*
 * Lab 4: occupancy and latency hiding.
 *
 *     void occupancy(const struct occ_device *dev, const struct occ_kernel *k,
 *                    struct occ_result *r);
 *     void stream_scale(const unsigned int *d_in, unsigned int *d_out, size_t n);
 *     void stream_scale_shared(const unsigned int *d_in, unsigned int *d_out,
 *                              size_t n, size_t extra_shared);
 *
 * The three are declared in common/occupancy.h (read it: its comments define
 * every field). Read handouts/lab4-occupancy.md first.
 *
 * As shipped, this file COMPILES AND RUNS, and fails on purpose:
 *   - Part 1, occupancy(), counts only warp slots. The grader compares it with
 *     the CUDA occupancy calculator on thousands of configurations for an A100
 *     (sm_80) and an H100 (sm_90); most of them fail, and each failure names
 *     the configuration (threads, registers, shared bytes) and the fields that
 *     differ. Finish the TODOs below.
 *   - Part 2, stream_scale(), is correct (out[i] = 3 * in[i] + 1) but runs at
 *     100% occupancy with one load per thread. The grader asks for AT MOST
 *     12.5% OCCUPANCY (on an H100: 8 warps of 64 per SM, e.g. one block of 256
 *     threads) AND bandwidth close to a device-to-device copy. As shipped it
 *     breaks the occupancy cap, so performance scores 0. Lower the occupancy
 *     with the knobs below and you will see the bandwidth collapse; then win it
 *     back with more independent loads per thread (the TODO in the kernel).
 *
 * How to see what you have
 *   - Registers per thread, as ptxas allocated them (what Part 1 calls
 *     regs_per_thread):
 *         nvcc -arch=sm_90 -I common -Xptxas -v \
 *              -c labs/lab4-occupancy/occupancy.cu -o /tmp/o.o
 *     ("Used 10 registers" for the shipped kernel). Use the -arch of your GPU
 *     (sm_80 for an A100).
 *   - The sweep: `make lab4 && ./grade lab4` times stream_scale_shared with more
 *     and more extra shared memory (1, 2, 3, ... blocks per SM), prints the
 *     table of occupancy against percent of copy bandwidth, and draws the chart
 *     (gnuplot). Find where the curve stops rising: that is the occupancy this
 *     kernel needs to hide DRAM latency. Then make it need less.
 */
#include <cuda_runtime.h>
#include <stddef.h>

#include "occupancy.h"

/* ----------------------------------------------------------------------------
 * Part 1: the occupancy calculator (runs on the CPU)
 *
 * The work distributor puts a block on an SM only when the SM has room for ALL
 * of it at once: its warps, its registers, its shared memory, and one of the
 * SM's block slots. A block's resources are held until its last warp ends.
 * So the resident blocks per SM are the SMALLEST of four limits, each of which
 * is "how many such blocks fit in what this SM has":
 *
 *   by warp slots      (done below)
 *   by registers       (TODO 1)
 *   by shared memory   (TODO 2)
 *   by block slots     (TODO 3)
 *
 * Each resource is handed out in UNITS, not by the byte or the register, and
 * the rounding is where careless calculators go wrong: a 33-register kernel
 * costs as much as a 40-register one. The rules, with worked examples, are in
 * the handout (section 3); every unit you need is a field of struct occ_device.
 *
 * Never divide by zero, and never crash: the grader also calls this with odd
 * inputs (0 or over 1024 threads, 0 registers, more shared memory than a
 * block may have). A block that cannot fit gives 0 blocks. Products such as
 * registers x threads can overflow an int for absurd inputs: compute them in
 * long long.
 */
extern "C" void occupancy(const struct occ_device *dev, const struct occ_kernel *k,
			  struct occ_result *r)
{
	const int max_warps = dev->max_threads_per_sm / dev->warp_size;	/* 64 */
	int warps, by_warps, blocks;

	r->blocks_per_sm = 0;
	r->warps_per_sm = 0;
	r->occupancy = 0.0;
	r->limits = 0;
	if (k->threads_per_block <= 0) {	/* no such block: nothing fits */
		r->limits = KIT_OCC_LIMIT_WARPS;
		return;
	}

	/* Warp slots. The SM schedules whole warps: a block of 100 threads takes
	 * 4 warp slots (the last warp has 4 live threads and 28 idle lanes). */
	warps = k->threads_per_block / dev->warp_size +
		(k->threads_per_block % dev->warp_size != 0);	/* rounded up */
	by_warps = k->threads_per_block > dev->max_threads_per_block ? 0 : max_warps / warps;

	/* TODO 1: registers. Registers are given to a warp, not a thread, in
	 * units of dev->reg_alloc_unit, and each of the dev->sub_partitions
	 * sub-partitions has its own quarter of the register file: a warp's
	 * registers all come from the quarter it runs on. Count how many whole
	 * warps fit in one quarter, then how many whole blocks fit in the SM.
	 * A block must also fit dev->regs_per_block (the handout says how the
	 * hardware checks that), and no thread may have more than
	 * dev->max_regs_per_thread. k->regs_per_thread == 0 means no register
	 * limit at all. */

	/* TODO 2: shared memory. Every block also costs
	 * dev->shared_reserved_per_block bytes that the driver keeps, and the
	 * total is handed out in units of dev->shared_alloc_unit bytes. A block
	 * asking for more than dev->shared_per_block_optin bytes cannot run at
	 * all. */

	/* TODO 3: the SM's block slots, dev->max_blocks_per_sm. */

	blocks = by_warps;	/* TODO: the smallest of the four limits */

	r->blocks_per_sm = blocks;
	r->warps_per_sm = blocks * warps;
	r->occupancy = (double)r->warps_per_sm / max_warps;

	/* TODO 4: the limiting factors. Set the bit of EVERY limit that equals
	 * the answer: ties are common (256 threads with 32 registers are limited
	 * by warps and registers alike). When a block cannot fit at all, that is
	 * every limit that is 0. */
	r->limits = KIT_OCC_LIMIT_WARPS;
}

/* ----------------------------------------------------------------------------
 * Part 2: the latency-hiding experiment (runs on the GPU)
 *
 * The knobs. Change them, rebuild, and grade; the sweep in ./grade lab4 turns
 * extra_shared for you, but stream_scale() (the call that is graded) uses
 * exactly what you set here.
 */

/* Threads per block: warps per block = BLOCK_SIZE / 32. */
#define BLOCK_SIZE 256

/* __launch_bounds__(BLOCK_SIZE, MIN_BLOCKS_PER_SM) promises ptxas that the
 * kernel runs in blocks of at most BLOCK_SIZE threads and asks it to make
 * MIN_BLOCKS_PER_SM such blocks fit on one SM. Raising it CAPS THE REGISTERS
 * per thread at 65536 / (MIN_BLOCKS_PER_SM x BLOCK_SIZE), rounded down to a
 * multiple of 8 (the allocation unit, 256 per warp). More blocks fit, but a
 * kernel that needs more registers than the cap spills to local memory, or,
 * as you will see once a thread holds many loaded values, gets its loads and
 * stores interleaved so that fewer loads are in flight.
 * 1 = no cap beyond the hardware's 255. */
#define MIN_BLOCKS_PER_SM 1

/* Dynamic shared memory per block, in bytes, for stream_scale(). The kernel
 * never touches it: it only takes room on the SM, so that fewer blocks fit.
 * It can only LOWER occupancy, which is exactly what this lab needs: use your
 * occupancy() to find how many bytes leave room for just one block of
 * BLOCK_SIZE threads. Beyond 48 KB a kernel must opt in with
 * cudaFuncSetAttribute(..., cudaFuncAttributeMaxDynamicSharedMemorySize, ...);
 * stream_scale_shared() below does that for you. */
#define EXTRA_SHARED 0

/* Independent loads per thread: the TODO in the kernel. */
#define ITEMS_PER_THREAD 1

/*
 * out[i] = 3 * in[i] + 1, one element per thread.
 *
 * Every warp loads 32 consecutive words (128 bytes: coalesced), waits for
 * them (the multiply is the first instruction that needs the load), computes,
 * stores and ends. While it waits, the better part of a microsecond, its
 * scheduler needs other warps with a load to issue: at 100% occupancy there
 * are 16 per scheduler. At 12.5% there are 2, and the memory system sits
 * mostly idle.
 *
 * TODO 5: more independent loads per thread. Give each thread
 * ITEMS_PER_THREAD elements and issue ALL their loads before the first use of
 * any of them (load into a small array, then compute and store in a second
 * loop; #pragma unroll both, so that the array lives in registers). Keep every
 * load instruction of a warp coalesced: item k of thread t should be element
 * base + k * BLOCK_SIZE + t, not base + t * ITEMS_PER_THREAD + k (the emulator
 * counts sectors per request, and the grader checks them). Then:
 *   - the grid: ceil(n / (BLOCK_SIZE * ITEMS_PER_THREAD)) blocks, each block a
 *     chunk; or better, a grid-stride loop over chunks on a grid of exactly the
 *     blocks that fit at once (SM count x resident blocks per SM: your Part 1
 *     can say how many), so that no SM waits for a finished block to be
 *     replaced;
 *   - the tail: n need not be a multiple of anything (1, 33, 2^20 + 7 are
 *     tested): full chunks without bounds checks, the last one with them.
 * How many loads are enough? Little's law (handout, section 5).
 */
__global__ void __launch_bounds__(BLOCK_SIZE, MIN_BLOCKS_PER_SM)
stream_kernel(const unsigned int *__restrict__ in, unsigned int *__restrict__ out, size_t n)
{
	size_t i = (size_t)blockIdx.x * BLOCK_SIZE + threadIdx.x;

	if (i < n)
		out[i] = 3u * in[i] + 1u;
}

/* The same kernel with extra_shared bytes of dynamic shared memory per block.
 * The grader calls this directly for its sweep; keep its launch the same as
 * the one stream_scale() times. */
extern "C" void stream_scale_shared(const unsigned int *d_in, unsigned int *d_out, size_t n,
				    size_t extra_shared)
{
	size_t grid = (n + BLOCK_SIZE - 1) / BLOCK_SIZE;

	if (extra_shared > 48 * 1024)	/* the opt-in for big dynamic shared memory */
		cudaFuncSetAttribute(stream_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
				     (int)extra_shared);
	stream_kernel<<<(unsigned int)grid, BLOCK_SIZE, extra_shared>>>(d_in, d_out, n);
}

extern "C" void stream_scale(const unsigned int *d_in, unsigned int *d_out, size_t n)
{
	stream_scale_shared(d_in, d_out, n, EXTRA_SHARED);
}
