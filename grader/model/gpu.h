/*
 * A GPU model's parameters for the performance model, one INI file per
 * model under grader/model/gpus/ (docs/model.md says how each is measured).
 */
#ifndef GRADER_MODEL_GPU_H
#define GRADER_MODEL_GPU_H

#include <stddef.h>

struct gpu_model {
	char name[128];			/* as cudaGetDeviceProperties names it */
	/* [device] */
	int sms;
	int max_warps_per_sm, max_blocks_per_sm;
	double shared_per_sm, shared_reserved_per_block, shared_alloc_unit;
	double regs_per_sm, reg_alloc_unit, regs_per_thread;
	/* [memory] */
	double copy_gbps;		/* device-to-device cudaMemcpy, read + write counted */
	double stream_efficiency;	/* the best streaming kernel, as a fraction of copy */
	double read_weight;		/* a byte read costs this, a byte written 2 - this (a copy: 1 each) */
	double latency_ns;		/* a global load's round trip, as a warp waits for it */
	double issue_ns;		/* the gap between a warp's back-to-back load requests */
	double store_sectors_per_ns;	/* store sector writes, whole chip, at 32 sectors a request */
	double store_exponent;		/* a store request's cost grows as (sectors per request)^this */
	double load_lines_per_ns;	/* load line transactions, whole chip */
	/* Store requests the L2 takes per ns, whole chip, at 8, 16 and 32 sectors
	 * a request (data resident in the L2: the request path, not DRAM). */
	double store_requests_per_ns_8, store_requests_per_ns_16, store_requests_per_ns_32;
	/* Short runs: a request that touches only part of each of its 128-byte
	 * lines (rows of a tile narrower than a line) gives DRAM a run of work per
	 * line, more than one per 128 bytes moved. */
	double short_run_ns;		/* chip-wide DRAM time per run beyond one per 128 bytes */
	double short_run_latency_ns;	/* a run of requests split over several lines: its longer round trip */
	double short_run_barrier_ns;	/* and a barrier-closed run's, besides */
	/* [shared] */
	double shared_wavefronts_per_ns;	/* per SM */
	/* [sync] */
	double interval_ns;		/* a barrier interval's fixed cost on a block's path */
	double interval_ns_per_warp;	/* and its cost for each warp of the block */
	double barrier_latency_ns;	/* a run of loads a barrier closes: the block's slowest load */
	double slowest_load_ns_per_warp;	/* how much later a block's slowest load comes, per warp */
	/* [launch] */
	double launch_us;		/* one launch's overhead, back to back */
	double blocks_per_ns;		/* blocks the chip starts per ns */
	/* [combine] */
	double overlap;			/* p of the p-norm that joins throughput and latency */
};

/* Reads one GPU file. Returns 0, or -1 with err ("FILE:LINE: ..."). Every
 * key must be given once, in range. */
int gpu_model_load(const char *path, struct gpu_model *g, char *err, size_t errlen);

/* The file in dir whose name = matches name exactly; 0, or -1 with err
 * (which lists the models there). */
int gpu_model_find(const char *dir, const char *name, struct gpu_model *g, char *err, size_t errlen);

#endif
