/* Performance tests (see performance.h). */
#include "steps/performance.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_plan.h"
#include "steps/bench_check.h"
#include "steps/timing.h"

double band_points(const struct band *b, double pct, double max_points)
{
	if (pct <= b->lower_pct)
		return 0;
	if (pct >= b->upper_pct)
		return max_points;
	return max_points * (pct - b->lower_pct) / (b->upper_pct - b->lower_pct);
}

/* The sizes timed: the chart's, then the graded one if the chart lacks it. */
static int bench_shapes(const struct rubric *r, struct shape *out)
{
	int n = 0, has_perf = 0;
	for (int i = 0; i < r->n_chart_shapes && n < GRADE_MAX_BENCH - 1; i++) {
		out[n++] = r->chart_shapes[i];
		has_perf |= shape_equal(&r->chart_shapes[i], &r->perf_shape);
	}
	if (!has_perf)
		out[n++] = r->perf_shape;
	return n;
}

static int perf_index(const struct bench_run *b, const struct shape *s)
{
	for (int i = 0; i < b->n; i++)
		if (shape_equal(&b->shapes[i], s))
			return i;
	return b->n - 1;
}

void bench_run_free(struct bench_run *b)
{
	json_decref(b->launches);
	json_decref(b->sweep);
	b->launches = b->sweep = NULL;
}

/* The sweep's points: the timings after the n sizes'. Adds their times to
 * *sum_ms, for the check that no child reports more time than it lived. */
static void take_sweep(const struct run_context *ctx, const struct harness_report *rep, int n,
		       struct bench_run *out, double *sum_ms)
{
	const struct rubric *r = ctx->rubric;
	double bytes = ctx->lab->min_bytes(&r->perf_shape), gbps, copy, spread;
	if (!rep->ended || json_array_size(rep->timings) == (size_t)n) {
		harness_explain_abort(rep, "stream_scale_shared", "the occupancy sweep", out->sweep_error,
				      sizeof(out->sweep_error));
		return;
	}
	out->sweep = json_array();
	for (size_t i = (size_t)n; i < json_array_size(rep->timings); i++) {
		json_t *t = json_array_get(rep->timings, i);
		if (timing_read(t, r->sweep_runs, bytes, &gbps, &copy, &spread, sum_ms) < 0) {
			snprintf(out->sweep_error, sizeof(out->sweep_error),
				 "the harness's report of a point of the sweep is malformed");
			json_decref(out->sweep);
			out->sweep = NULL;
			return;
		}
		json_array_append(out->sweep, t);
	}
}

void bench_order_for(const struct rubric *r, int sweep, struct shape shapes[GRADE_MAX_BENCH],
		     struct bench_order *o)
{
	*o = (struct bench_order){ shapes, bench_shapes(r, shapes), sweep };
}

/* A timing's report (a child's own, or the part of a correctness run's
 * after its sizes) into out, whose shapes are set. Returns 0, or -1 with
 * why in msg. */
static int bench_read(const struct run_context *ctx, const struct harness_report *rep, int sweep,
		      struct bench_run *out, char *msg, size_t len)
{
	const struct rubric *r = ctx->rubric;
	char texts[GRADE_MAX_BENCH][64];
	for (int i = 0; i < out->n; i++)
		shape_format(&out->shapes[i], texts[i], sizeof(texts[i]));
	size_t got = json_array_size(rep->timings);
	/* The sizes' timings whole; what the sweep after them did is its own. */
	if (rep->corrupt || got < (size_t)out->n || (!sweep && (!rep->ended || got != (size_t)out->n))) {
		harness_explain_abort(rep, ctx->lab->entry, "timing", msg, len);
		harness_abort_failure(rep, &out->failure);
		return -1;
	}
	double sum_ms = 0;
	for (int i = 0; i < out->n; i++) {
		json_t *t = json_array_get(rep->timings, (size_t)i);
		const char *shape = json_string_value(json_object_get(t, "shape"));
		double bytes = ctx->lab->min_bytes(&out->shapes[i]);
		if (!shape || strcmp(shape, texts[i]) != 0 ||
		    timing_read(t, r->runs, bytes, &out->gbps[i], &out->copy_gbps[i], &out->spread[i],
				&sum_ms) < 0) {
			snprintf(msg, len, "timing: the harness's report for %s is malformed", texts[i]);
			out->failure.kind = FAILURE_OTHER;
			return -1;
		}
		struct bench_checker checker;
		if (bench_checker_open(&checker, ctx->lab, &out->shapes[i], msg, len) < 0) {
			out->failure.kind = FAILURE_GRADER;
			return -1;
		}
		int checked = bench_check_outputs(&checker, ctx->seed, t, r->runs, BENCH_CHECKED_RUNS, msg, len);
		bench_checker_close(&checker);
		if (checked < 0) {
			out->failure.kind = checked == BENCH_NOT_BELIEVED ? FAILURE_TIMINGS_NOT_BELIEVED
									  : FAILURE_WRONG_OUTPUT;
			return -1;
		}
	}
	if (sweep)
		take_sweep(ctx, rep, out->n, out, &sum_ms);
	json_t *graded = json_object_get(json_array_get(rep->timings, (size_t)perf_index(out, &r->perf_shape)),
					 "launches");
	out->launches = json_is_array(graded) ? json_deep_copy(graded) : NULL;
	if (timings_outlast_child(sum_ms, rep)) {
		snprintf(msg, len, "timing: the reported times add up to %.0f ms, but the process lived "
			 "only %.0f ms: the timings were tampered with and are not believed", sum_ms,
			 rep->child.wall_s * 1e3);
		out->failure.kind = FAILURE_TIMINGS_NOT_BELIEVED;
		return -1;
	}
	return 0;
}

/* out empty, with the shapes the rubric times; returns the order that times them. */
static struct bench_order bench_prepare(const struct rubric *r, int sweep, struct bench_run *out)
{
	struct bench_order order;
	memset(out, 0, sizeof(*out));
	bench_order_for(r, sweep, out->shapes, &order);
	out->n = order.n;
	return order;
}

int bench_harness(const struct run_context *ctx, const char *harness, int sweep,
		  struct bench_run *out, char *msg, size_t len)
{
	char err[256];
	struct bench_order order = bench_prepare(ctx->rubric, sweep, out);
	struct harness_report rep;
	if (harness_bench(ctx, harness, &order, &rep, err, sizeof(err)) < 0) {
		snprintf(msg, len, "the grader could not start the harness: %s", err);
		out->failure.kind = FAILURE_NOT_STARTED;
		return -1;
	}
	int rc = bench_read(ctx, &rep, sweep, out, msg, len);
	harness_report_free(&rep);
	return rc;
}

/* The submission's timing: the one its correctness run made after its
 * sizes (early), where that one can be read; else, as before there was
 * one, in a child of its own. */
static int bench_student(const struct run_context *ctx, const struct early_bench *early, int sweep,
			 struct bench_run *out, char *msg, size_t len, struct grade *g)
{
	if (early && early->have) {
		bench_prepare(ctx->rubric, sweep, out);
		if (bench_read(ctx, &early->part, sweep, out, msg, len) == 0)
			return 0;
		bench_run_free(out);
	}
	g->timing_processes++;
	return bench_harness(ctx, ctx->harness, sweep, out, msg, len);
}

/* Chooses the band: this GPU's calibrated one, else relative to the
 * reference solution timed now, else the default. Returns the percentage
 * to score; *relative says whether it is a percentage of the reference. */
static double choose_band(const struct rubric *r, const char *device, double pct_of_copy,
			  double ref_gbps, double gbps, const char *ref_failure, struct band *band,
			  int *relative, char *source, size_t len)
{
	const struct gpu_band *gb = rubric_gpu_band(r, device);
	*relative = !gb && ref_gbps > 0;
	if (gb) {
		*band = gb->band;
		snprintf(source, len, "band for %.100s from the rubric (%.120s)", device,
			 gb->measured[0] ? gb->measured : "calibrated");
		return pct_of_copy;
	}
	if (ref_gbps > 0) {
		*band = r->reference_band;
		snprintf(source, len, "the rubric has no band for %s: scored as a percentage of the "
			 "reference solution, timed in this run (%.0f GB/s)", device, ref_gbps);
		return 100.0 * gbps / ref_gbps;
	}
	*band = r->default_band;
	snprintf(source, len, "the rubric has no band for %s and no reference solution was timed%s%s%s: "
		 "default band", device, *ref_failure ? " (" : "", ref_failure, *ref_failure ? ")" : "");
	return pct_of_copy;
}

static void record(struct grade *g, const struct bench_run *st, const struct bench_run *ref)
{
	g->n_bench = st->n;
	for (int i = 0; i < st->n; i++) {
		struct bench_point *p = &g->bench[i];
		p->shape = st->shapes[i];
		p->bytes = g->lab->min_bytes(&st->shapes[i]);
		p->student_gbps = st->gbps[i];
		p->copy_gbps = st->copy_gbps[i];
		p->reference_gbps = ref ? ref->gbps[i] : -1;
	}
}

static void describe(struct test_result *t, const struct lab *lab, const char *shape, double gbps,
		     double copy, double pct, double scored, int relative, const struct band *b,
		     double spread)
{
	char head[512], tail[512] = "";
	snprintf(head, sizeof(head), "%s: %.0f GB/s = %.1f%% of this GPU's copy bandwidth (%.0f GB/s); "
		 "points from %.0f%% to %.0f%% of %s (median of the runs, spread %.1f%%).", shape, gbps,
		 pct, copy, b->lower_pct, b->upper_pct, relative ? "the reference's bandwidth" : "copy",
		 spread * 100);
	if (relative)
		snprintf(head + strlen(head), sizeof(head) - strlen(head), " You reach %.1f%% of the "
			 "reference.", scored);
	if (scored <= b->lower_pct)
		snprintf(tail, sizeof(tail), " No points: %.1fx more speed is needed for any. %s",
			 b->lower_pct / (scored > 0 ? scored : 1e-9), lab->slow_hint);
	else if (scored < b->upper_pct)
		snprintf(tail, sizeof(tail), " Full points need %.2fx this speed.", b->upper_pct / scored);
	snprintf(t->message, sizeof(t->message), "%s%s", head, tail);
}

/* Lab 4: every launch at or below the rubric's occupancy, or no points. */
static int occupancy_capped(const struct rubric *r, double occupancy, const char *launch, struct test_result *t)
{
	if (r->max_occupancy_pct < 0)
		return 0;
	if (occupancy < 0) {
		test_fail(t, "no kernel launch was seen: this lab measures the occupancy of the kernels "
			  "your stream_scale() launches, so launch them with <<<grid, block, shared>>>");
		return 1;
	}
	if (100 * occupancy <= r->max_occupancy_pct + 1e-9)
		return 0;
	test_fail(t, "no points: your kernel ran at %.1f%% occupancy (%s), and this part asks for at "
		  "most %.1f%%. Fewer resident warps per SM (more shared memory per block, fewer "
		  "threads, more registers) and more independent loads per thread.",
		  100 * occupancy, launch, r->max_occupancy_pct);
	return 1;
}

static void score(const struct run_context *ctx, const struct bench_run *st, const struct bench_run *ref,
		  const struct device_info *dev, struct test_result *t, struct grade *g)
{
	const struct rubric *r = ctx->rubric;
	char shape[64];
	shape_format(&r->perf_shape, shape, sizeof(shape));
	int i = perf_index(st, &r->perf_shape);
	double pct = 100.0 * st->gbps[i] / st->copy_gbps[i];
	char launch[224];
	double occupancy = launches_max_occupancy(st->launches, launch, sizeof(launch));
	struct perf_figures *f = &g->perf;
	if (occupancy >= 0) {
		f->occupancy_pct = 100 * occupancy;
		snprintf(f->launch, sizeof(f->launch), "%s", launch);
	}
	json_decref(f->launches);
	f->launches = json_incref(st->launches);
	if (timing_above_ceiling(st->gbps[i], st->copy_gbps[i], dev->peak_gbps)) {
		test_fail_as(t, FAILURE_TIMINGS_NOT_BELIEVED, "%s: %.0f GB/s is %.1f%% of a device-to-device "
			     "copy of the same bytes (%.0f GB/s), more than this GPU's memory delivers "
			     "(%.0f GB/s): no correct kernel moves the bytes it must that fast, so this "
			     "timing is not believed and earns no points", shape, st->gbps[i], pct,
			     st->copy_gbps[i], timing_ceiling(st->copy_gbps[i], dev->peak_gbps));
		return;
	}
	f->measured = 1;
	f->gbps = st->gbps[i];
	f->copy_gbps = st->copy_gbps[i];
	f->percent_of_copy = pct;
	f->timing_spread = st->spread[i];
	f->runs = r->runs;
	f->bytes = g->lab->min_bytes(&r->perf_shape);
	f->peak_gbps = dev->peak_gbps;
	double ref_gbps = ref ? ref->gbps[perf_index(ref, &r->perf_shape)] : 0;
	if (ref) {
		f->reference_gbps = ref_gbps;
		f->percent_of_reference = 100 * st->gbps[i] / ref_gbps;
	}
	if (occupancy_capped(r, occupancy, launch, t))
		return;
	struct band band;
	int relative;
	double scored = choose_band(r, dev->name, pct, ref_gbps, st->gbps[i], g->reference_failure, &band,
				    &relative, g->band_source, sizeof(g->band_source));
	t->points = band_points(&band, scored, r->performance_points);
	/* Partial points are points earned, but the check is passed only at full marks. */
	t->status = t->points >= r->performance_points - 1e-9 ? TEST_PASSED : TEST_FAILED;
	t->failure.kind = t->status == TEST_FAILED ? FAILURE_SLOW : FAILURE_NONE;
	describe(t, g->lab, shape, st->gbps[i], st->copy_gbps[i], pct, scored, relative, &band,
		 st->spread[i]);
}

/* The emulator's calls of the file again: at the smallest of the rubric's
 * emulated sizes with at least this many elements, a moment's work (at its
 * last size where none is that large). */
#define CALLS_AGAIN_ELEMENTS 1024

static struct shape calls_again_shape(const struct rubric *r)
{
	struct shape best = r->emu_shapes[r->n_emu_shapes - 1];
	for (int i = 0; i < r->n_emu_shapes; i++) {
		size_t e = shape_elements(&r->emu_shapes[i]);
		if (e >= CALLS_AGAIN_ELEMENTS && e < shape_elements(&best))
			best = r->emu_shapes[i];
	}
	return best;
}

/*
 * The emulator's stand-in for a GPU's timed runs, which call the entry
 * point many times in one process and check some of the calls: the same
 * timing verb, at a small size, its report read and checked the same way.
 * Without it a file that fails only after more calls in one process than
 * the correctness sizes make, or whose process ends there in a way the
 * correctness step does not hold against it (correctness.c's
 * first_call_only), keeps its predicted speed's points in the emulator and
 * loses them on a GPU. Returns 0, or -1 with why in msg.
 */
static int emulated_calls_again(const struct run_context *ctx, struct bench_run *out, char *msg, size_t len)
{
	const struct rubric *r = ctx->rubric;
	char err[256];
	struct harness_report rep;
	memset(out, 0, sizeof(*out));
	out->n = 1;
	out->shapes[0] = calls_again_shape(r);
	struct bench_order order = { out->shapes, 1, 0 };
	if (harness_bench(ctx, ctx->harness, &order, &rep, err, sizeof(err)) < 0) {
		snprintf(msg, len, "the grader could not start the harness: %s", err);
		out->failure.kind = FAILURE_NOT_STARTED;
		return -1;
	}
	int rc = bench_read(ctx, &rep, 0, out, msg, len);
	harness_report_free(&rep);
	return rc;
}

/* The emulator's performance test: the performance model's prediction for a
 * GPU (steps/prediction.c), scored against the rubric's band for that GPU,
 * and said to be a prediction. */
static void score_prediction(const struct rubric *r, const char *shape, struct test_result *t,
			     struct grade *g)
{
	const struct prediction *p = &g->prediction;
	const char *gpu = p->gpu, *why = p->why;
	double pct = p->percent_of_copy;
	if (!p->made) {
		test_fail(t, "no prediction of the speed: %s",
			  p->error[0] ? p->error : "the prediction did not run");
		return;
	}
	double occupancy = p->occupancy_pct / 100;
	char launch[160];
	snprintf(launch, sizeof(launch), "a prediction: the occupancy the model computes for %.100s", gpu);
	if (occupancy_capped(r, occupancy, launch, t))
		return;
	const struct gpu_band *gb = rubric_gpu_band(r, gpu);
	const struct band *b = gb ? &gb->band : &r->default_band;
	snprintf(g->band_source, sizeof(g->band_source), "%s for %.100s, scoring the performance model's "
		 "prediction (no GPU here)", gb ? "the rubric's band" : "the rubric's default band", gpu);
	t->points = band_points(b, pct, r->performance_points);
	t->status = t->points >= r->performance_points - 1e-9 ? TEST_PASSED : TEST_FAILED;
	t->failure.kind = t->status == TEST_FAILED ? FAILURE_SLOW : FAILURE_NONE;
	snprintf(t->message, sizeof(t->message), "predicted for %.100s (a prediction from the emulator's "
		 "trace, not a measurement): about %.0f%% of copy at %s: %.400s; points from %.0f%% to "
		 "%.0f%% of copy.", gpu, pct, shape, why, b->lower_pct, b->upper_pct);
}

int performance_run(const struct run_context *ctx, enum backend backend, int correct,
		    const struct early_bench *early, const struct bench_run *reference_timing,
		    const char *reference_harness, const struct device_info *dev, json_t **sweep,
		    struct grade *g)
{
	const struct rubric *r = ctx->rubric;
	char shape[64], name[96], msg[TEST_MESSAGE_LEN];
	shape_format(&r->perf_shape, shape, sizeof(shape));
	snprintf(name, sizeof(name), "bandwidth %s", shape);
	struct test_result *t = grade_add_test(g, name, GROUP_PERFORMANCE, r->performance_points);
	if (backend == BACKEND_EMU && !r->predicted) {
		t->status = TEST_NOT_MEASURED;
		snprintf(t->message, sizeof(t->message), "not measured: bandwidth needs a GPU, and this "
			 "rubric (predicted = 0) does not grade the emulator's prediction of it, so its "
			 "%.0f points are earned on a GPU only", r->performance_points);
		return 0;
	}
	if (!correct) {
		snprintf(t->message, sizeof(t->message), "not measured: speed counts only once every "
			 "correctness test passes");
		return 0;
	}
	if (backend == BACKEND_EMU) {
		struct bench_run again;
		char size[64];
		snprintf(t->name, sizeof(t->name), "bandwidth %.40s (predicted)", shape);
		if (emulated_calls_again(ctx, &again, msg, sizeof(msg)) == 0) {
			score_prediction(r, shape, t, g);
		} else {
			test_fail(t, "%s (the emulator calls the entry point again and again at %s, as a "
				  "GPU's timing does at every size, before it predicts the speed)", msg,
				  shape_format(&again.shapes[0], size, sizeof(size)));
			t->failure = again.failure;
		}
		bench_run_free(&again);
		return 0;
	}
	struct bench_run st, ref;
	if (bench_student(ctx, early, sweep != NULL, &st, msg, sizeof(msg), g) < 0) {
		test_fail(t, "%s", msg);
		t->failure = st.failure;
		bench_run_free(&st);
		return 0;
	}
	if (sweep) {
		*sweep = json_incref(st.sweep);
		if (!st.sweep)
			snprintf(g->sweep.error, sizeof(g->sweep.error), "%s", st.sweep_error);
	}
	const struct bench_run *use = reference_timing;
	int timed_now = !use && reference_harness;
	if (timed_now && bench_harness(ctx, reference_harness, 0, &ref, msg, sizeof(msg)) == 0)
		use = &ref;
	else if (timed_now)
		snprintf(g->reference_failure, sizeof(g->reference_failure), "the reference solution's "
			 "timing failed: %.*s", (int)(strcspn(msg, "\n") < 400 ? strcspn(msg, "\n") : 400), msg);
	record(g, &st, use);
	score(ctx, &st, use, dev, t, g);
	bench_run_free(&st);
	if (timed_now)
		bench_run_free(&ref);
	return 1;
}
