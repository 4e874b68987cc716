/*
 * What the kit's own kernels (device_fill.cu, device_hash.cu) share: the
 * size of their grid, and their launches kept out of the launch log.
 *
 * The harness is linked with --wrap on the runtime's launch functions
 * (launch_log.h), so a kit kernel's launch passes through the launch log
 * like the student's: paused, the log lets it by unrecorded. Lab 4 grades
 * the occupancy of every kernel in the log, and a kit kernel's is not the
 * student's to answer for. Built by the emulator's compiler (CUEMU, the
 * kit's test of these kernels) there is no launch log.
 */
#ifndef GRADER_HARNESS_KIT_KERNEL_H
#define GRADER_HARNESS_KIT_KERNEL_H

#include <stddef.h>

#ifndef CUEMU
#include "launch_log.h"
#endif

/* Enough blocks to fill any GPU the kit has met (132 SMs x 8 blocks of 256
 * threads on an H100); each thread of a kit kernel strides over the rest. */
#define KIT_KERNEL_MAX_BLOCKS 2048

/* Blocks of `threads` for n words, at most KIT_KERNEL_MAX_BLOCKS; n > 0
 * (a grid of no blocks is an error). */
static inline unsigned int kit_kernel_blocks(size_t n, unsigned int threads)
{
	size_t blocks = (n + threads - 1) / threads;
	return (unsigned int)(blocks < KIT_KERNEL_MAX_BLOCKS ? blocks : KIT_KERNEL_MAX_BLOCKS);
}

/* on: the launches that follow are not recorded, until kit_kernel_unlogged(0). */
static inline void kit_kernel_unlogged(int on)
{
#ifndef CUEMU
	launch_log_pause(on);
#else
	(void)on;
#endif
}

#endif
