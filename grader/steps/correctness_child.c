/* One correctness child's start: its sizes' limits, expected outputs and
 * command (see correctness_sizes.h). */
#include "steps/correctness_sizes.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "output_digest.h"
#include "steps/correctness_judge.h"
#include "steps/seed_hashes.h"

/* Each size's expected output for the process about to run [first,
 * first + count): whole, or only its hash where the output comes back as
 * a digest. A miss is judged without (correctness_judge computes it). */
static void *expect_ahead(void *arg)
{
	struct sizes *z = arg;
	const struct lab *lab = z->ctx->lab;
	for (int i = z->first; i < z->first + z->count; i++) {
		struct expected *e = &z->e[i];
		/* A run once more after the size before it judges its last size only. */
		if (e->want || (z->again && i < z->first + z->count - 1))
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

/* In an emulator build the emulator's watchdog stops a kernel at the
 * size's limit of CPU time (kernel_timeout) and names its line; the
 * grader's watch on the clock comes after it, for a hang outside any
 * kernel: a second of CPU time can take several on a loaded machine. No
 * size's watch outlasts the rubric's limit, which a size alone had. */
#define EMU_CLOCK_SLACK 4

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
	return first == 0 && count == z->n && count > 1 && !z->again;
}

/* Whether that run also times (no later run's timing counts). */
int with_bench(const struct sizes *z, int first, int count)
{
	return z->bench && every_size_at_once(z, first, count);
}

/* Whether it also runs the analysis shape, after the sizes and before the
 * timing: the launch check's run (launch_match.h), in this process's CUDA
 * context instead of one of its own. */
int with_analysis(const struct sizes *z, int first, int count)
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

struct size_watch *watch_sizes(const struct sizes *z, int first, int n)
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

/* See correctness_sizes.h. */
void explain_stop(const struct sizes *z, const struct harness_report *rep, const struct channel_watch *w,
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

int size_traced(const struct sizes *z, int k)
{
	return z->traced && (traced_sizes_has(z->ctx->rubric, z->ctx->lab, k) ||
			     shape_equal(&z->shapes[k], &z->analysis_shape));
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
			.traced = size_traced(z, k),
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

/* See correctness_sizes.h: in an emulator build through start_emulated;
 * on a GPU one size through harness_correct, several through start_many. */
int sizes_start(struct sizes *z, int first, int count, struct channel_watch *w,
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
