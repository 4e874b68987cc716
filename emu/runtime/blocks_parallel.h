/*
 * What a parallel launch (blocks_parallel.c) and its worker processes
 * (blocks_worker.c) share: the page they all map, and its layout.
 */
#ifndef CUEMU_BLOCKS_PARALLEL_H
#define CUEMU_BLOCKS_PARALLEL_H

#include <sys/types.h>

#include "internal.h"

#define PAR_MAX 64		/* workers at most, CUEMU_WORKERS included */
#define PAR_DEFAULT_MAX 8	/* without CUEMU_WORKERS: more cores gain little for the forks */
#define PAR_MIN_THREADS 32768	/* a smaller launch costs less than its forks */
#define TICK_US 20000		/* how often a worker looks at its CPU time for the watchdog */
#define NONE UINT64_MAX

/* A worker's cur: 0 idle, TAKING while it takes a block (any block
 * earlier than one it might be taking is then treated as running), else
 * 2 * (block + 1). */
#define TAKING 1u

struct par_fault {
	uint64_t block;		/* NONE: no fault */
	int fatal;		/* a stop: the process ends */
	cudaError_t error;
	uintptr_t bounds_site;	/* rt.fault_bounds_site of the fault */
	char kind[32], where[256], text[1024];
};

struct par_slot {
	uint64_t cur;
	pid_t pid;
	uint64_t lowest_block;	/* since lowest_ns of its CPU time, block lowest_block was the lowest */
	int64_t lowest_ns;
	struct par_fault first;	/* its first fault reported (it may not end the launch) */
	struct par_fault end;	/* the fault that ended its blocks (a kernel fault, or a stop) */
	int n_warn;
	struct warn_export warn[WARN_MAX];
};

struct par_page {
	uint64_t next;		/* the next block to take */
	uint64_t stop;		/* the lowest block that faulted, or NONE */
	uint64_t cpu_us;	/* the CPU time of blocks while they were the lowest running */
	int timed_out, timeout_worker;
	struct par_slot w[];
};

struct out_rec {
	uint64_t block;
	off_t lo, hi;
};


extern struct par_page *par_page;
extern int par_me;		/* in a worker: its slot */

static inline uint64_t grid_blocks(const struct launch *L)
{
	return (uint64_t)L->grid.x * L->grid.y * L->grid.z;
}

void par_lower_stop(uint64_t b);	/* a fault at block b: no later block starts */
void par_worker_main(struct launch *L, int out, int idx, int wake, pid_t parent)
	__attribute__((noreturn));

#endif
