/*
 * The performance model: the time of a lab's entry point on a named GPU,
 * predicted from the emulator's trace of its launches (docs/model.md).
 *
 * Pure C: it knows nothing of the emulator or the grader. Its input is one
 * model_launch per kernel launch, with the figures of the launch's traced
 * (sampled) blocks; it scales them to the whole grid, bounds each launch's
 * time by what limits it (DRAM bytes, L1/L2 line transactions of scattered
 * accesses, shared-memory wavefronts, the latency a block cannot hide), adds
 * the launch overhead, and compares the sum with the GPU's copy ceiling for
 * the bytes the lab must move.
 */
#ifndef GRADER_MODEL_MODEL_H
#define GRADER_MODEL_MODEL_H

#include <stddef.h>

#include "gpu.h"

/* One launch: its configuration and its traced blocks' figures, summed over
 * those blocks (sampled_blocks of them). */
struct model_launch {
	char kernel[64];
	double grid_blocks, block_threads;
	double shared_bytes;		/* per block: dynamic + static */
	double sampled_blocks;
	double load_requests, load_sectors, load_lines, load_block_sectors;
	double store_requests, store_sectors, store_lines, store_block_sectors;
	double store_bytes;		/* the bytes the store requests' lanes write */
	double shared_requests, shared_wavefronts;
	double load_runs;		/* runs of global loads a warp issues back to back */
	double intervals;		/* barrier intervals (barriers + 1 per block) */
	/* Global bytes the traced blocks accessed, and every block of the
	 * grid (0 where the trace does not say: then the sample stands for
	 * the grid as it is). */
	double traced_bytes, grid_bytes;
};

enum model_bound {
	BOUND_DRAM,		/* bytes moved, at the best streaming rate */
	BOUND_STORE_SECTORS,	/* scattered stores: an L2 write per sector touched */
	BOUND_LOAD_LINES,	/* scattered loads: one L1 transaction per line touched */
	BOUND_SHARED,		/* shared-memory wavefronts (bank conflicts) */
	BOUND_BLOCKS,		/* starting blocks: many tiny blocks */
	BOUND_LATENCY,		/* too few loads in flight, or a long chain of barriers */
	BOUND_LAUNCH,		/* launch overhead: many small launches */
	BOUND_COUNT
};

/* What one launch costs, by term (ns). */
struct model_terms {
	double t[BOUND_COUNT];
	double time_ns;			/* the launch's predicted time */
	double dram_bytes;
	double warps_per_sm;		/* resident warps on a busy SM */
	double loads_in_flight;		/* per warp: load requests per run */
	double store_sectors_per_request;
	double store_sector_use;	/* store bytes / (sectors x 32): 1 when every sector is whole */
	enum model_bound bound;		/* the largest term */
};

struct model_prediction {
	double time_ns;			/* the entry point: every launch */
	double copy_ns;			/* the copy ceiling for min_bytes */
	double percent_of_copy;
	double dram_bytes;		/* every launch's DRAM traffic */
	double min_bytes;
	int launches;
	int worst;			/* index of the launch that takes longest */
	struct model_terms worst_terms;
	enum model_bound bound;		/* of the whole: the term that weighs most, summed */
	double bound_ns[BOUND_COUNT];	/* each term summed over the launches */
};

/* Resident blocks of a launch per SM, by warps, block slots, shared memory
 * and registers (at the GPU's assumed registers per thread); at least 1. */
int model_blocks_per_sm(const struct gpu_model *g, const struct model_launch *l);

/* The cost of one launch. */
void model_launch_cost(const struct gpu_model *g, const struct model_launch *l, struct model_terms *out);

/* The whole entry point: n launches moving at least min_bytes (> 0).
 * Returns 0, or -1 when there is nothing to predict from (no launch). */
int model_predict(const struct gpu_model *g, const struct model_launch *l, int n, double min_bytes,
		  struct model_prediction *out);

const char *model_bound_name(enum model_bound b);	/* "dram", "store_lines", ... */

#endif
