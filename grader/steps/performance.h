/*
 * Performance: effective bandwidth (the fewest bytes a correct kernel must
 * move, over its median time) as a percentage of a device-to-device copy of
 * the same bytes timed in the same process, scored on the rubric's band.
 */
#ifndef GRADER_PERFORMANCE_H
#define GRADER_PERFORMANCE_H

#include "steps/correctness.h"
#include "steps/device.h"

/* Bandwidth at each size of one harness, as measured. */
struct bench_run {
	int n;
	struct shape shapes[GRADE_MAX_BENCH];
	double gbps[GRADE_MAX_BENCH];
	double copy_gbps[GRADE_MAX_BENCH];
	double spread[GRADE_MAX_BENCH];	/* (q3 - q1) / median of the kernel's times */
	/* The kernels the call launched at the graded size (CUDA: the harness's
	 * launch log), or NULL; freed by bench_run_free. */
	json_t *launches;
	/* Lab 4's sweep, timed by the same child when asked (bench_harness):
	 * its points' MSG_TIMINGs, or NULL and why in sweep_error. */
	json_t *sweep;
	char sweep_error[512];
	struct failure failure;	/* why bench_harness returned -1 */
};

void bench_run_free(struct bench_run *b);

/* Points for pct on a band: 0 below lower, full above upper, linear between. */
double band_points(const struct band *b, double pct, double max_points);

/* Times harness at the performance size (and the chart's sizes), and with
 * sweep lab 4's sweep after them in the same child. Returns 0, or -1 with
 * why in msg (a crash, a CUDA error, implausible timings); a sweep that
 * fails after the sizes were timed costs the sweep alone (out->sweep_error). */
int bench_harness(const struct run_context *ctx, const char *harness, int sweep,
		  struct bench_run *out, char *msg, size_t len);

/* The timing of a submission: its shapes (into shapes) and lab 4's sweep
 * (sweep), as correctness_run may run it after the sizes. */
void bench_order_for(const struct rubric *r, int sweep, struct shape shapes[GRADE_MAX_BENCH],
		     struct bench_order *o);

/*
 * The performance test. correct: every correctness test passed (else the
 * test is skipped: speed counts only for a correct kernel). early: the
 * timing correctness_run made after the sizes, or NULL; where it cannot be
 * read, the submission is timed in a child of its own. reference_timing:
 * the solution already timed on this GPU model (a batch times it once), or
 * NULL; else reference_harness: the solution built for this GPU, timed now,
 * or NULL. sweep: NULL, or where lab 4's sweep, timed by the same child,
 * is handed back (its points, or NULL with why in g->sweep.error).
 * Returns 1 when the submission was timed, else 0.
 */
int performance_run(const struct run_context *ctx, enum backend backend, int correct,
		    const struct early_bench *early, const struct bench_run *reference_timing,
		    const char *reference_harness, const struct device_info *dev, json_t **sweep,
		    struct grade *g);

#endif
