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
};

void bench_run_free(struct bench_run *b);

/* Event times are a part of the child's life: samples adding up to more than
 * it lived were tampered with. 1 when sum_ms cannot be believed. */
int timings_outlast_child(double sum_ms, const struct harness_report *rep);

/* Reads one MSG_TIMING of `runs` samples moving `bytes`: median GB/s of the
 * kernel and of the copy, the kernel's spread; adds the samples to *sum_ms.
 * Returns 0, or -1 when it is malformed. */
int timing_read(json_t *t, int runs, double bytes, double *gbps, double *copy_gbps, double *spread,
		double *sum_ms);

/* The launch of a launch log (a MSG_TIMING's "launches") with the highest
 * occupancy (0 to 1), described in desc ("stream_kernel: 132 blocks of 256
 * threads, 120000 B dynamic shared, 38 registers: 1 blocks/SM"). -1 when it
 * holds none. */
double launches_max_occupancy(json_t *launches, char *desc, size_t len);

/* Points for pct on a band: 0 below lower, full above upper, linear between. */
double band_points(const struct band *b, double pct, double max_points);

/* Times ctx->harness at the performance size (and the chart's sizes).
 * Returns 0, or -1 with why in msg (a crash, a CUDA error, implausible timings). */
int bench_harness(const struct run_context *ctx, const char *harness, struct bench_run *out,
		  char *msg, size_t len);

/*
 * The performance test. correct: every correctness test passed (else the
 * test is skipped: speed counts only for a correct kernel). reference_timing:
 * the solution already timed on this GPU model (a batch times it once), or
 * NULL; else reference_harness: the solution built for this GPU, timed now,
 * or NULL.
 */
void performance_run(const struct run_context *ctx, enum backend backend, int correct,
		     const struct bench_run *reference_timing, const char *reference_harness,
		     const struct device_info *dev, struct grade *g);

#endif
