/* The record of a traced launch: kept by metrics.c, written out by metrics_json.c. */
#ifndef CUEMU_METRICS_H
#define CUEMU_METRICS_H

#include <stddef.h>
#include <stdint.h>

#include "internal.h"

struct site_stat {
	uintptr_t site;		/* 0: an empty slot of the table */
	uint8_t kind, space;
	uint64_t requests, units;
	uint64_t word_requests;	/* requests in 4-byte terms: W/4 for W > 4 bytes a lane */
	uint64_t first_seq;
	uint32_t ex_bytes, ex_mask;	/* the first request, lane by lane */
	uintptr_t ex_addr[WARP];
};

struct site_warps {
	uintptr_t site;
	uint32_t warps;
	uint8_t space, kind;
};

struct interval {
	uint32_t warps_any, warps_shared_store;
	struct site_warps *sites;
	int n, cap;
};

struct race_stat {
	uint8_t kind, intra, space;
	uintptr_t first, second;
	uint64_t count;
};

struct uninit_stat {
	uintptr_t site;
	uint64_t count;
};

struct launch_rec {
	char name[128];
	dim3 grid, block;
	size_t smem;
	int traced_blocks;
	uint64_t combines;	/* work.c, over the traced blocks */
	struct site_stat *sites;	/* open addressing, cap a power of two */
	int n_sites, cap_sites;
	struct interval *ivals;
	int n_ivals, cap_ivals;
	struct interval cur;
	struct race_stat *races;
	int n_races, cap_races;
	struct uninit_stat *uninit;
	int n_uninit, cap_uninit;
	uint64_t seq;
	struct perf_rec *perf;	/* the performance model's figures (perf.c) */
	struct coverage *cov;	/* the call sites of traced and untraced blocks (coverage.c) */
};

/* The recorded launches, in launch order; *dropped: those past the limit. */
int metrics_recorded(struct launch_rec *const **launches, int *dropped);

/* Grows *arr (of *cap elements of size sz) to hold one more than n; 0 or -1. */
int metrics_grow(void **arr, int *cap, int n, size_t sz);

#endif
