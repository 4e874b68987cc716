/* Correctness tests (see correctness.h). */
#include "steps/correctness.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "output_digest.h"
#include "rng.h"
#include "steps/analysis_shape.h"
#include "steps/correctness_judge.h"
#include "steps/correctness_plan.h"
#include "steps/findings.h"
#include "steps/launch_match.h"
#include "steps/reference_times.h"
#include "steps/seed_hashes.h"
#include "steps/traced_sizes.h"
#include "sys/channel_watch.h"

/* One correctness step: its sizes, their tests, and each size's expected
 * output, computed by a thread of the grader while a child runs (the child
 * mostly waits on the GPU, and a gigabyte's input and reference take a
 * fifth of a second), kept until the size is settled. */
struct sizes {
	const struct run_context *ctx;
	const struct reference_times *times;
	const struct shape *shapes;
	uint64_t seeds[RUBRIC_MAX_SHAPES];
	struct test_result *tests[RUBRIC_MAX_SHAPES];
	int settled[RUBRIC_MAX_SHAPES];	/* the size has its verdict */
	struct expected e[RUBRIC_MAX_SHAPES];
	int first, count;		/* what the thread computes */
	int n;				/* the sizes */
	struct traced_runs *traced;	/* the emulator's: the prediction's sizes' traces */
	const struct bench_order *bench;	/* a GPU's timing, after the first run of every size */
	struct early_bench *early;	/* where that timing's report is kept */
	struct gpu_launches *analysis_run;	/* a GPU's run at the analysis shape, after the
						 * first run of every size, read there */
	struct shape analysis_shape;
	struct bounds_fault *bounds;	/* the first size that showed an access outside a buffer */
};

/* Each size's expected output for the process about to run [first,
 * first + count): whole, or only its hash where the output comes back as
 * a digest. A miss is judged without (correctness_judge computes it). */
static void *expect_ahead(void *arg)
{
	struct sizes *z = arg;
	const struct lab *lab = z->ctx->lab;
	for (int i = z->first; i < z->first + z->count; i++) {
		struct expected *e = &z->e[i];
		if (e->want)
			continue;
		if (output_sent_as_digest(lab->out_count(&z->shapes[i]), i == z->first,
					  z->ctx->backend == BACKEND_EMU)) {
			if (!e->hashed)
				e->hashed = seed_hashes_find(z->ctx->seed_hashes, i, z->seeds[i], &z->shapes[i],
							     &e->hash);
			if (!e->hashed)
				expected_compute_hash(lab, &z->shapes[i], z->seeds[i], e);
		} else {
			expected_compute(lab, &z->shapes[i], z->seeds[i], e);
		}
	}
	return NULL;
}

/* Each size's limit within the rubric's, for a run of sizes [first, first+n):
 * stage 0 (before the first MSG_BEGIN: the process's start, its CUDA
 * context, the kit's own set-up) has the rubric's whole limit, stage k
 * (the k-th size, from its MSG_BEGIN to the next) its own. */
/* In an emulator build the emulator's watchdog stops a kernel at the
 * size's limit of CPU time (kernel_timeout) and names its line; the
 * grader's watch on the clock comes after it, for a hang outside any
 * kernel: a second of CPU time can take several on a loaded machine. No
 * size's watch outlasts the rubric's limit, which a size alone had. */
#define EMU_CLOCK_SLACK 4

struct size_watch {
	struct channel_watch watch;
	double limit_s[RUBRIC_MAX_SHAPES + 3];
};

/* Size k's limit in a run where it comes first or not (time_limit.h: on
 * a GPU, a large size first in its process sends its output whole). */
static struct time_limit size_limit(const struct sizes *z, int k, int first)
{
	const struct run_context *ctx = z->ctx;
	struct time_limit l = reference_times_limit(ctx->rubric, z->times, k);
	size_t out = ctx->lab->out_count(&z->shapes[k]);
	int emulated = ctx->backend == BACKEND_EMU;
	if (!output_sent_as_digest(out, first, emulated) && output_sent_as_digest(out, 0, emulated)) {
		struct time_rule rule = reference_times_rule(ctx->rubric);
		l = time_limit_with_whole_output(&rule, l, 4.0 * (double)out);
	}
	return l;
}

/* Whether [first, first + count) is the first run of every size, together
 * (a later run reruns sizes that failed). */
static int every_size_at_once(const struct sizes *z, int first, int count)
{
	return first == 0 && count == z->n && count > 1;
}

/* Whether that run also times (no later run's timing counts). */
static int with_bench(const struct sizes *z, int first, int count)
{
	return z->bench && every_size_at_once(z, first, count);
}

/* Whether it also runs the analysis shape, after the sizes and before the
 * timing: the launch check's run (launch_match.h), in this process's CUDA
 * context instead of one of its own. */
static int with_analysis(const struct sizes *z, int first, int count)
{
	return z->analysis_run && every_size_at_once(z, first, count);
}

/* The analysis shape's limit: that of the first size at least as large,
 * or of the largest. */
static struct time_limit analysis_limit(const struct sizes *z)
{
	size_t want = shape_elements(&z->analysis_shape);
	int k = 0;
	while (k < z->n - 1 && shape_elements(&z->shapes[k]) < want)
		k++;
	return size_limit(z, k, 0);
}

static struct size_watch *watch_sizes(const struct sizes *z, int first, int n)
{
	const struct run_context *ctx = z->ctx;
	struct size_watch *w = calloc(1, sizeof(*w));
	if (!w)
		return NULL;
	int emulated = ctx->backend == BACKEND_EMU;
	w->limit_s[0] = ctx->rubric->test_timeout_s;
	for (int i = 0; i < n; i++) {
		double l = size_limit(z, first + i, i == 0).limit_s;
		double slack_s = EMU_CLOCK_SLACK * (l + 1);
		w->limit_s[i + 1] = !emulated ? l : slack_s < w->limit_s[0] ? slack_s : w->limit_s[0];
	}
	w->watch.limit_s = w->limit_s;
	w->watch.n_limits = n + 1;
	if (with_analysis(z, first, n))
		w->limit_s[w->watch.n_limits++] = analysis_limit(z).limit_s;
	if (with_bench(z, first, n))	/* the timing after the sizes: a stage of its own */
		w->limit_s[w->watch.n_limits++] = ctx->rubric->bench_timeout_s;
	return w;
}

/* Why a run that was stopped was stopped, after msg: how long its size
 * ran, and which limit applied. size: its index in the rubric's list;
 * first: it ran first in its process. */
static void explain_stop(const struct sizes *z, const struct harness_report *rep, const struct channel_watch *w,
			 int size, int first, char *msg, size_t len)
{
	const struct run_context *ctx = z->ctx;
	char why[256];
	size_t at = strlen(msg);
	if (!harness_hung(rep) || at >= len)
		return;
	struct time_rule rule = reference_times_rule(ctx->rubric);
	struct time_limit l = size_limit(z, size, first);
	time_limit_explain(&rule, &l, z->times->where, why, sizeof(why));
	if (!rep->child.timed_out)	/* the emulator's watchdog, at the size's limit */
		snprintf(msg + at, len - at, "\n(the limit: %s)", why);
	else if (w && w->stopped && w->stopped_stage > 0 && ctx->backend == BACKEND_EMU)
		snprintf(msg + at, len - at, "\n(stopped after %.1f s on the clock: the limit, %s, with "
			 "the emulator's slack for a busy machine)", w->stopped_after_s, why);
	else if (w && w->stopped && w->stopped_stage > 0)
		snprintf(msg + at, len - at, "\n(stopped after %.1f s: %s)", w->stopped_after_s, why);
	else
		snprintf(msg + at, len - at, "\n(stopped after %.1f s: the rubric's %g s for the whole run)",
			 rep->child.wall_s, ctx->rubric->test_timeout_s);
}

/* Sizes [first, first + count) in one emulated child: each with the
 * emulator's watchdog at its own limit, the prediction's sizes traced. */
static int start_emulated(struct sizes *z, int first, int count, struct channel_watch *w,
			  struct harness_report *whole, char *err, size_t len)
{
	const struct run_context *ctx = z->ctx;
	struct emu_size sizes[RUBRIC_MAX_SHAPES];
	for (int i = 0; i < count; i++) {
		int k = first + i;
		sizes[i] = (struct emu_size){
			.shape = z->shapes[k],
			.seed = z->seeds[k],
			.kernel_timeout_s = reference_times_limit(ctx->rubric, z->times, k).limit_s,
			.traced = z->traced && traced_sizes_has(ctx->rubric, ctx->lab, k),
		};
	}
	return harness_correct_sizes(ctx, sizes, count, w, whole, err, len);
}

/* Sizes [first, first + count) on a GPU, several in one child: then the
 * analysis shape where with_analysis says so, then the timing where
 * with_bench does. */
static int start_many(struct sizes *z, int first, int count, struct channel_watch *w,
		      struct harness_report *whole, char *err, size_t len)
{
	struct shape shapes[RUBRIC_MAX_SHAPES + 1];
	uint64_t seeds[RUBRIC_MAX_SHAPES + 1];
	int extra = with_analysis(z, first, count);
	memcpy(shapes, &z->shapes[first], sizeof(shapes[0]) * (size_t)count);
	memcpy(seeds, &z->seeds[first], sizeof(seeds[0]) * (size_t)count);
	shapes[count] = z->analysis_shape;
	seeds[count] = z->ctx->seed;	/* the analysis's own seed */
	return harness_correct_many(z->ctx, shapes, seeds, count + extra,
				    with_bench(z, first, count) ? z->bench : NULL, w, whole, err, len);
}

/* Starts sizes [first, first + count) in one child: in an emulator build
 * through start_emulated; on a GPU one size through harness_correct,
 * several through start_many. */
static int start(struct sizes *z, int first, int count, struct channel_watch *w,
		 struct harness_report *whole, char *err, size_t len)
{
	const struct run_context *ctx = z->ctx;
	pthread_t ahead;
	z->first = first;
	z->count = count;
	int computing = pthread_create(&ahead, NULL, expect_ahead, z) == 0;
	int rc = ctx->backend == BACKEND_EMU ? start_emulated(z, first, count, w, whole, err, len)
		 : count == 1 ? harness_correct(ctx, &z->shapes[first], z->seeds[first], 0, w, whole, err, len)
			      : start_many(z, first, count, w, whole, err, len);
	if (computing)
		pthread_join(ahead, NULL);
	return rc;
}

/* Whether a size before k failed with wrong words, whose first is in its
 * message. */
static int wrong_words_shown(const struct sizes *z, int k)
{
	for (int i = 0; i < k; i++) {
		enum failure_kind kind = z->tests[i]->failure.kind;
		if (z->tests[i]->status == TEST_FAILED &&
		    (kind == FAILURE_WRONG_OUTPUT || kind == FAILURE_OUTPUT_NOT_WRITTEN))
			return 1;
	}
	return 0;
}

/* Size k's own sign of an access outside a buffer, kept where the emulator
 * checks that size too: the rule it brings (findings_apply_bounds) then
 * holds on both backends for the same file. */
static void note_outside_buffer(struct sizes *z, int k, const struct harness_report *rep,
				const struct failure *f)
{
	const struct rubric *r = z->ctx->rubric;
	int emulated = 0;
	for (int i = 0; i < r->n_emu_shapes; i++)
		emulated |= shape_equal(&r->emu_shapes[i], &z->shapes[k]);
	if (z->bounds->found || !emulated)
		return;
	char text[64];
	findings_bounds_at_size(rep->done, shape_format(&z->shapes[k], text, sizeof(text)), f, z->bounds);
}

/* Size k's verdict from its report. first: k ran first in its process,
 * where any verdict stands. Returns whether a size after it may run in
 * the same process: a pass, or a failure that left the process running;
 * -1 where k's verdict does not stand (it runs again, first in a new
 * process). */
static int settle(struct sizes *z, int k, const struct harness_report *rep,
		  const struct channel_watch *w, int first)
{
	char msg[TEST_MESSAGE_LEN];
	struct failure f;
	struct test_result *t = z->tests[k];
	const struct lab *lab = z->ctx->lab;
	int digest_allowed = output_sent_as_digest(lab->out_count(&z->shapes[k]), first,
						   z->ctx->backend == BACKEND_EMU);
	int ok = correctness_judge_against(lab, &z->shapes[k], z->seeds[k], rep, &z->e[k], digest_allowed, &f,
					   msg, sizeof(msg));
	if (!ok && !failure_stands(&f, first, wrong_words_shown(z, k)))
		return -1;
	int went_on = ok || failure_leaves_process_running(&f);
	if (ok) {
		test_pass(t, "%s", "");
		if (z->traced)	/* the prediction's trace, where this size is one it traces */
			traced_runs_keep(z->traced, z->ctx->rubric, z->ctx->lab, k, rep->metrics);
	} else {
		if (!went_on)	/* the process's end is this size's: a time limit says which */
			explain_stop(z, rep, w, k, first, msg, sizeof(msg));
		test_fail(t, "%s", msg);
		t->failure = f;
		note_outside_buffer(z, k, rep, &f);
	}
	z->settled[k] = 1;
	expected_free(&z->e[k]);
	return went_on;
}

/* What size k's report may hold: a frame of another type (a trace where
 * none was asked for, a timing) was the student's code's. */
static unsigned size_frames(const struct sizes *z, int k)
{
	int traced = z->traced && traced_sizes_has(z->ctx->rubric, z->ctx->lab, k);
	return HARNESS_SIZE_FRAMES | (traced ? 1u << MSG_METRICS : 0);
}

/* Whether sizes [first, first + count) all passed: a timing after them
 * in their process is then the performance step's (early_bench). */
static int sizes_passed(const struct sizes *z, int first, int count)
{
	for (int i = first; i < first + count; i++)
		if (!z->settled[i] || z->tests[i]->status != TEST_PASSED)
			return 0;
	return 1;
}

/* The run_sizes_fn of correctness_plan.h: one child, its report cut into
 * sizes (a report of one size is that size's), each judged in order. */
static struct size_run run_child(void *arg, int first, int count)
{
	struct sizes *z = arg;
	struct size_run out = { 0 };
	struct harness_report whole, parts[RUBRIC_MAX_SHAPES + 2];
	char err[256];
	int timed = with_bench(z, first, count), extra = with_analysis(z, first, count), kept = 0;
	struct size_watch *w = watch_sizes(z, first, count);
	struct channel_watch *watch = w ? &w->watch : NULL;
	int began = 0;
	if (start(z, first, count, watch, &whole, err, sizeof(err)) < 0) {
		test_fail_as(z->tests[first], FAILURE_NOT_STARTED, "the grader could not start the harness: %s",
			     err);
		z->settled[first] = 1;
		out.settled = 1;
		goto done;
	}
	out.started = 1;
	began = count == 1 ? 0 : harness_split(&whole, parts, count + extra + timed);
	/* The analysis shape's run and the timing, which begin after every
	 * size, have limits of their own: whatever stopped them is no size's. */
	out.hung = harness_hung(&whole) && !((extra || timed) && began > count);
	out.uncut = began < 0 && whole.began;	/* the student's code wrote into the channel */
	int printed = 0;
	for (int i = 0; i < count; i++) {
		/* A process that ended before its first size began: its report
		 * is that size's, as if it ran alone. */
		struct harness_report *rep = i < began ? &parts[i]
					   : i == 0 && (count == 1 || !whole.began) ? &whole : NULL;
		if (rep)
			harness_refuse_frames(rep, size_frames(z, first + i));
		int stands = rep ? settle(z, first + i, rep, watch, i == 0) : -1;
		if (stands < 0)
			break;	/* not settled here: it runs again, first in a new process */
		out.settled++;
		/* What the program printed, once: under the first size it passed. */
		if (!printed && z->tests[first + i]->status == TEST_PASSED) {
			harness_append_printed(&whole, z->tests[first + i]->message,
					       sizeof(z->tests[first + i]->message));
			printed = 1;
		}
		if (!stands) {
			out.ended_at_first = 1;
			out.ending = failure_ending_key(&z->tests[first + i]->failure);
			break;
		}
	}
	/* A process given one size ends with it, whatever its verdict: an
	 * exit() the harness caught too, where the sizes run one a process. */
	if (count == 1 && out.settled == 1 && !out.ended_at_first) {
		out.ended_at_first = 1;
		if (z->tests[first]->status != TEST_PASSED)
			out.ending = failure_ending_key(&z->tests[first]->failure);
	}
	if (extra && began > count) {
		harness_refuse_frames(&parts[count], HARNESS_SIZE_FRAMES);
		gpu_launches_read(z->ctx, &parts[count], 0, z->analysis_run);
	}
	if (timed && began == count + extra + 1 && sizes_passed(z, first, count)) {
		*z->early = (struct early_bench){ .have = 1, .whole = whole, .part = parts[count + extra] };
		kept = 1;
	}
	for (int i = 0; i < began - kept; i++)
		harness_part_free(&parts[i]);
	if (!kept)
		harness_report_free(&whole);
done:
	free(w);
	return out;
}

/* Size k, which the plan gave up on, fails saying why. */
static void fail_not_run(const struct sizes *z, const struct correctness_plan *plan, int hangs, int k)
{
	_Static_assert(SAME_ENDINGS_IN_A_ROW + SAME_ENDINGS_PROBES == 4, "the message names four sizes");
	char at[4][64], size[64];
	const char *entry = z->ctx->lab->entry;
	shape_format(&z->shapes[k], size, sizeof(size));
	for (int i = 0; i < 4; i++)
		shape_format(&z->shapes[plan->same_at[i]], at[i], sizeof(at[i]));
	switch (plan->why) {
	case NOT_RUN_HUNG:
		test_fail_as(z->tests[k], FAILURE_NOT_RUN, "%s: not run: %s() already ran past the time limit "
			     "on %d sizes", size, entry, hangs);
		break;
	case NOT_RUN_SAME_ENDING:
		test_fail_as(z->tests[k], FAILURE_NOT_RUN, "%s: not run: %s() ended its process the same "
			     "way at %s and %s, then at %s and %s, each run first in a new process: it "
			     "ends it at every size", size, entry, at[0], at[1], at[2], at[3]);
		break;
	default:
		test_fail_as(z->tests[k], FAILURE_NOT_RUN, "%s: not run: the harness's run before it "
			     "judged no size", size);
		break;
	}
}

int correctness_run(const struct run_context *ctx, enum backend backend,
		    const struct reference_times *times, struct traced_runs *traced,
		    const struct bench_order *bench, struct early_bench *early,
		    struct gpu_launches *analysis_run, struct grade *g)
{
	const struct rubric *r = ctx->rubric;
	int n, failed = 0;
	const struct shape *shapes = reference_times_shapes(r, backend, &n);
	struct sizes z = { .ctx = ctx, .times = times, .shapes = shapes, .n = n,
			   .traced = backend == BACKEND_EMU ? traced : NULL,
			   .bench = backend == BACKEND_CUDA && early ? bench : NULL, .early = early,
			   .analysis_run = backend == BACKEND_CUDA ? analysis_run : NULL,
			   .analysis_shape = analysis_shape_choose(r, ctx->seed), .bounds = &g->bounds_at_size };
	if (z.traced)
		z.traced->ran = 1;
	for (int i = 0; i < n; i++) {
		char shape_text[64], name[96];
		shape_format(&shapes[i], shape_text, sizeof(shape_text));
		snprintf(name, sizeof(name), "correctness %s", shape_text);
		z.tests[i] = grade_add_test(g, name, GROUP_CORRECTNESS, points_share(r->correctness_points, n, i));
		if (z.tests[i])
			z.tests[i]->shape = shapes[i];
		z.seeds[i] = rng_test_seed(ctx->seed, ctx->salt, (unsigned)i);
	}
	/* Every size in one process where it can, on both backends alike. */
	struct correctness_plan plan;
	correctness_plan_run(n, g->hangs, run_child, &z, &plan);
	g->hangs = plan.hangs;
	g->correctness_processes += plan.processes;
	for (int i = 0; i < n; i++)
		if (!z.settled[i])
			fail_not_run(&z, &plan, g->hangs, i);
	for (int i = 0; i < n; i++) {
		failed += z.tests[i]->status != TEST_PASSED;
		expected_free(&z.e[i]);
	}
	return failed;
}
