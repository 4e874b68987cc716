/*
 * One honest grade: one scale whatever happened (steps/scale.h),
 * the rubric's gates (steps/gates.h), points rounded to 2 decimals, and
 * results.json that Gradescope reads the way the grader means it.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "batch/batch.h"
#include "report/report_text.h"
#include "steps/gates.h"
#include "steps/scale.h"
#include "sys/kit_paths.h"

static struct rubric lab2, lab3;
static struct grade g;

static void load(const char *file, int rank, struct rubric *r)
{
	char path[1024], err[1024] = "";
	cr_assert_eq(rubric_load(kit_path(path, sizeof(path), file), rank, r, err, sizeof(err)), 0, "%s", err);
}

static void setup(void)
{
	load("labs/lab2-blelloch-scan/lab.ini", 1, &lab2);
	load("labs/lab3-transpose/lab.ini", 2, &lab3);
	grade_init(&g, NULL);
}

static void teardown(void)
{
	grade_free(&g);
	rubric_free(&lab2);
	rubric_free(&lab3);
}

static struct test_result *add(const char *name, enum test_group group, enum test_status st,
			       double points, double max)
{
	struct test_result *t = grade_add_test(&g, name, group, max);
	t->status = st;
	t->points = points;
	return t;
}

static const struct test_result *find(const char *name)
{
	for (int i = 0; i < g.n_tests; i++)
		if (strcmp(g.tests[i].name, name) == 0)
			return &g.tests[i];
	return NULL;
}

/* t is the analysis check c (the gates find it by these, not by its name). */
static void check(struct test_result *t, enum analysis_check c)
{
	t->kind = KIND_ANALYSIS_CHECK;
	t->check = c;
}

/* A correct, analysed lab 2 grade, the work-efficiency check as given. */
static void lab2_grade(enum test_status work_efficiency, double perf_points)
{
	add("build (nvcc)", GROUP_BUILD, TEST_PASSED, 0, 0);
	add("symbols", GROUP_INTEGRITY, TEST_PASSED, 0, 0);
	add("correctness 1", GROUP_CORRECTNESS, TEST_PASSED, 50, 50);
	add("bandwidth 2^28", GROUP_PERFORMANCE, perf_points >= 40 ? TEST_PASSED : TEST_FAILED, perf_points, 40);
	check(add("analysis: races", GROUP_ANALYSIS, TEST_PASSED, 10.0 / 3, 10.0 / 3), CHECK_RACES);
	check(add("analysis: uninitialised shared reads", GROUP_ANALYSIS, TEST_PASSED, 10.0 / 3, 10.0 / 3),
	      CHECK_UNINIT_SHARED_READS);
	check(add("analysis: work-efficiency", GROUP_ANALYSIS, work_efficiency,
		  work_efficiency == TEST_PASSED ? 10.0 / 3 : 0, 10.0 / 3), CHECK_WORK);
}

TestSuite(honest_grade, .init = setup, .fini = teardown);

Test(honest_grade, a_file_that_did_not_build_is_out_of_100)
{
	add("build (nvcc)", GROUP_BUILD, TEST_FAILED, 0, 0);
	g.build_failed = 1;
	scale_settle(&lab3, NULL, &g);
	cr_expect_float_eq(grade_max_score(&g), 100, 1e-9);
	cr_expect_float_eq(grade_score(&g), 0, 1e-9);
	const char *groups[] = { "correctness", "performance", "analysis" };
	double points[] = { 50, 40, 10 };
	for (int i = 0; i < 3; i++) {
		const struct test_result *t = find(groups[i]);
		cr_assert_not_null(t, "no %s test", groups[i]);
		cr_expect_eq(t->status, TEST_FAILED);
		cr_expect_float_eq(t->max_points, points[i], 1e-9);
		cr_expect_str_eq(t->message, "not graded: the file did not compile");
	}
}

Test(honest_grade, a_refused_file_is_out_of_100)
{
	add("build (nvcc)", GROUP_BUILD, TEST_PASSED, 0, 0);
	add("symbols", GROUP_INTEGRITY, TEST_FAILED, 0, 0);
	scale_settle(&lab3, NULL, &g);
	cr_expect_float_eq(grade_max_score(&g), 100, 1e-9);
	cr_expect_str_eq(find("correctness")->message, "not graded: the integrity check refused the file");
	cr_expect_eq(grade_passed(&g), 0);
}

Test(honest_grade, what_could_not_be_measured_keeps_its_points_and_scores_0)
{
	add("build (emulator)", GROUP_BUILD, TEST_PASSED, 0, 0);
	add("correctness 1x1", GROUP_CORRECTNESS, TEST_PASSED, 50, 50);
	add("bandwidth 16384x16384", GROUP_PERFORMANCE, TEST_NOT_MEASURED, 0, 0);
	struct test_result *a = add("analysis", GROUP_ANALYSIS, TEST_NOT_MEASURED, 0, 0);
	snprintf(a->message, sizeof(a->message), "the emulator could not build this file");
	scale_settle(&lab3, NULL, &g);
	cr_expect_float_eq(grade_max_score(&g), 100, 1e-9);
	cr_expect_float_eq(grade_score(&g), 50, 1e-9);
	cr_expect_float_eq(find("bandwidth 16384x16384")->max_points, 40, 1e-9);
	cr_expect_float_eq(find("analysis")->max_points, 10, 1e-9);
	cr_expect_eq(grade_passed(&g), 0, "points that could not be shown are not a pass");
	cr_expect_eq(g.n_tests, 4, "nothing added where a test carries the group's points");
}

Test(honest_grade, a_whole_grade_is_left_as_it_is)
{
	lab2_grade(TEST_PASSED, 40);
	int n = g.n_tests;
	scale_settle(&lab2, NULL, &g);
	cr_expect_eq(g.n_tests, n);
	cr_expect_float_eq(grade_score(&g), 100, 1e-9);
	cr_expect_float_eq(grade_max_score(&g), 100, 1e-9);
}

Test(honest_grade, a_given_reason_is_every_missing_groups_message)
{
	scale_settle(&lab3, "no submission: expected transpose.cu", &g);
	cr_expect_float_eq(grade_max_score(&g), 100, 1e-9);
	cr_expect_str_eq(find("performance")->message, "no submission: expected transpose.cu");
}

Test(honest_grade, lab2_gates_speed_on_work_efficiency)
{
	cr_assert(lab2.performance_gate[CHECK_WORK], "lab 2 gates on work-efficiency");
	lab2_grade(TEST_FAILED, 38.67);
	gates_apply(&lab2, 1, &g);
	const struct test_result *t = find("bandwidth 2^28");
	cr_expect_float_eq(t->points, 0, 1e-9);
	cr_expect_eq(t->status, TEST_FAILED);
	cr_expect(strstr(t->message, "no points: the performance points count only when \"analysis: "
			 "work-efficiency\" passes") == t->message, "%s", t->message);
	cr_expect_leq(grade_score(&g), 70, "a scan that is not work-efficient: at most 70");
}

Test(honest_grade, an_open_gate_keeps_the_points)
{
	lab2_grade(TEST_PASSED, 38.67);
	gates_apply(&lab2, 1, &g);
	cr_expect_float_eq(find("bandwidth 2^28")->points, 38.67, 1e-9);
	cr_expect_float_eq(grade_score(&g), 98.67, 1e-9);
}

Test(honest_grade, a_check_that_never_ran_keeps_the_gate_shut)
{
	add("correctness 1", GROUP_CORRECTNESS, TEST_PASSED, 50, 50);
	add("bandwidth 2^28", GROUP_PERFORMANCE, TEST_PASSED, 40, 40);
	add("analysis", GROUP_ANALYSIS, TEST_NOT_MEASURED, 0, 0);
	gates_apply(&lab2, 1, &g);
	const struct test_result *t = find("bandwidth 2^28");
	cr_expect_float_eq(t->points, 0, 1e-9);
	cr_expect(strstr(t->message, "could not be checked") != NULL, "%s", t->message);
}

Test(honest_grade, lab3_gates_speed_on_coalescing)
{
	cr_expect(lab3.performance_gate[CHECK_LOAD_SECTORS]);
	cr_expect(lab3.performance_gate[CHECK_STORE_SECTORS]);
	cr_expect(!lab3.performance_gate[CHECK_SHARED_WAVEFRONTS], "bank conflicts cost speed, not the gate");
}

Test(honest_grade, analysis_counts_only_for_a_correct_kernel)
{
	lab2_grade(TEST_PASSED, 0);
	g.tests[2].status = TEST_FAILED;
	g.tests[2].points = 0;
	gates_apply(&lab2, 0, &g);
	const struct test_result *t = find("analysis: races");
	cr_expect_float_eq(t->points, 0, 1e-9);
	cr_expect_float_eq(t->max_points, 10.0 / 3, 1e-9, "the maximum stays");
	cr_expect(strstr(t->message, "analysis counts only once every correctness test passes") != NULL,
		  "%s", t->message);
	cr_expect_float_eq(grade_score(&g), 0, 1e-9);
}

Test(honest_grade, points_are_rounded_to_2_decimals)
{
	cr_expect_float_eq(points_round(60.00000000000001), 60, 0);
	cr_expect_float_eq(points_round(10.0 / 3), 3.33, 0);
	cr_expect_float_eq(points_round(-1e-12), 0, 0);
	for (int i = 0; i < 3; i++)
		add("third", GROUP_ANALYSIS, TEST_PASSED, 10.0 / 3, 10.0 / 3);
	add("correctness", GROUP_CORRECTNESS, TEST_PASSED, 50, 50);
	cr_expect_float_eq(grade_score(&g), 60, 0, "the sum, then rounded: 60, not 60.00000000000001");
	char buf[32];
	cr_expect_str_eq(report_points(grade_score(&g), buf, sizeof(buf)), "60");
}

Test(honest_grade, results_json_fails_what_could_not_be_measured)
{
	add("correctness 1x1", GROUP_CORRECTNESS, TEST_PASSED, 50, 50);
	struct test_result *t = add("analysis", GROUP_ANALYSIS, TEST_NOT_MEASURED, 0, 0);
	snprintf(t->message, sizeof(t->message), "the emulator could not build this file");
	add("bandwidth", GROUP_PERFORMANCE, TEST_FAILED, 40.0 / 3, 40);
	scale_settle(&lab3, NULL, &g);
	json_t *j = gradescope_json(&g, "slow", 1);
	json_t *tests = json_object_get(j, "tests");
	json_t *a = json_array_get(tests, 1);
	cr_expect_str_eq(json_string_value(json_object_get(a, "status")), "failed");
	cr_expect_str_eq(json_string_value(json_object_get(a, "output")), "the emulator could not build this file");
	cr_expect_float_eq(json_number_value(json_object_get(a, "max_score")), 10, 0);
	cr_expect_float_eq(json_number_value(json_object_get(json_array_get(tests, 2), "score")), 13.33, 0);
	cr_expect_float_eq(json_number_value(json_object_get(j, "score")), 63.33, 0);
	cr_expect_float_eq(json_number_value(json_object_get(json_object_get(j, "extra_data"), "max_score")),
			   100, 0);
	json_decref(j);
}

Test(honest_grade, the_graders_copy_becomes_the_students_file)
{
	g.build_failed = 1;
	snprintf(g.build_log, sizeof(g.build_log), "/k/build/work/Ab12/src/transpose.cu:2:7: error: x\n"
		 "/k/build/work/Ab12/src/transpose.cu:3:1: note: y\n");
	struct test_result *t = add("build (nvcc)", GROUP_BUILD, TEST_FAILED, 0, 0);
	snprintf(t->message, sizeof(t->message), "/k/build/work/Ab12/src/transpose.cu did not compile; "
		 "see /k/build/work/Ab12/harness-cuda");
	grade_replace_path(&g, "/k/build/work/Ab12/src/transpose.cu", "transpose.cu");
	grade_replace_path(&g, "/k/build/work/Ab12/", "");
	cr_expect_str_eq(g.build_log, "transpose.cu:2:7: error: x\ntranspose.cu:3:1: note: y\n");
	cr_expect_str_eq(t->message, "transpose.cu did not compile; see harness-cuda");
}

Test(honest_grade, the_gradebook_says_a_gate_took_the_points)
{
	lab2_grade(TEST_FAILED, 30);
	gates_apply(&lab2, 1, &g);
	char verdict[512];
	batch_verdict(&g, verdict, sizeof(verdict));
	cr_expect_str_eq(verdict, "no performance points: a check they depend on did not pass; "
			 "analysis failed: work-efficiency");
}

/* Shares of a group's points are whole cents that add up to the group's
 * points exactly, however many tests share them. */
Test(honest_grade, shares_add_up_to_the_whole)
{
	for (int n = 1; n <= 40; n++) {
		double sum = 0;
		for (int i = 0; i < n; i++) {
			double share = points_share(50, n, i);
			cr_expect_float_eq(share * 100, round(share * 100), 1e-6, "%d of %d: %g", i, n, share);
			sum += share;
		}
		cr_expect_float_eq(sum, 50, 1e-9, "%d shares add up to %.4f", n, sum);
	}
	cr_expect_float_eq(points_share(50, 13, 0), 3.85, 1e-9);
	cr_expect_float_eq(points_share(50, 13, 12), 3.84, 1e-9);
	cr_expect_float_eq(points_share(10, 3, 2), 3.33, 1e-9);
}
