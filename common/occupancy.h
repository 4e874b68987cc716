/*
 * Lab 4's interface: the occupancy calculator the student writes, and the
 * memory-bound kernel the grader times.
 *
 * The student's file includes this header (the build puts common/ on the
 * include path); the harness and the grader include it too, so the three
 * agree on every field. It is C, and CUDA C++ reads it unchanged.
 */
#ifndef KIT_OCCUPANCY_H
#define KIT_OCCUPANCY_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * A GPU's limits, as the work distributor sees them when it places a block
 * on an SM. The first group is in cudaDeviceProp; the second is not, and
 * comes from the architecture (the CUDA occupancy calculator's tables).
 */
struct occ_device {
	char name[64];			/* "sm_90 (H100 SXM)" */
	int major, minor;		/* compute capability */
	int warp_size;			/* 32 */
	int max_threads_per_block;	/* 1024 */
	int max_threads_per_sm;		/* 2048 on sm_80 and sm_90: 64 warps */
	int max_blocks_per_sm;		/* 32 on sm_80 and sm_90 */
	int regs_per_sm;		/* 65536 32-bit registers */
	int regs_per_block;		/* 65536: what one block may hold */
	int shared_per_sm;		/* bytes of shared memory one SM can give blocks */
	int shared_per_block_optin;	/* bytes one block may ask for, opted in */
	int shared_reserved_per_block;	/* bytes the driver keeps for each block (1024) */

	int max_regs_per_thread;	/* 255: ptxas never gives a thread more */
	int reg_alloc_unit;		/* 256: a warp's registers come in units of this many */
	int sub_partitions;		/* 4: each with its own scheduler and quarter of the registers */
	int shared_alloc_unit;		/* 128: a block's shared memory comes in units of this many bytes */
};

/* One kernel launch, as far as occupancy cares. */
struct occ_kernel {
	int threads_per_block;		/* 1 to 1024; need not be a multiple of 32 */
	int regs_per_thread;		/* as ptxas reports it (-Xptxas -v) */
	int shared_per_block;		/* bytes, static plus dynamic, without the reserved part */
};

/* Which resources stop one more block from fitting: every one whose own
 * limit equals the answer (ties are common, and all of them count). The
 * names carry the kit's prefix: the toolkit's cuda_occupancy.h, which any
 * lab file but lab 4's may include, names its own OCC_LIMIT_*. */
enum occ_limit {
	KIT_OCC_LIMIT_WARPS = 1,	/* warp slots: max_threads_per_sm / warp_size */
	KIT_OCC_LIMIT_REGISTERS = 2,	/* the register file */
	KIT_OCC_LIMIT_SHARED = 4,	/* shared memory */
	KIT_OCC_LIMIT_BLOCKS = 8,	/* max_blocks_per_sm */
};

struct occ_result {
	int blocks_per_sm;		/* resident blocks per SM; 0 if one block cannot fit */
	int warps_per_sm;		/* active warps: blocks_per_sm x warps per block */
	double occupancy;		/* warps_per_sm / max warps per SM, from 0 to 1 */
	unsigned limits;		/* enum occ_limit bits */
};

/* Part 1 (the student's): fill r for kernel k on device dev. Runs on the CPU. */
void occupancy(const struct occ_device *dev, const struct occ_kernel *k, struct occ_result *r);

/*
 * Part 2 (the student's): out[i] = 3 * in[i] + 1 (mod 2^32) for i < n.
 * stream_scale is the configuration the student chose and the grader times;
 * stream_scale_shared is the same kernel with extra_shared bytes of dynamic
 * shared memory per block, which only lowers occupancy: the grader sweeps it
 * to draw bandwidth against occupancy.
 */
void stream_scale(const unsigned int *d_in, unsigned int *d_out, size_t n);
void stream_scale_shared(const unsigned int *d_in, unsigned int *d_out, size_t n,
			 size_t extra_shared);

#ifdef __cplusplus
}
#endif

#endif
