/* Correctness tests (see correctness.h). */
#include "steps/correctness.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "guard.h"
#include "host_buffer.h"
#include "parallel.h"
#include "rng.h"
#include "steps/build.h"
#include "steps/reference_times.h"
#include "sys/channel_watch.h"

#define HANGS_BEFORE_GIVING_UP 2

/* The output span is guard | output | guard: first the canaries. */
static int check_guards(const struct lab *lab, const struct shape *s, const uint32_t *span,
			size_t n, struct failure *f, char *msg, size_t len)
{
	char where[64], word[64];
	shape_format(s, where, sizeof(where));
	size_t before = guard_first_changed(span, GUARD_WORDS);
	if (before < GUARD_WORDS) {
		lab_format_word(lab->elem, span[before], word, sizeof(word));
		snprintf(msg, len, "%s: your code wrote before the start of the output: d_out[-%zu] became "
			 "%s (an index that went negative?)", where, (size_t)GUARD_WORDS - before, word);
		f->kind = FAILURE_WROTE_BEFORE_OUTPUT;
		return 0;
	}
	size_t after = guard_first_changed(span + GUARD_WORDS + n, GUARD_WORDS);
	if (after < GUARD_WORDS) {
		lab_format_word(lab->elem, span[GUARD_WORDS + n + after], word, sizeof(word));
		snprintf(msg, len, "%s: your code wrote past the end of the output: d_out[%zu] became %s, "
			 "but the output has only %zu elements (a missing bounds check?)", where, n + after,
			 word, n);
		f->kind = FAILURE_WROTE_PAST_OUTPUT;
		return 0;
	}
	return 1;
}

/* Every word compared, in pieces on the machine's cores (parallel.h). */
struct compare_job {
	const uint32_t *got, *want;
	size_t n;
	size_t first[PARALLEL_MAX_THREADS], wrong[PARALLEL_MAX_THREADS],
		unwritten[PARALLEL_MAX_THREADS];
};

static void compare_pieces(size_t begin, size_t end, void *arg)
{
	struct compare_job *job = arg;
	for (size_t p = begin; p < end; p++) {
		size_t lo = job->n * p / PARALLEL_MAX_THREADS, hi = job->n * (p + 1) / PARALLEL_MAX_THREADS;
		size_t first = job->n, wrong = 0, unwritten = 0;
		for (size_t i = lo; i < hi; i++)
			if (job->got[i] != job->want[i]) {
				if (first == job->n)
					first = i;
				wrong++;
				unwritten += job->got[i] == POISON_WORD;
			}
		job->first[p] = first;
		job->wrong[p] = wrong;
		job->unwritten[p] = unwritten;
	}
}

static int compare_words(const struct lab *lab, const struct shape *s, const uint32_t *got,
			 const uint32_t *want, size_t n, struct failure *f, char *msg, size_t len)
{
	struct compare_job job = { .got = got, .want = want, .n = n };
	/* PARALLEL_MAX_THREADS fixed pieces, shared out among the threads. */
	parallel_for(PARALLEL_MAX_THREADS, n < ((size_t)1 << 20) ? PARALLEL_MAX_THREADS : 1,
		     compare_pieces, &job);
	size_t first = n, wrong = 0, unwritten = 0;
	for (int p = 0; p < PARALLEL_MAX_THREADS; p++) {
		if (first == n)
			first = job.first[p];
		wrong += job.wrong[p];
		unwritten += job.unwritten[p];
	}
	if (wrong == 0)
		return 1;
	char where[64], at[160], w[64], g[64];
	shape_format(s, where, sizeof(where));
	lab->describe_index(s, first, at, sizeof(at));
	lab_format_word(lab->elem, want[first], w, sizeof(w));
	lab_format_word(lab->elem, got[first], g, sizeof(g));
	snprintf(msg, len, "%s: first wrong element is %s: expected %s, got %s%s. %zu of %zu elements "
		 "are wrong%s.", where, at, w, g,
		 got[first] == POISON_WORD ? " (never written: still the poison value)" : "", wrong, n,
		 unwritten ? " (some never written)" : "");
	f->kind = got[first] == POISON_WORD ? FAILURE_OUTPUT_NOT_WRITTEN : FAILURE_WRONG_OUTPUT;
	f->first_wrong = (long long)first;
	return 0;
}

/* The grader's expected output of one size: its own input, its own reference. */
struct expected {
	uint32_t *want;	/* NULL: not computed */
	size_t words;
};

static int expect(const struct lab *lab, const struct shape *s, uint64_t seed, struct expected *e)
{
	size_t n_in = lab->in_count(s);
	uint32_t *in = host_buffer_alloc(n_in * 4);
	e->words = lab->out_count(s);
	e->want = host_buffer_alloc(e->words * 4);
	if (in && e->want) {
		lab_fill_input(lab, in, s, seed);
		lab->reference(in, e->want, s);
	} else {
		host_buffer_free(e->want, e->words * 4);
		e->want = NULL;
	}
	host_buffer_free(in, n_in * 4);
	return e->want ? 0 : -1;
}

static void expected_free(struct expected *e)
{
	host_buffer_free(e->want, e->words * 4);
	e->want = NULL;
}

/* correctness_judge, against `given` when it was computed ahead. */
static int judge(const struct lab *lab, const struct shape *s, uint64_t seed,
		 const struct harness_report *rep, const struct expected *given, struct failure *f,
		 char *msg, size_t len)
{
	size_t n_out = lab->out_count(s);
	char where[64];
	shape_format(s, where, sizeof(where));
	memset(f, 0, sizeof(*f));
	if (rep->corrupt || !rep->done) {
		harness_abort_failure(rep, f);
		harness_explain_abort(rep, lab->entry, where, msg, len);
		return 0;
	}
	const char *cuda_error = json_string_value(json_object_get(rep->done, "cuda_error"));
	if (cuda_error) {
		const char *text = json_string_value(json_object_get(rep->done, "cuda_error_text"));
		const char *detail = json_string_value(json_object_get(rep->done, "detail"));
		snprintf(msg, len, "%s: CUDA error %s (%s) during %s()%s%s", where, cuda_error,
			 text ? text : "", lab->entry, detail && *detail ? ": " : "", detail ? detail : "");
		f->kind = FAILURE_CUDA_ERROR;
		snprintf(f->name, sizeof(f->name), "%.64s", cuda_error);
		return 0;
	}
	if (rep->outputs != 1 || rep->output_words != GUARD_WORDS + n_out + GUARD_WORDS) {
		snprintf(msg, len, "%s: the harness's report is incomplete (an output of %zu words, "
			 "expected %zu): was the process disturbed?", where, rep->output_words,
			 (size_t)(GUARD_WORDS + n_out + GUARD_WORDS));
		f->kind = FAILURE_INCOMPLETE_REPORT;
		return 0;
	}
	if (!check_guards(lab, s, rep->output, n_out, f, msg, len))
		return 0;
	/* Nothing from the child is used but its output. */
	struct expected own = { 0 };
	const struct expected *e = given && given->want ? given : &own;
	if (!e->want && expect(lab, s, seed, &own) < 0) {
		snprintf(msg, len, "%s: the grader ran out of memory for the reference", where);
		f->kind = FAILURE_GRADER;
		return 0;
	}
	int ok = compare_words(lab, s, rep->output + GUARD_WORDS, e->want, n_out, f, msg, len);
	expected_free(&own);
	if (ok && json_is_true(json_object_get(rep->done, "input_changed"))) {
		snprintf(msg, len, "%s: the output is right, but your code wrote into d_in, which is const "
			 "input", where);
		f->kind = FAILURE_WROTE_INPUT;
		return 0;
	}
	return ok;
}

int correctness_judge(const struct lab *lab, const struct shape *s, uint64_t seed,
		      const struct harness_report *rep, struct failure *f, char *msg, size_t len)
{
	return judge(lab, s, seed, rep, NULL, f, msg, len);
}

/* Every size's expected output, computed by a thread of the grader while
 * the child runs: the child mostly waits on the GPU, and a gigabyte's
 * input and reference take a fifth of a second. */
struct expect_job {
	const struct lab *lab;
	const struct shape *shapes;
	const uint64_t *seeds;
	int n;
	struct expected e[RUBRIC_MAX_SHAPES];
};

static void *expect_all(void *arg)
{
	struct expect_job *job = arg;
	for (int i = 0; i < job->n; i++)
		expect(job->lab, &job->shapes[i], job->seeds[i], &job->e[i]);	/* a miss is judged without */
	return NULL;
}

/* Each size's limit within the rubric's, for a run of sizes [first, first+n):
 * stage 0 (before the first MSG_BEGIN: the process's start, its CUDA
 * context, the kit's own set-up) has the rubric's whole limit, stage k
 * (the k-th size, from its MSG_BEGIN to the next) its own. */
/* In an emulator build the emulator's watchdog stops a kernel at the
 * size's limit of CPU time (kernel_timeout) and names its line; the
 * grader's watch on the clock comes after it, for a hang outside any
 * kernel: a second of CPU time can take several on a loaded machine. */
#define EMU_CLOCK_SLACK 4

struct size_watch {
	struct channel_watch watch;
	double limit_s[RUBRIC_MAX_SHAPES + 1];
};

static struct size_watch *watch_sizes(const struct run_context *ctx, const struct reference_times *times,
				      int first, int n)
{
	struct size_watch *w = calloc(1, sizeof(*w));
	if (!w)
		return NULL;
	int emulated = ctx->backend == BACKEND_EMU;
	w->limit_s[0] = ctx->rubric->test_timeout_s;
	for (int i = 0; i < n; i++) {
		double l = reference_times_limit(ctx->rubric, ctx->gpu_sharers, times, first + i).limit_s;
		w->limit_s[i + 1] = emulated ? EMU_CLOCK_SLACK * (l + 1) : l;
	}
	w->watch.limit_s = w->limit_s;
	w->watch.n_limits = n + 1;
	return w;
}

/* Why a run that was stopped was stopped, after msg: how long its size
 * ran, and which limit applied. size: its index in the rubric's list. */
static void explain_stop(const struct run_context *ctx, const struct reference_times *times,
			 const struct harness_report *rep, const struct channel_watch *w, int size,
			 char *msg, size_t len)
{
	char why[256];
	size_t at = strlen(msg);
	if (!harness_hung(rep) || at >= len)
		return;
	struct time_rule rule = reference_times_rule(ctx->rubric, ctx->gpu_sharers);
	struct time_limit l = reference_times_limit(ctx->rubric, ctx->gpu_sharers, times, size);
	time_limit_explain(&rule, &l, times->where, why, sizeof(why));
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

/*
 * One size in a process of its own: the verdict of record for a size that
 * failed, or could not be settled, in a shared process.
 */
static int run_alone(const struct run_context *ctx, const struct reference_times *times,
		     const struct shape *shape, int i, uint64_t seed, struct test_result *t,
		     struct grade *g)
{
	char shape_text[64], err[256];
	shape_format(shape, shape_text, sizeof(shape_text));
	/* A kernel that hung twice will hang again: the rest of the sizes
	 * would only cost a time limit each. */
	if (g->hangs >= HANGS_BEFORE_GIVING_UP) {
		test_fail_as(t, FAILURE_NOT_RUN, "%s: not run: %s() already ran past the time limit on %d "
			     "sizes", shape_text, ctx->lab->entry, g->hangs);
		return 0;
	}
	struct harness_report rep;
	struct size_watch *w = watch_sizes(ctx, times, i, 1);
	double limit_s = reference_times_limit(ctx->rubric, ctx->gpu_sharers, times, i).limit_s;
	if (harness_correct(ctx, shape, seed, limit_s, w ? &w->watch : NULL, &rep, err, sizeof(err)) < 0) {
		test_fail_as(t, FAILURE_NOT_STARTED, "the grader could not start the harness: %s", err);
		free(w);
		return 0;
	}
	char msg[TEST_MESSAGE_LEN];
	struct failure f;
	g->hangs += harness_hung(&rep);
	int ok = correctness_judge(ctx->lab, shape, seed, &rep, &f, msg, sizeof(msg));
	if (ok) {
		test_pass(t, "%s", "");
		harness_append_printed(&rep, t->message, sizeof(t->message));
	} else {
		explain_stop(ctx, times, &rep, w ? &w->watch : NULL, i, msg, sizeof(msg));
		test_fail(t, "%s", msg);
		t->failure = f;
	}
	harness_report_free(&rep);
	free(w);
	return ok;
}

/*
 * Every size in one process, so one CUDA context (about 0.3 s to create on
 * an H100: docs/results/h100-2026-11-24-baseline/breakdown-before.md). The
 * sizes are settled in order while they pass; the first that does not (a
 * wrong word, a CUDA error, a crash, a size past its own limit) and all
 * after it are left to run_alone. A size past its limit counts as a hang
 * (*hung), so that one more, alone, ends the step. Returns how many sizes
 * were settled.
 */
static int run_shared(const struct run_context *ctx, const struct reference_times *times,
		      const struct shape *shapes, int n, const uint64_t *seeds,
		      struct test_result **tests, int *hung)
{
	char err[256];
	struct harness_report whole, parts[RUBRIC_MAX_SHAPES];
	struct expect_job job = { .lab = ctx->lab, .shapes = shapes, .seeds = seeds, .n = n };
	struct size_watch *w = watch_sizes(ctx, times, 0, n);
	pthread_t ahead;
	int computing = pthread_create(&ahead, NULL, expect_all, &job) == 0;
	int started = harness_correct_many(ctx, shapes, seeds, n, w ? &w->watch : NULL, &whole, err,
					   sizeof(err)) == 0;
	if (computing)
		pthread_join(ahead, NULL);
	int began = started ? harness_split(&whole, parts, n) : 0, settled = 0;
	*hung = started && harness_hung(&whole);
	char msg[TEST_MESSAGE_LEN];
	struct failure f;
	while (settled < began && parts[settled].done &&
	       judge(ctx->lab, &shapes[settled], seeds[settled], &parts[settled], &job.e[settled], &f,
		     msg, sizeof(msg))) {
		test_pass(tests[settled], "%s", "");
		settled++;
	}
	/* What the program printed, once: under the first size it ran. */
	if (started && settled > 0)
		harness_append_printed(&whole, tests[0]->message, sizeof(tests[0]->message));
	for (int i = 0; i < n; i++)
		expected_free(&job.e[i]);
	for (int i = 0; i < began; i++)
		harness_part_free(&parts[i]);
	if (started)
		harness_report_free(&whole);
	free(w);
	return settled;
}

int correctness_run(const struct run_context *ctx, enum backend backend,
		    const struct reference_times *times, struct grade *g)
{
	const struct rubric *r = ctx->rubric;
	int n;
	const struct shape *shapes = reference_times_shapes(r, backend, &n);
	struct test_result *tests[RUBRIC_MAX_SHAPES];
	uint64_t seeds[RUBRIC_MAX_SHAPES];
	for (int i = 0; i < n; i++) {
		char shape_text[64], name[96];
		shape_format(&shapes[i], shape_text, sizeof(shape_text));
		snprintf(name, sizeof(name), "correctness %s", shape_text);
		tests[i] = grade_add_test(g, name, GROUP_CORRECTNESS, points_share(r->correctness_points, n, i));
		if (tests[i])
			tests[i]->shape = shapes[i];
		seeds[i] = rng_test_seed(ctx->seed, ctx->salt, (unsigned)i);
	}
	/* On a GPU a process costs a CUDA context; the emulator has none to share. */
	int hung = 0;
	int settled = backend == BACKEND_CUDA && n > 1 ? run_shared(ctx, times, shapes, n, seeds, tests,
								    &hung) : 0;
	g->hangs += hung;
	int failed = 0;
	for (int i = settled; i < n; i++)
		failed += !run_alone(ctx, times, &shapes[i], i, seeds[i], tests[i], g);
	return failed;
}
