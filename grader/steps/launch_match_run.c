/* The GPU's launches at the analysis shape, against the emulator's (see launch_match.h). */
#include "steps/launch_match.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "steps/analysis_shape.h"
#include "steps/correctness_judge.h"
#include "steps/harness_door.h"

/* Every analysis test fails with text: its figures are of another program;
 * why is the difference alone. */
static void fail_analysis(struct grade *g, const char *text, const char *why)
{
	for (int i = 0; i < g->n_tests; i++)
		if (g->tests[i].group == GROUP_ANALYSIS &&
		    (g->tests[i].status == TEST_PASSED || g->tests[i].status == TEST_FAILED))
			test_fail_as(&g->tests[i], FAILURE_NOT_BELIEVED, "%s", text);
	g->launch_match = (struct launch_match){ .checked = 1, .believed = 0 };
	snprintf(g->launch_match.why, sizeof g->launch_match.why, "%s", why);
}

static void not_believed(struct grade *g, const char *shape, const char *why)
{
	char text[TEST_MESSAGE_LEN];
	snprintf(text, sizeof text, "not believed: the emulator's build and the GPU's are not the same "
		 "program at %s: %s. The analysis must be of the code the GPU runs.", shape, why);
	fail_analysis(g, text, why);
}

int launch_match_later_differs(const struct launch_list *later, const struct grade *g)
{
	struct launch_list analysed;
	char why[TEST_MESSAGE_LEN / 2];
	return g->analysis && launch_list_from_metrics(g->analysis, &analysed) == 0 &&
	       launch_lists_other(later, "a later call", &analysed, "the analysed call", why, sizeof why);
}

/* Whether a later call at the analysis shape launched otherwise than the
 * analysed call (launch_match.h); if so every analysis test fails. */
static void later_other(const struct run_context *ctx, const struct launch_list *later, const char *later_name,
			struct grade *g)
{
	struct launch_list analysed;
	char why[TEST_MESSAGE_LEN / 2], text[TEST_MESSAGE_LEN], shape[64];
	const char *analysed_name = g->figures.second_call ? "the analysis run, the second call of its process,"
							   : "the analysis run, the first call of its process,";
	if (launch_list_from_metrics(g->analysis, &analysed) < 0 ||
	    !launch_lists_other(later, later_name, &analysed, analysed_name, why, sizeof why))
		return;
	struct shape s = analysis_shape_choose(ctx->rubric, ctx->seed);
	snprintf(text, sizeof text, "not believed: at %s, %s. The analysis must be of the code that is "
		 "graded: every call after the first must launch the same kernels, as many times each (a "
		 "first call may differ, such as a warm-up: the analysis then runs on the second call).",
		 shape_format(&s, shape, sizeof shape), why);
	fail_analysis(g, text, why);
}

void launch_match_later_call(const struct run_context *ctx, const struct launch_list *later, struct grade *g)
{
	/* An analysis run that did not end right failed its tests already,
	 * saying why (analysis_run.h): that is not hidden. */
	if (g->analysis && g->figures.shape[0])
		later_other(ctx, later, "a later call (a correctness test's)", g);
}

void gpu_launches_read(const struct run_context *gpu, const struct harness_report *rep, int first,
		       struct gpu_launches *out)
{
	struct shape s = analysis_shape_choose(gpu->rubric, gpu->seed);
	int digest = output_sent_as_digest(gpu->lab->out_count(&s), first, 0);
	memset(out, 0, sizeof(*out));
	out->have = 1;
	out->right = correctness_judge_against(gpu->lab, &s, gpu->seed, rep, NULL, digest, &out->failure,
					       out->why, sizeof out->why);
	const json_t *log = rep->done ? json_object_get(rep->done, "launches") : NULL;
	out->logged = log != NULL;
	out->unreadable = log && launch_list_from_log(log, json_is_true(json_object_get(rep->done,
								"launches_overflow")), &out->list) < 0;
}

/* Why the GPU's run dev does not stand for the analysed one, or NULL. In
 * seen: same_launches, the launches were the same, whether or not the GPU's
 * output was right (a racy kernel's is wrong by chance, and its analysis
 * still is of the program the GPU ran); emulator_within, the emulator's were
 * among the GPU's (its run ended at a fault); gpu_stopped, the GPU's run
 * ended with a CUDA error itself, before it could send its launches. */
static const char *compare(const struct gpu_launches *dev, const json_t *metrics, char *why, size_t len,
			   struct launch_match *seen)
{
	struct launch_list emu;
	char differ[TEST_MESSAGE_LEN / 2];
	snprintf(why, len, "%s", dev->why);
	if (!dev->logged) {
		seen->gpu_stopped = !dev->right && dev->failure.kind == FAILURE_CUDA_ERROR;
		if (dev->right)
			snprintf(why, len, "the GPU's run sent no launch log");
		return why;
	}
	if (dev->unreadable || launch_list_from_metrics(metrics, &emu) < 0) {
		if (dev->right)
			snprintf(why, len, "a list of launches could not be read");
		return why;
	}
	seen->emulator_within = launch_list_within(&emu, &dev->list);
	if (launch_lists_differ(&emu, &dev->list, differ, sizeof differ)) {
		snprintf(why, len, "%s", differ);
		return why;
	}
	seen->same_launches = 1;
	return dev->right ? NULL : why;
}

/* The GPU's run at the analysis shape, first in a process of its own, as in
 * the emulator's analysis run. Returns -1 with why where it did not start. */
static int run_alone(const struct run_context *gpu, struct gpu_launches *dev, char *why, size_t len)
{
	struct shape s = analysis_shape_choose(gpu->rubric, gpu->seed);
	struct harness_report rep;
	char err[256];
	if (harness_correct(gpu, &s, gpu->seed, 0, NULL, &rep, err, sizeof err) < 0) {
		snprintf(why, len, "the GPU's run at this shape could not start: %s", err);
		return -1;
	}
	gpu_launches_read(gpu, &rep, 1, dev);
	harness_report_free(&rep);
	return 0;
}

void launch_match_apply(const struct run_context *gpu, const struct gpu_launches *in_sizes, struct grade *g)
{
	int analysed = 0;
	for (int i = 0; i < g->n_tests; i++)
		analysed |= g->tests[i].group == GROUP_ANALYSIS && g->tests[i].status == TEST_PASSED;
	/* Nothing believed yet, and no race or access outside a buffer to
	 * fail a size for: nothing to compare. */
	if (!g->analysis || (!analysed && !g->race.found && !g->bounds.found))
		return;
	struct shape s = analysis_shape_choose(gpu->rubric, gpu->seed);
	char shape[64], why[TEST_MESSAGE_LEN / 2] = "";
	shape_format(&s, shape, sizeof shape);
	struct launch_match seen = { 0 };
	const char *differ = in_sizes && in_sizes->have ? compare(in_sizes, g->analysis, why, sizeof why, &seen)
							: why;
	/* Not settled by the run after the correctness sizes (a program whose
	 * first call launches otherwise, a wrong output, a run that did not
	 * come): a process of its own, whose first call this is. Made the
	 * first call of the correctness process instead, it saved a CUDA
	 * context a student but no time on one GPU, and a kernel that never
	 * ends paid a limit twice (docs/results/gpu-2026-11-27-shared-seed/,
	 * calls 31 and 32). A run after the sizes that ran past its limit is
	 * not run again: it would pay that limit twice. */
	int hung = in_sizes && in_sizes->have && in_sizes->failure.kind == FAILURE_TIME_LIMIT;
	if (differ && !hung) {
		struct gpu_launches *alone = malloc(sizeof(*alone));
		if (!alone || run_alone(gpu, alone, why, sizeof why) < 0) {
			if (!alone)
				snprintf(why, sizeof why, "the GPU's run at this shape could not start: out of memory");
			not_believed(g, shape, why);
			free(alone);
			return;
		}
		seen = (struct launch_match){ 0 };
		differ = compare(alone, g->analysis, why, sizeof why, &seen);
		free(alone);
		seen.own_process = 1;
	}
	if (differ && (seen.emulator_within || seen.gpu_stopped) && g->bounds.found) {
		/* The emulator's run stopped at its fault, and its analysis test
		 * says so; the GPU ran on, the same program, or stopped too. */
		g->launch_match = (struct launch_match){ .checked = 1, .believed = 0 };
		snprintf(g->launch_match.why, sizeof g->launch_match.why, "the emulator's run stopped at "
			 "its access outside a buffer (%s:%ld), %s", g->bounds.file, g->bounds.line,
			 seen.gpu_stopped ? "and the GPU's run of that size ended with a CUDA error"
					  : "after launches that are all among the GPU's");
	} else if (differ) {
		not_believed(g, shape, why);
	} else {
		g->launch_match = (struct launch_match){ .checked = 1, .believed = 1 };
		/* Settled by a run first in its process: the call after the
		 * sizes, a later one, must launch what the analysed call did. */
		if (seen.own_process && in_sizes && in_sizes->have && in_sizes->logged && !in_sizes->unreadable)
			later_other(gpu, &in_sizes->list, "the GPU's call after the correctness sizes", g);
	}
	g->launch_match.same_launches = seen.same_launches;
	g->launch_match.emulator_within = seen.emulator_within;
	g->launch_match.gpu_stopped = seen.gpu_stopped;
	g->launch_match.own_process = seen.own_process;
}
