/* Correctness tests (see correctness.h). */
#include "steps/correctness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "output_digest.h"
#include "rng.h"
#include "steps/analysis_shape.h"
#include "steps/correctness_judge.h"
#include "steps/correctness_plan.h"
#include "steps/correctness_sizes.h"
#include "steps/findings.h"
#include "steps/launch_match.h"
#include "steps/reference_times.h"
#include "steps/traced_sizes.h"

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
	if (!ok && !failure_stands(&f, first, wrong_words_shown(z, k))) {
		/* An ending of the file's, where it ran after another size
		 * (correctness.c's first_call_only): one failure_ending_key
		 * names (a crash, a CUDA error, an exit). Not a time limit: a
		 * size near its limit passes or not with the machine's load,
		 * and a run once more would be a second chance to fail (on a
		 * 16-core machine the emulator's lab 2 Hillis-Steele scan at
		 * 2^24 passed alone and not after 2^20+7). Nor memory, nor the
		 * harness's trouble, which the kit's own buffers may cause. */
		if (!first && failure_ending_key(&f)) {
			z->after_other[k] = f;
			snprintf(z->after_other_msg[k], sizeof(z->after_other_msg[k]), "%s", msg);
		}
		return -1;
	}
	int went_on = ok || failure_leaves_process_running(&f);
	if (ok) {
		test_pass(t, "%s", "");
		if (z->traced)	/* the prediction's trace, where this size is one it traces */
			traced_runs_keep(z->traced, z->ctx->rubric, z->ctx->lab, k, rep->metrics);
		/* A first call's launches are the analysis run's kind: only a
		 * later call shows what the graded calls launch. */
		if (z->traced && rep->metrics && !first && shape_equal(&z->shapes[k], &z->analysis_shape)) {
			json_decref(z->traced->at_analysis_shape);
			z->traced->at_analysis_shape = json_incref(rep->metrics);
		}
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
	return HARNESS_SIZE_FRAMES | (size_traced(z, k) ? 1u << MSG_METRICS : 0);
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
	if (sizes_start(z, first, count, watch, &whole, err, sizeof(err)) < 0) {
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

/* Whether size k passed only as the first call of its process: it ended
 * a process where it ran after another size, in a way that is the file's
 * (settle), and passed first in a new one. */
static int passed_only_first(const struct sizes *z, int k)
{
	return z->settled[k] && z->tests[k]->status == TEST_PASSED && z->after_other[k].kind != FAILURE_NONE;
}

/* Runs size k once more, right after size k - 1, in a process of its own;
 * whether it ended that process again in a way that is the file's,
 * kept as its ending after another size. */
static int ends_again_after(struct sizes *z, int k, int *processes)
{
	struct harness_report whole, parts[2];
	struct failure f;
	char err[256], msg[TEST_MESSAGE_LEN];
	int again = 0, began = 0;
	struct size_watch *w = watch_sizes(z, k - 1, 2);
	z->again = 1;
	if (!w || sizes_start(z, k - 1, 2, &w->watch, &whole, err, sizeof(err)) < 0)
		goto out;
	++*processes;
	began = harness_split(&whole, parts, 2);
	if (began == 2) {	/* k began: the process did not end before it */
		harness_refuse_frames(&parts[1], size_frames(z, k));
		int digest_allowed = output_sent_as_digest(z->ctx->lab->out_count(&z->shapes[k]), 0,
							   z->ctx->backend == BACKEND_EMU);
		again = !correctness_judge_against(z->ctx->lab, &z->shapes[k], z->seeds[k], &parts[1], &z->e[k],
						   digest_allowed, &f, msg, sizeof(msg)) &&
			failure_ending_key(&f) != 0;
	}
	if (again) {
		z->after_other[k] = f;
		snprintf(z->after_other_msg[k], sizeof(z->after_other_msg[k]), "%s", msg);
	}
	for (int i = 0; i < began; i++)
		harness_part_free(&parts[i]);
	harness_report_free(&whole);
out:
	expected_free(&z->e[k - 1]);
	expected_free(&z->e[k]);
	z->again = 0;
	free(w);
	return again;
}

/*
 * A size that ended its process when it ran after another size, and then
 * passed first in a new process (correctness_plan.h: as if alone), passed
 * only as the first call of a process. A GPU's timing calls the entry point
 * many times in one process, and so does any program: such a size runs once
 * more, right after the size before it, in a process of its own. Where it
 * ends that process again, the ending was the file's (state kept between
 * calls, such as a buffer sized at the first call), not a passing trouble
 * of the machine, and the size fails; so does every other size that ended
 * its process the same way after another size (one more process, not one a
 * size). Where it passes there, its pass stands, and the next such size is
 * tried. Returns the processes started.
 */
static int first_call_only(struct sizes *z)
{
	int processes = 0, shown = -1;
	for (int k = 1; k < z->n && shown < 0; k++)
		if (passed_only_first(z, k) && ends_again_after(z, k, &processes))
			shown = k;
	if (shown < 0)
		return processes;
	unsigned way = failure_ending_key(&z->after_other[shown]);
	for (int k = shown; k < z->n; k++) {
		if (!passed_only_first(z, k) || failure_ending_key(&z->after_other[k]) != way)
			continue;
		test_fail(z->tests[k], "%s\n(%s() passed this size only as the first call in a new process: "
			  "it must also work when called again, as the timing calls it many times in one "
			  "process. State kept from an earlier call, such as a buffer sized at the first call?)",
			  z->after_other_msg[k], z->ctx->lab->entry);
		z->tests[k]->failure = z->after_other[k];
	}
	return processes;
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
	g->correctness_processes += first_call_only(&z);
	for (int i = 0; i < n; i++) {
		failed += z.tests[i]->status != TEST_PASSED;
		expected_free(&z.e[i]);
	}
	return failed;
}