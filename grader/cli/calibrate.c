/* Calibrating a GPU's band (see calibrate.h). */
#include "cli/calibrate.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "steps/build.h"
#include "sys/kit_paths.h"
#include "steps/performance.h"

/* Timing noise between runs on one GPU is a few percent; these keep a
 * fixture from sitting right on an edge of the band. */
#define ZERO_HEADROOM 1.15
#define FULL_HEADROOM 1.02

static double max_of(const double *x, int n)
{
	double m = 0;
	for (int i = 0; i < n; i++)
		m = x[i] > m ? x[i] : m;
	return m;
}

int calibrate_band(double reference_pct, const double *zero, int n_zero, const double *full,
		   int n_full, const double *partial, int n_partial, double margin,
		   struct band *out, char *why, size_t len)
{
	double upper = reference_pct / margin;
	for (int i = 0; i < n_full; i++)
		if (full[i] / FULL_HEADROOM < upper)
			upper = full[i] / FULL_HEADROOM;
	double lower = n_zero ? max_of(zero, n_zero) * ZERO_HEADROOM : upper / 4;
	if (lower >= upper) {
		snprintf(why, len, "the slow fixtures (%.1f%% of copy) are too close to the fast ones "
			 "(full points at %.1f%%) for a band to separate them", max_of(zero, n_zero), upper);
		return -1;
	}
	for (int i = 0; i < n_partial; i++)
		if (partial[i] <= lower || partial[i] >= upper) {
			snprintf(why, len, "a fixture meant for partial points runs at %.1f%% of copy, "
				 "outside the band %.1f%%..%.1f%%", partial[i], lower, upper);
			return -1;
		}
	out->lower_pct = lower;
	out->upper_pct = upper;
	return 0;
}

/* Builds and times one file at the graded size; returns its % of copy, or -1. */
static double time_file(const struct run_context *ctx, const struct device_info *dev,
			const char *rel, int index)
{
	char src[1024], dir[1100], log[8192], msg[1024];
	kit_path(src, sizeof(src), rel);
	snprintf(dir, sizeof(dir), "%s/%d", ctx->work_dir, index);
	struct build_result b;
	if (make_dirs(dir) < 0 ||
	    build_submission(ctx->lab, BACKEND_CUDA, src, dir, dev, NULL, ctx->rubric->build_timeout_s,
			     &b, log, sizeof(log)) != 0) {
		fprintf(stderr, "calibrate: %s did not build:\n%s\n", rel, log);
		return -1;
	}
	struct bench_run run;
	if (bench_harness(ctx, b.harness, 0, &run, msg, sizeof(msg)) < 0) {
		fprintf(stderr, "calibrate: %s: %s\n", rel, msg);
		return -1;
	}
	double pct = 100 * run.gbps[0] / run.copy_gbps[0];
	bench_run_free(&run);
	printf("  %-52s %8.0f GB/s  %5.1f%% of copy (%.0f GB/s)\n", rel, run.gbps[0], pct,
	       run.copy_gbps[0]);
	fflush(stdout);
	return pct;
}

/* Times a list of fixtures into pct[]; returns -1 if any failed. */
static int time_list(const struct run_context *ctx, const struct device_info *dev, char *const *files,
		     int n, double *pct, int *index)
{
	for (int i = 0; i < n; i++)
		if ((pct[i] = time_file(ctx, dev, files[i], (*index)++)) < 0)
			return -1;
	return 0;
}

int calibrate_run(const struct options *o, const struct lab *lab, const struct rubric *r,
		  const struct device_info *dev)
{
	if (!dev->present) {
		fprintf(stderr, "grade: --calibrate needs a GPU: %s\n", dev->why_absent);
		return 4;
	}
	/* Only the graded size matters here. */
	struct rubric one = *r;
	one.n_chart_shapes = 0;
	char work[1024], solution[512], rel_rubric[512];
	snprintf(work, sizeof(work), "%s/build/work/calibrate-%s-%d", kit_root(), lab->id, (int)getpid());
	snprintf(solution, sizeof(solution), "solutions/%s/%s", lab->dir, lab->file);
	snprintf(rel_rubric, sizeof(rel_rubric), "labs/%s/lab.ini", lab->dir);
	const char *rubric_path = o->rubric_path ? o->rubric_path : rel_rubric;
	make_dirs(work);
	/* The kit's own files, timed as the grader's user. */
	struct run_context ctx = { .lab = lab, .rubric = &one, .backend = BACKEND_CUDA, .work_dir = work };

	char shape[64];
	printf("Calibrating %s on %s at %s (median of %d runs each):\n", lab->id, dev->name,
	       shape_format(&r->perf_shape, shape, sizeof(shape)), r->runs);
	double zero[RUBRIC_MAX_FIXTURES], partial[RUBRIC_MAX_FIXTURES], full[RUBRIC_MAX_FIXTURES];
	int index = 0;
	char *sol[] = { solution };
	double ref;
	if (time_list(&ctx, dev, sol, 1, &ref, &index) < 0 ||
	    time_list(&ctx, dev, r->calib_zero, r->n_calib_zero, zero, &index) < 0 ||
	    time_list(&ctx, dev, r->calib_partial, r->n_calib_partial, partial, &index) < 0 ||
	    time_list(&ctx, dev, r->calib_full, r->n_calib_full, full, &index) < 0)
		return 4;

	struct gpu_band b;
	char why[512], err[512];
	memset(&b, 0, sizeof(b));
	snprintf(b.device, sizeof(b.device), "%s", dev->name);
	if (calibrate_band(ref, zero, r->n_calib_zero, full, r->n_calib_full, partial,
			   r->n_calib_partial, r->calib_margin, &b.band, why, sizeof(why)) < 0) {
		fprintf(stderr, "calibrate: no band written: %s\n", why);
		return 1;
	}
	char date[32];
	time_t now = time(NULL);
	strftime(date, sizeof(date), "%Y-%m-%d", gmtime(&now));
	snprintf(b.measured, sizeof(b.measured), "calibrated %s; reference %.1f%% of copy, slowest "
		 "allowed full %.1f%%, fastest zero %.1f%%", date, ref, b.band.upper_pct,
		 max_of(zero, r->n_calib_zero));
	if (rubric_write_gpu_band(rubric_path, &b, err, sizeof(err)) < 0) {
		fprintf(stderr, "calibrate: %s\n", err);
		return 4;
	}
	printf("Wrote [gpu \"%s\"] to %s: no points at or below %.1f%% of copy, full points from %.1f%%.\n",
	       dev->name, rubric_path, b.band.lower_pct, b.band.upper_pct);
	return 0;
}
