/*
 * Grading one submission, start to finish: the sequence DESIGN.md fixes
 * (build, integrity, correctness, performance, analysis), in one function a
 * newcomer can read top to bottom.
 */
#ifndef GRADER_GRADE_RUN_H
#define GRADER_GRADE_RUN_H

#include "steps/device.h"
#include "steps/grade.h"

struct bench_run;

struct grade_request {
	const struct lab *lab;
	const struct rubric *rubric;
	const char *submission;		/* the .cu file */
	enum backend backend;		/* as asked: auto, cuda or emu */
	uint64_t seed;
	uint64_t salt;			/* 0: none */
	const char *work_dir;		/* builds and runs happen here */
	const char *reference;		/* the solution's .cu to time beside it, or NULL */
	int isolate;			/* bubblewrap where available */
	int analysis;			/* run the emulator's analysis (0 to skip) */

	/* Batch mode (zero otherwise). gpu_phase is called when a phase that
	 * runs on the GPU begins (begin=1) and ends: correctness (timed=0)
	 * may share the GPU, timing (timed=1) must have it alone. */
	void (*gpu_phase)(void *arg, int timed, int begin);
	void *gpu_phase_arg;
	const char *reference_harness;	/* the solution, already built for this GPU */
	const struct bench_run *reference_timing;	/* the solution, already timed on this GPU model */
	const char *occupancy_table;	/* lab 4: this GPU's occupancy API answers, already asked */
};

/* Resolves auto to cuda or emu. Returns 0, or -1 with why (cuda asked, none here). */
int backend_resolve(enum backend asked, const struct device_info *dev, enum backend *out,
		    char *why, size_t len);

/* Fills g. Never fails: what goes wrong is in g (build_failed, internal_error, tests). */
void grade_submission(const struct grade_request *req, const struct device_info *dev,
		      struct grade *g);

#endif
