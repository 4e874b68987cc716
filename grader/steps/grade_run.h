/*
 * Grading one submission, start to finish: the kit's sequence
 * (build, integrity, correctness, performance, analysis) as a table of
 * steps (grade_run.c) that grade_submission walks in order; lab 4's
 * occupancy calculator and occupancy sweep are steps of their own.
 */
#ifndef GRADER_GRADE_RUN_H
#define GRADER_GRADE_RUN_H

#include "steps/device.h"
#include "steps/grade.h"
#include "steps/run_context.h"

struct bench_run;

struct grade_request {
	const struct lab *lab;
	const struct rubric *rubric;
	const char *submission;		/* the .cu file */
	enum backend backend;		/* as asked: auto, cuda or emu */
	uint64_t seed;
	uint64_t salt;			/* 0: none */
	const char *work_dir;		/* builds and runs happen here */
	int time_reference;		/* build the lab's solution and time it beside */
	/* How the children that run student code are isolated (isolation.h);
	 * NULL: not at all (--no-isolation). */
	const struct isolation_policy *isolation;
	const char *gpu;		/* the children's CUDA_VISIBLE_DEVICES; NULL: the grader's own */
	int analysis;			/* run the emulator's analysis (0 to skip) */

	struct gpu_share share;	/* on a GPU, the machine's lock of it (run_context.h); zero otherwise */
	int in_batch;		/* a batch's worker: nothing is built beside its student */
	const char *reference_harness;	/* the solution, already built for this GPU */
	const struct bench_run *reference_timing;	/* the solution, already timed on this GPU model */
	const char *occupancy_table;	/* lab 4: this GPU's occupancy API answers, already asked */
	/* NULL, or the expected hashes of seed's sizes, computed once for a batch */
	const struct seed_hashes *seed_hashes;
};

/* The name of step i of the table, or NULL past its end. */
const char *grade_step_name(int i);

/* Fills g. Never fails: what goes wrong is in g (build_failed, internal_error, tests). */
void grade_submission(const struct grade_request *req, const struct device_info *dev,
		      struct grade *g);

#endif
