/* The GPU's launches at the analysis shape, against the emulator's (see launch_match.h). */
#include "steps/launch_match.h"

#include <stdio.h>
#include <string.h>

#include "steps/analysis_shape.h"
#include "steps/correctness.h"
#include "steps/harness_door.h"

/* Every analysis test fails with why: its figures are of another program. */
static void not_believed(struct grade *g, const char *shape, const char *why)
{
	char text[TEST_MESSAGE_LEN];
	snprintf(text, sizeof text, "not believed: the emulator's build and the GPU's are not the same "
		 "program at %s: %s. The analysis must be of the code the GPU runs.", shape, why);
	for (int i = 0; i < g->n_tests; i++)
		if (g->tests[i].group == GROUP_ANALYSIS &&
		    (g->tests[i].status == TEST_PASSED || g->tests[i].status == TEST_FAILED))
			test_fail_as(&g->tests[i], FAILURE_NOT_BELIEVED, "%s", text);
	g->launch_match = (struct launch_match){ .checked = 1, .believed = 0 };
	snprintf(g->launch_match.why, sizeof g->launch_match.why, "%s", why);
}

/* Why the GPU's run rep does not stand for the analysed one, or NULL. In
 * seen: same_launches, the launches were the same, whether or not the GPU's
 * output was right (a racy kernel's is wrong by chance, and its analysis
 * still is of the program the GPU ran); emulator_within, the emulator's were
 * among the GPU's (its run ended at a fault); gpu_stopped, the GPU's run
 * ended with a CUDA error itself, before it could send its launches. */
static const char *compare(const struct run_context *gpu, const struct shape *s,
			   const struct harness_report *rep, const json_t *metrics, char *why, size_t len,
			   struct launch_match *seen)
{
	struct launch_list emu, dev;
	struct failure f;
	char differ[TEST_MESSAGE_LEN / 2];
	int right = correctness_judge(gpu->lab, s, gpu->seed, rep, &f, why, len);
	const json_t *log = rep->done ? json_object_get(rep->done, "launches") : NULL;
	if (!log) {
		seen->gpu_stopped = !right && f.kind == FAILURE_CUDA_ERROR;
		if (right)
			snprintf(why, len, "the GPU's run sent no launch log");
		return why;
	}
	if (launch_list_from_metrics(metrics, &emu) < 0 ||
	    launch_list_from_log(log, json_is_true(json_object_get(rep->done, "launches_overflow")), &dev) < 0) {
		if (right)
			snprintf(why, len, "a list of launches could not be read");
		return why;
	}
	seen->emulator_within = launch_list_within(&emu, &dev);
	if (launch_lists_differ(&emu, &dev, differ, sizeof differ)) {
		snprintf(why, len, "%s", differ);
		return why;
	}
	seen->same_launches = 1;
	return right ? NULL : why;
}

void launch_match_apply(const struct run_context *gpu, struct grade *g)
{
	int analysed = 0;
	for (int i = 0; i < g->n_tests; i++)
		analysed |= g->tests[i].group == GROUP_ANALYSIS && g->tests[i].status == TEST_PASSED;
	/* Nothing believed yet, and no race or access outside a buffer to
	 * fail a size for: nothing to compare. */
	if (!g->analysis || (!analysed && !g->race.found && !g->bounds.found))
		return;
	struct shape s = analysis_shape_choose(gpu->rubric, gpu->seed);
	char shape[64], why[TEST_MESSAGE_LEN / 2], err[256];
	shape_format(&s, shape, sizeof shape);
	struct harness_report rep;
	/* A process of its own, whose first call this is, as in the emulator's
	 * analysis run. Made instead the first call of the correctness
	 * process, it saved a CUDA context a student but no time, and a kernel
	 * that never ends paid a limit twice (docs/results/
	 * gpu-2026-11-27-shared-seed/, calls 31 and 32). */
	if (harness_correct(gpu, &s, gpu->seed, 0, NULL, &rep, err, sizeof err) < 0) {
		snprintf(why, sizeof why, "the GPU's run at this shape could not start: %s", err);
		not_believed(g, shape, why);
		return;
	}
	struct launch_match seen = { 0 };
	const char *differ = compare(gpu, &s, &rep, g->analysis, why, sizeof why, &seen);
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
	}
	g->launch_match.same_launches = seen.same_launches;
	g->launch_match.emulator_within = seen.emulator_within;
	g->launch_match.gpu_stopped = seen.gpu_stopped;
	harness_report_free(&rep);
}
