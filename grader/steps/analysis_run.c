/* The emulator's analysis run (see analysis_run.h). */
#include "steps/analysis_run.h"

#include <stdio.h>

#include "steps/analysis.h"
#include "steps/analysis_shape.h"
#include "steps/correctness.h"
#include "steps/findings.h"
#include "steps/given_lines.h"
#include "steps/harness_door.h"

void analysis_run(const struct grade_request *req, const struct run_context *ctx,
		  const struct build_result *use, int refused, const char *build_log, int after_a_call,
		  struct grade *g)
{
	const struct rubric *r = req->rubric;
	if (refused) {
		struct test_result *t = grade_add_test(g, "analysis", GROUP_ANALYSIS, r->analysis_points);
		test_fail(t, "the emulator's build of your file was not analysed: %.900s", build_log);
		return;
	}
	if (!use) {
		struct test_result *t = grade_add_test(g, "analysis", GROUP_ANALYSIS, 0);
		t->status = TEST_NOT_MEASURED;
		snprintf(t->message, sizeof(t->message), "the emulator could not build this file, "
			 "so it was not analysed: %.900s", build_log);
		return;
	}
	char err[256];
	struct harness_report rep;
	struct shape shape = analysis_shape_choose(r, ctx->seed);
	g->figures.second_call = after_a_call;
	if (harness_analysis(ctx, use->harness, &shape, after_a_call, &rep, err, sizeof(err)) < 0) {
		struct test_result *t = grade_add_test(g, "analysis", GROUP_ANALYSIS, r->analysis_points);
		test_fail_as(t, FAILURE_NOT_STARTED, "the grader could not start the emulator: %s", err);
		return;
	}
	/* The run's output is checked like a correctness test's: figures of a
	 * run that did not compute the answer (a decoy) are not believed. */
	char msg[TEST_MESSAGE_LEN];
	struct failure f;
	int right = correctness_judge(req->lab, &shape, ctx->seed, &rep, &f, msg, sizeof(msg));
	if (!right || !rep.metrics || rep.corrupt) {
		struct test_result *t = grade_add_test(g, "analysis", GROUP_ANALYSIS, r->analysis_points);
		char found[600] = "", text[64];
		if (!rep.corrupt && rep.done)
			findings_bounds(rep.done, shape_format(&shape, text, sizeof(text)), &g->bounds);
		/* Not graded, but not thrown away: what the emulator found in the
		 * failing run is most often why it failed. */
		if (rep.metrics && !rep.corrupt) {
			g->analysis = json_incref(rep.metrics);
			given_lines_mark_grade(req->lab, g);
			findings_describe(rep.metrics, found, sizeof(found));
		}
		if (!right) {
			test_fail(t, "the analysis run failed, so its figures are not graded: %s%s%s", msg,
				  found[0] ? "\nWhat the emulator found there: " : "", found);
			t->failure = f;
		} else
			test_fail(t, "the emulator sent no metrics");
	} else {
		char text[64];
		shape_format(&shape, text, sizeof(text));
		snprintf(g->figures.shape, sizeof(g->figures.shape), "%s", text);
		g->analysis = json_incref(rep.metrics);
		given_lines_mark_grade(req->lab, g);
		analysis_grade(r, &shape, rep.metrics, g);
	}
	harness_report_free(&rep);
}
