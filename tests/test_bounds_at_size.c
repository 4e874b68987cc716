/*
 * A correctness size's own access outside a buffer (findings_bounds_at_size):
 * the emulator stopped at it, the output's guard words changed, or the GPU
 * made an illegal memory access. Then every size fails, on both backends,
 * whichever size the seed gave the analysis run: before, a transpose
 * without bounds checks scored 0 or 10 by the seed on a GPU, as the
 * analysis ran at a size with edge tiles (and stopped at the store) or at
 * one of whole tiles (and saw nothing).
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "grade_runner.h"
#include "labs/lab.h"
#include "report/report_json.h"
#include "steps/analysis_shape.h"
#include "steps/findings.h"
#include "steps/grade.h"
#include "sys/kit_paths.h"

/* A grade with size 32 right and size 33 failed as f says. */
static void grade_with(struct grade *g, const struct failure *f)
{
	grade_init(g, NULL);
	g->backend = BACKEND_CUDA;
	struct test_result *t = grade_add_test(g, "correctness 32", GROUP_CORRECTNESS, 25);
	t->kind = KIND_SIZE;
	shape_parse("32", &t->shape, NULL, 0);
	test_pass(t, "%s", "");
	t->points = 25;
	t = grade_add_test(g, "correctness 33", GROUP_CORRECTNESS, 25);
	t->kind = KIND_SIZE;
	shape_parse("33", &t->shape, NULL, 0);
	test_fail_as(t, f->kind, "33: went wrong");
	t->failure = *f;
}

TestSuite(bounds_at_size);

Test(bounds_at_size, a_size_that_wrote_past_its_output_fails_the_ones_that_came_out_right)
{
	struct failure f = { .kind = FAILURE_WROTE_PAST_OUTPUT };
	struct grade g;
	grade_with(&g, &f);
	findings_bounds_at_size(NULL, "33", &f, &g.bounds);
	cr_assert(g.bounds.found && g.bounds.at_size);
	cr_expect_eq(g.bounds.line, 0, "no line: only the guard words saw it");
	cr_assert_eq(findings_apply_bounds(&g.bounds, &g), 1);
	cr_expect_eq(g.tests[0].failure.kind, FAILURE_OUTSIDE_BUFFER);
	cr_expect(strstr(g.tests[0].message, "32: right at this size, but at 33 the same code wrote past "
					     "the end of its output"), "%s", g.tests[0].message);
	cr_expect_eq(g.tests[1].failure.kind, FAILURE_WROTE_PAST_OUTPUT, "a failure keeps what went wrong");
	json_t *r = report_json(&g);
	json_t *o = json_object_get(json_object_get(r, "metrics"), "outside_buffer");
	cr_expect(json_is_true(json_object_get(o, "seen_by_a_size")));
	cr_expect_str_eq(json_string_value(json_object_get(o, "shape")), "33");
	json_decref(r);
	grade_free(&g);
}

/* The emulator's fault names its line; a GPU's illegal address does not. */
Test(bounds_at_size, the_emulators_fault_keeps_its_line)
{
	struct failure f = { .kind = FAILURE_CUDA_ERROR, .name = "cudaErrorIllegalAddress" };
	json_t *done = json_pack("{s:s, s:{s:s, s:i}}", "cuda_error", "cudaErrorIllegalAddress", "bounds", "file",
				 "/tmp/w/transpose.cu", "line", 26);
	struct bounds_fault b = { 0 };
	findings_bounds_at_size(done, "31x33", &f, &b);
	cr_expect(b.found && b.at_size && b.line == 26 && strcmp(b.file, "transpose.cu") == 0);
	memset(&b, 0, sizeof b);
	findings_bounds_at_size(NULL, "31x33", &f, &b);
	cr_expect(b.found && b.line == 0, "the GPU's illegal address is one too");
	json_decref(done);
}

/* A wrong answer, a crash or another CUDA error is no sign of one. */
Test(bounds_at_size, other_failures_are_no_sign)
{
	const struct failure others[] = {
		{ .kind = FAILURE_WRONG_OUTPUT },
		{ .kind = FAILURE_OUTPUT_NOT_WRITTEN },
		{ .kind = FAILURE_WROTE_INPUT },
		{ .kind = FAILURE_CRASH, .signal = 11 },
		{ .kind = FAILURE_CUDA_ERROR, .name = "cudaErrorLaunchFailure" },
		{ .kind = FAILURE_TIME_LIMIT },
	};
	for (size_t i = 0; i < sizeof others / sizeof others[0]; i++) {
		struct grade g;
		grade_with(&g, &others[i]);
		findings_bounds_at_size(NULL, "33", &others[i], &g.bounds);
		cr_expect_not(g.bounds.found, "failure kind %d", (int)others[i].kind);
		cr_expect_eq(findings_apply_bounds(&g.bounds, &g), 0);
		cr_expect_eq(g.tests[0].status, TEST_PASSED);
		grade_free(&g);
	}
}

/* Seeds that draw each of the analysis sizes lab 3's rubric offers, in
 * seeds[]; returns how many. */
static int one_seed_a_size(unsigned long long *seeds, int most)
{
	const struct lab *lab = lab_find("lab3");
	char ini[1024], err[256];
	struct rubric r;
	cr_assert_eq(rubric_load(kit_path(ini, sizeof ini, "labs/lab3-transpose/lab.ini"), lab->rank, &r, err,
				 sizeof err), 0, "%s", err);
	struct shape drawn[8];
	int n = 0;
	for (unsigned long long seed = 1; seed < 200 && n < most; seed++) {
		struct shape s = analysis_shape_choose(&r, seed);
		int seen = 0;
		for (int i = 0; i < n; i++)
			seen |= shape_equal(&drawn[i], &s);
		if (!seen) {
			drawn[n] = s;
			seeds[n++] = seed;
		}
	}
	return n;
}

/* The whole grade, on the GPU where there is one, else in the emulator: one
 * score for every analysis size the seed may draw. */
Test(bounds_at_size, a_transpose_without_bounds_checks_scores_the_same_for_every_seed, .timeout = 900)
{
	char why[256], arg[64];
	const char *backend = have_gpu(why, sizeof why) ? "cuda" : "emu";
	if (strcmp(backend, "emu") == 0 && !have_emulator())
		cr_skip_test("no GPU (%s) and the emulator is not built: run make", why);
	unsigned long long seeds[8];
	int n = one_seed_a_size(seeds, 8);
	cr_assert_geq(n, 2, "the analysis size depends on the seed");
	for (int i = 0; i < n; i++) {
		struct graded g;
		snprintf(arg, sizeof arg, "--seed=%llu", seeds[i]);
		cr_assert_eq(run_grade("lab3", "tests/fixtures/lab3/no_bounds.cu", backend, arg, &g), 0);
		cr_assert_not_null(g.report, "%s", g.output);
		cr_expect_float_eq(json_number_value(json_object_get(g.report, "score")), 0, 1e-9, "%s %s: %s",
				   backend, arg, g.output);
		cr_expect_str_eq(group_verdict(g.report, "correctness"), "fail");
		graded_free(&g);
	}
}
