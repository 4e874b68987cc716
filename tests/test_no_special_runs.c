/*
 * No special runs: the emulator's prediction of a kernel's speed comes from
 * its traced correctness runs, scaled to the graded size, never from a run at
 * the graded size that nothing checks. A file that launches a faster kernel
 * only at the graded performance size (2^28) gains nothing over its honest
 * version, and the report says which run the prediction came from.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "grade_runner.h"

static double group_points(json_t *report, const char *group)
{
	json_t *g = json_object_get(json_object_get(report, "groups"), group);
	return json_number_value(json_object_get(g, "points"));
}

static double predicted(json_t *report)
{
	json_t *m = json_object_get(report, "metrics");
	json_t *v = json_object_get(m, "predicted_percent_of_copy");
	return v ? json_number_value(v) : -1;
}

/* Grades the hostile file and its honest version; the hostile one may score
 * no more performance points, and its prediction is within a point of the
 * honest one's (the same kernels run at every size the emulator runs). */
static void no_gain(const char *lab, const char *hostile, const char *honest)
{
	struct graded h, o;
	cr_assert_eq(run_grade(lab, hostile, "emu", NULL, &h), 0);
	cr_assert_eq(run_grade(lab, honest, "emu", NULL, &o), 0);
	cr_assert_not_null(h.report, "%s: no report\n%s", hostile, h.output);
	cr_assert_not_null(o.report, "%s: no report\n%s", honest, o.output);
	cr_expect_str_eq(group_verdict(h.report, "correctness"), "pass", "%s", h.output);
	double hp = group_points(h.report, "performance"), op = group_points(o.report, "performance");
	cr_expect(hp <= op + 1e-9, "%s: %.2f performance points, its honest version %.2f\n%s", hostile, hp, op,
		  h.output);
	double hpred = predicted(h.report), opred = predicted(o.report);
	cr_expect(hpred >= 0 && opred >= 0, "no prediction\n%s\n%s", h.output, o.output);
	cr_expect(hpred - opred < 1.0, "%s predicted %.1f%% of copy, its honest version %.1f%%", hostile,
		  hpred, opred);
	const char *why = json_string_value(json_object_get(json_object_get(h.report, "metrics"),
							    "predicted_why"));
	cr_expect(why && strstr(why, "traced correctness run"), "%s", h.output);
	graded_free(&h);
	graded_free(&o);
}

Test(no_special_runs, lab4_fast_kernel_only_at_the_graded_size, .timeout = 600)
{
	if (!have_emulator())
		cr_skip_test("the emulator is not built (build/emu/cuemu-cc): run make");
	no_gain("lab4", "tests/fixtures/hostile/switch_at_perf_size.cu",
		"tests/gpu/heldout/lab4_gridstride_1x_occ12.cu");
}

Test(no_special_runs, lab2_copy_only_at_the_graded_size, .timeout = 600)
{
	if (!have_emulator())
		cr_skip_test("the emulator is not built (build/emu/cuemu-cc): run make");
	no_gain("lab2", "tests/fixtures/hostile/switch_at_perf_size_lab2.cu",
		"tests/fixtures/lab2/blelloch_unpadded.cu");
}

/* A kernel that fails correctness predicts nothing, and the report says
 * so rather than why its traced run went wrong (the tests say that). One
 * file is wrong above a power of two; one leaves most of the data untouched
 * (one block where the data needs a thousand), which would otherwise be
 * predicted far above the copy ceiling; one writes past a shared array,
 * which ends its traced run. */
Test(no_special_runs, a_failing_kernel_predicts_nothing, .timeout = 600)
{
	if (!have_emulator())
		cr_skip_test("the emulator is not built (build/emu/cuemu-cc): run make");
	const char *files[][2] = { { "lab1", "tests/fixtures/lab1/pow2_only.cu" },
				   { "lab1", "tests/fixtures/lab1/one_block.cu" },
				   { "lab2", "tests/fixtures/emu_faults/shared_past_blelloch.cu" } };
	for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
		struct graded g;
		cr_assert_eq(run_grade(files[i][0], files[i][1], "emu", NULL, &g), 0);
		cr_assert_not_null(g.report, "%s", g.output);
		json_t *m = json_object_get(g.report, "metrics");
		const char *err = json_string_value(json_object_get(m, "prediction_error"));
		cr_expect_null(json_object_get(m, "predicted_percent_of_copy"), "%s: %s", files[i][1], g.output);
		cr_expect(err && strstr(err, "fails correctness"), "%s: %s", files[i][1], g.output);
		graded_free(&g);
	}
}

/* A file that runs good code only where the emulator traces it (it tells a
 * traced block by its lockstep) gains nothing: the prediction's runs trace
 * a sample of blocks, the others ran code the sample never ran, and no
 * speed is predicted from them. It scores no more than the honest naive
 * transpose. */
Test(no_special_runs, good_code_only_where_traced_gains_nothing, .timeout = 600)
{
	if (!have_emulator())
		cr_skip_test("the emulator is not built (build/emu/cuemu-cc): run make");
	struct graded h, o;
	cr_assert_eq(run_grade("lab3", "tests/fixtures/hostile/lockstep_detect.cu", "emu", NULL, &h), 0);
	cr_assert_eq(run_grade("lab3", "tests/fixtures/lab3/naive.cu", "emu", NULL, &o), 0);
	cr_assert_not_null(h.report, "%s", h.output);
	cr_assert_not_null(o.report, "%s", o.output);
	double hs = json_number_value(json_object_get(h.report, "score"));
	double os = json_number_value(json_object_get(o.report, "score"));
	cr_expect(hs <= os + 1e-9, "the watched-only tile scores %.2f, the naive transpose %.2f\n%s", hs, os,
		  h.output);
	cr_expect_lt(predicted(h.report), 0, "a prediction was made from unrepresentative blocks\n%s", h.output);
	cr_expect(strstr(h.output, "do not stand for the others"), "%s", h.output);
	graded_free(&h);
	graded_free(&o);
}
