/*
 * One verdict for racy code on both backends (grader/steps/findings.h): a
 * correctness result that depends on a race the emulator found (a read and
 * another thread's write of one word with no barrier between) fails, on a
 * GPU as in the emulator, saying where; a write-write race alone (threads
 * storing the same value) and a race-free file are never docked. The same
 * for a result computed with an access outside a buffer, at which the
 * emulator's analysis run stopped (suite bounds_parity).
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "grade_runner.h"
#include "report/report_json.h"
#include "steps/analysis.h"
#include "steps/findings.h"
#include "steps/gates.h"
#include "steps/grade.h"
#include "steps/rubric.h"

/* The emulator's metrics with one race of kind (RAW, WAR, WAW) between
 * threads of scope ("inter-warp", "intra-warp") at scan.cu:50 and
 * scan.cu:52, seen count times; kind NULL: no race. */
static json_t *metrics_in(const char *kind, const char *scope, long count)
{
	char text[1024];
	if (!kind)
		snprintf(text, sizeof text, "{\"launches\":[{\"kernel\":\"scan\",\"traced_blocks\":2,"
			 "\"races\":[]}],\"totals\":{\"races\":0}}");
	else
		snprintf(text, sizeof text, "{\"launches\":[{\"kernel\":\"scan\",\"traced_blocks\":2,"
			 "\"races\":[{\"kind\":\"%s\",\"scope\":\"%s\",\"space\":\"shared\","
			 "\"first\":{\"file\":\"/tmp/x/scan.cu\",\"line\":50},\"second\":{\"file\":"
			 "\"/tmp/x/scan.cu\",\"line\":52},\"count\":%ld}]}],\"totals\":{\"races\":%ld}}",
			 kind, scope, count, count);
	json_error_t err;
	json_t *m = json_loads(text, 0, &err);
	cr_assert_not_null(m, "test JSON: %s", err.text);
	return m;
}

static json_t *metrics_with(const char *kind, long count)
{
	return metrics_in(kind, "inter-warp", count);
}

/* A grade of backend b with what its steps found before the analysis: size
 * 31 passed, size 1025 wrong at element 7, and the speed scored. */
static void grade_before_analysis(struct grade *g, enum backend b)
{
	grade_init(g, NULL);
	g->backend = b;
	struct test_result *t = grade_add_test(g, "correctness 31", GROUP_CORRECTNESS, 25);
	t->kind = KIND_SIZE;
	shape_parse("31", &t->shape, NULL, 0);
	test_pass(t, "31 elements right");
	t->points = 25;
	t = grade_add_test(g, "correctness 1025", GROUP_CORRECTNESS, 25);
	t->kind = KIND_SIZE;
	shape_parse("1025", &t->shape, NULL, 0);
	test_fail_as(t, FAILURE_WRONG_OUTPUT, "1025: first wrong element is out[7]");
	t->failure.first_wrong = 7;
	t = grade_add_test(g, "bandwidth 2^28", GROUP_PERFORMANCE, 40);
	t->kind = KIND_BANDWIDTH;
	test_pass(t, "80%% of copy");
	t->points = 40;
}

TestSuite(race_parity);

Test(race_parity, a_read_race_is_found_with_its_lines)
{
	struct race_dependence race;
	json_t *m = metrics_with("RAW", 3968);
	findings_race(m, &race);
	cr_assert(race.found);
	cr_expect_eq(race.kind, RACE_RAW);
	cr_expect_str_eq(race.read_file, "scan.cu", "the base name, as the student knows the file");
	cr_expect_eq(race.read_line, 52, "RAW: the read came second");
	cr_expect_eq(race.write_line, 50);
	cr_expect_eq(race.count, 3968);
	json_decref(m);
	/* The same race seen the other way round (the read first) is named at
	 * the same line: the read's. */
	m = metrics_with("WAR", 10);
	findings_race(m, &race);
	cr_expect_eq(race.kind, RACE_WAR);
	cr_expect_eq(race.read_line, 50);
	cr_expect_eq(race.write_line, 52);
	json_decref(m);
}

/* The rule, applied to a GPU's grade: nothing in it depends on the backend. */
Test(race_parity, a_size_that_passed_on_a_gpu_fails_when_its_result_depends_on_a_race)
{
	struct grade g;
	struct race_dependence race;
	json_t *m = metrics_with("RAW", 12);
	findings_race(m, &race);
	grade_before_analysis(&g, BACKEND_CUDA);
	cr_assert_eq(findings_apply_race(&race, &g), 1, "the one size that passed");
	cr_expect_eq(race.sizes_failed, 1);
	const struct test_result *passed = &g.tests[0], *wrong = &g.tests[1];
	cr_expect_eq(passed->status, TEST_FAILED);
	cr_expect_eq(passed->failure.kind, FAILURE_DEPENDS_ON_RACE);
	cr_expect_float_eq(passed->points, 0, 1e-9);
	cr_expect(strstr(passed->message, "31: this result depends on a race at scan.cu:52"), "%s",
		  passed->message);
	cr_expect_eq(wrong->status, TEST_FAILED);
	cr_expect_eq(wrong->failure.kind, FAILURE_WRONG_OUTPUT, "a failure keeps what went wrong");
	cr_expect_eq(wrong->failure.first_wrong, 7);
	cr_expect(strstr(wrong->message, "first wrong element is out[7]") &&
		  strstr(wrong->message, "This result depends on a race at scan.cu:52"), "%s", wrong->message);
	cr_expect_eq(g.tests[2].status, TEST_PASSED, "the rule touches the correctness sizes only");
	gates_apply(&(struct rubric){ 0 }, 0, &g);
	cr_expect_float_eq(g.tests[2].points, 0, 1e-9, "speed counts only for a correct kernel");
	cr_expect_eq(g.tests[2].failure.kind, FAILURE_GATE_SHUT);
	cr_expect_float_eq(grade_score(&g), 0, 1e-9);
	json_decref(m);
	grade_free(&g);
}

/* The JSON report carries the race as data, beside the sentences. */
Test(race_parity, the_json_report_names_the_race)
{
	struct grade g;
	json_t *m = metrics_with("RAW", 7);
	grade_before_analysis(&g, BACKEND_CUDA);
	findings_race(m, &g.race);
	findings_apply_race(&g.race, &g);
	json_t *r = report_json(&g);
	cr_assert_not_null(r);
	json_t *race = json_object_get(json_object_get(r, "metrics"), "race_dependence");
	cr_expect_str_eq(json_string_value(json_object_get(race, "kind")), "RAW");
	cr_expect_str_eq(json_string_value(json_object_get(json_object_get(race, "read"), "file")), "scan.cu");
	cr_expect_eq(json_integer_value(json_object_get(json_object_get(race, "read"), "line")), 52);
	cr_expect_eq(json_integer_value(json_object_get(json_object_get(race, "write"), "line")), 50);
	cr_expect_eq(json_integer_value(json_object_get(race, "sizes_failed")), 1);
	json_decref(r);
	json_decref(m);
	grade_free(&g);
}

Test(race_parity, both_backends_give_the_same_verdicts)
{
	struct grade gpu, emu;
	struct race_dependence race;
	json_t *m = metrics_with("RAW", 5);
	findings_race(m, &race);
	grade_before_analysis(&gpu, BACKEND_CUDA);
	grade_before_analysis(&emu, BACKEND_EMU);
	findings_apply_race(&race, &gpu);
	findings_apply_race(&race, &emu);
	for (int i = 0; i < gpu.n_tests; i++) {
		cr_expect_eq(gpu.tests[i].status, emu.tests[i].status, "%s", gpu.tests[i].name);
		cr_expect_eq(gpu.tests[i].failure.kind, emu.tests[i].failure.kind, "%s", gpu.tests[i].name);
		cr_expect_str_eq(gpu.tests[i].message, emu.tests[i].message);
	}
	cr_expect_float_eq(grade_score(&gpu), grade_score(&emu), 1e-9);
	json_decref(m);
	grade_free(&gpu);
	grade_free(&emu);
}

/* Threads that all store the same value race only in name: the emulator
 * does not see the values, so a write-write race alone docks nothing. */
Test(race_parity, a_write_write_race_alone_is_not_a_dependence)
{
	struct grade g;
	struct race_dependence race;
	json_t *m = metrics_with("WAW", 1000);
	findings_race(m, &race);
	cr_expect_not(race.found);
	grade_before_analysis(&g, BACKEND_EMU);
	cr_expect_eq(findings_apply_race(&race, &g), 0);
	cr_expect_eq(g.tests[0].status, TEST_PASSED);
	cr_expect_null(strstr(g.tests[1].message, "race"), "%s", g.tests[1].message);
	json_decref(m);
	grade_free(&g);
}

/* __syncwarp() orders a warp's threads on a GPU; the emulator's race
 * detector does not see it, so a race inside a warp fails no size. */
Test(race_parity, a_race_inside_one_warp_is_not_a_dependence)
{
	struct race_dependence race;
	json_t *m = metrics_in("RAW", "intra-warp", 100);
	findings_race(m, &race);
	cr_expect_not(race.found);
	json_decref(m);
}

Test(race_parity, race_free_or_hostile_metrics_change_nothing)
{
	const char *hostile[] = {
		"{\"launches\":[{\"races\":[{\"kind\":7,\"count\":5}]}]}",
		"{\"launches\":[{\"races\":[{\"kind\":\"RAW\",\"count\":-5}]}]}",
		"{\"launches\":{\"races\":1}}",
		"[]",
	};
	struct race_dependence race;
	json_t *m = metrics_with(NULL, 0);
	findings_race(m, &race);
	cr_expect_not(race.found);
	json_decref(m);
	for (size_t i = 0; i < sizeof hostile / sizeof hostile[0]; i++) {
		m = json_loads(hostile[i], 0, NULL);
		cr_assert_not_null(m);
		findings_race(m, &race);
		cr_expect_not(race.found, "%s", hostile[i]);
		json_decref(m);
	}
	/* A race without its lines still fails a size, saying what it can. */
	m = json_loads("{\"launches\":[{\"races\":[{\"kind\":\"RAW\",\"scope\":\"inter-warp\",\"count\":2}]}]}",
		       0, NULL);
	findings_race(m, &race);
	cr_expect(race.found);
	cr_expect_str_eq(race.read_file, "?");
	json_decref(m);
}

/* The analysis check of races counts the same races as the rule. */
Test(race_parity, the_races_check_counts_races_with_a_read)
{
	const char *kinds[] = { "WAW", "RAW" };
	for (int k = 0; k < 2; k++) {
		struct rubric r;
		struct grade g;
		memset(&r, 0, sizeof r);
		r.analysis_points = 10;
		for (int i = 0; i < ANALYSIS_CHECKS; i++)
			r.analysis_limit[i] = -1;
		r.analysis_limit[CHECK_RACES] = 0;
		grade_init(&g, NULL);
		json_t *m = metrics_with(kinds[k], 64);
		analysis_grade(&r, &r.analysis_shape, m, &g);
		cr_assert_eq(g.n_tests, 1);
		cr_expect_eq(g.tests[0].status, k == 0 ? TEST_PASSED : TEST_FAILED, "%s: %s", kinds[k],
			     g.tests[0].message);
		cr_expect_float_eq(g.figures.figure[CHECK_RACES], k == 0 ? 0 : 64, 1e-9);
		json_decref(m);
		grade_free(&g);
	}
}

/* Whole grades in the emulator, as a student runs them. */
static void grade_file(const char *lab, const char *file, struct graded *g)
{
	if (!have_emulator())
		cr_skip_test("the emulator is not built (build/emu/cuemu-cc): run make");
	cr_assert_eq(run_grade(lab, file, "emu", NULL, g), 0, "%s", g->output);
	cr_assert_not_null(g->report, "%s", g->output);
}

/* Every correctness test of the report holds words (or, not, none does). */
static void every_size_says(json_t *report, const char *words, int says)
{
	size_t i;
	json_t *t;
	int sizes = 0;
	json_array_foreach(json_object_get(report, "tests"), i, t) {
		if (strcmp(json_string_value(json_object_get(t, "group")), "correctness") != 0)
			continue;
		const char *m = json_string_value(json_object_get(t, "message"));
		sizes++;
		cr_expect(!strstr(m, words) == !says, "%s: %s", json_string_value(json_object_get(t, "name")), m);
		if (says)
			cr_expect(json_is_false(json_object_get(t, "passed")));
	}
	cr_expect_gt(sizes, 5);
}

Test(race_parity, a_transpose_without_its_barrier_fails_every_size_saying_where, .timeout = 300)
{
	struct graded g;
	grade_file("lab3", "tests/fixtures/lab3/no_sync.cu", &g);
	every_size_says(g.report, "depends on a race at transpose.cu:35", 1);
	json_t *race = json_object_get(json_object_get(g.report, "metrics"), "race_dependence");
	cr_expect_eq(json_integer_value(json_object_get(json_object_get(race, "read"), "line")), 35);
	cr_expect_float_eq(json_number_value(json_object_get(g.report, "score")), 0, 1e-9, "%s", g.output);
	graded_free(&g);
}

/* A file none of whose results depends on a race: no size says "race",
 * and the report has no race_dependence. */
static void no_dependence(const char *file, struct graded *g)
{
	grade_file("lab3", file, g);
	every_size_says(g->report, "race", 0);
	cr_expect_null(json_object_get(json_object_get(g->report, "metrics"), "race_dependence"));
}

Test(race_parity, threads_storing_the_same_value_are_not_docked, .timeout = 300)
{
	struct graded g;
	no_dependence("tests/fixtures/lab3/same_value_store.cu", &g);
	cr_expect_eq(g.exit_status, 0, "%s", g.output);
	cr_expect_float_eq(json_number_value(json_object_get(g.report, "score")), 100, 1e-9, "%s", g.output);
	graded_free(&g);
}

Test(race_parity, a_race_free_file_says_nothing_of_races, .timeout = 300)
{
	struct graded g;
	no_dependence("tests/fixtures/lab3/padded.cu", &g);
	graded_free(&g);
}

/* ---- an access outside a buffer ------------------------------------------------------- */

/* The analysis run's last report (MSG_DONE) with its bounds, as the
 * emulator's harness sends it; NULL text: none. */
static json_t *done_with(const char *bounds)
{
	char text[512];
	snprintf(text, sizeof text, "{\"cuda_error\":\"cudaErrorIllegalAddress\"%s%s}", bounds ? ",\"bounds\":" : "",
		 bounds ? bounds : "");
	json_t *d = json_loads(text, 0, NULL);
	cr_assert_not_null(d, "%s", text);
	return d;
}

TestSuite(bounds_parity);

Test(bounds_parity, the_access_is_read_with_its_line_and_hostile_reports_change_nothing)
{
	struct bounds_fault b;
	json_t *d = done_with("{\"file\":\"/tmp/grade-x/scan.cu\",\"line\":60}");
	findings_bounds(d, "2^20+7", &b);
	cr_assert(b.found);
	cr_expect_str_eq(b.file, "scan.cu", "the base name, as the student knows the file");
	cr_expect_eq(b.line, 60);
	cr_expect_str_eq(b.shape, "2^20+7");
	json_decref(d);
	const char *hostile[] = { NULL, "{\"file\":\"scan.cu\",\"line\":0}", "{\"file\":\"scan.cu\",\"line\":-4}",
				  "{\"file\":\"scan.cu\",\"line\":\"60\"}", "{\"file\":7,\"line\":60}", "[]", "60" };
	for (size_t i = 0; i < sizeof hostile / sizeof hostile[0]; i++) {
		d = done_with(hostile[i]);
		findings_bounds(d, "31", &b);
		cr_expect_not(b.found, "%s", hostile[i] ? hostile[i] : "(none)");
		json_decref(d);
	}
}

/* The rule on a GPU's grade: the size that came out right fails, saying
 * where; the wrong one keeps its failure; speed counts for nothing. */
Test(bounds_parity, a_size_that_passed_on_a_gpu_fails_when_computed_outside_a_buffer)
{
	struct grade g;
	json_t *d = done_with("{\"file\":\"scan.cu\",\"line\":60}");
	grade_before_analysis(&g, BACKEND_CUDA);
	findings_bounds(d, "65535", &g.bounds);
	cr_assert_eq(findings_apply_bounds(&g.bounds, &g), 1, "the one size that passed");
	const struct test_result *passed = &g.tests[0], *wrong = &g.tests[1];
	cr_expect_eq(passed->failure.kind, FAILURE_OUTSIDE_BUFFER);
	cr_expect_float_eq(passed->points, 0, 1e-9);
	cr_expect(strstr(passed->message, "31: this result was computed by code that reads or writes outside "
				     "its buffer at scan.cu:60 (the emulator stopped there at 65535"), "%s",
		  passed->message);
	cr_expect_eq(wrong->failure.kind, FAILURE_WRONG_OUTPUT, "a failure keeps what went wrong");
	cr_expect(strstr(wrong->message, "outside its buffer at scan.cu:60 (at 65535)"), "%s", wrong->message);
	gates_apply(&(struct rubric){ 0 }, 0, &g);
	cr_expect_float_eq(grade_score(&g), 0, 1e-9);
	json_t *r = report_json(&g);
	json_t *o = json_object_get(json_object_get(r, "metrics"), "outside_buffer");
	cr_expect_str_eq(json_string_value(json_object_get(o, "file")), "scan.cu");
	cr_expect_eq(json_integer_value(json_object_get(o, "line")), 60);
	cr_expect_eq(json_integer_value(json_object_get(o, "sizes_failed")), 1);
	json_decref(r);
	json_decref(d);
	grade_free(&g);
}

Test(bounds_parity, both_backends_give_the_same_verdicts_and_none_without_a_fault)
{
	struct grade gpu, emu;
	json_t *d = done_with("{\"file\":\"scan.cu\",\"line\":60}");
	grade_before_analysis(&gpu, BACKEND_CUDA);
	grade_before_analysis(&emu, BACKEND_EMU);
	findings_bounds(d, "65535", &gpu.bounds);
	emu.bounds = gpu.bounds;
	findings_apply_bounds(&gpu.bounds, &gpu);
	findings_apply_bounds(&emu.bounds, &emu);
	for (int i = 0; i < gpu.n_tests; i++) {
		cr_expect_eq(gpu.tests[i].status, emu.tests[i].status, "%s", gpu.tests[i].name);
		cr_expect_str_eq(gpu.tests[i].message, emu.tests[i].message);
	}
	grade_free(&gpu);
	json_decref(d);
	d = done_with(NULL);	/* a fault of another kind: a NULL pointer, say */
	grade_before_analysis(&gpu, BACKEND_CUDA);
	findings_bounds(d, "65535", &gpu.bounds);
	cr_expect_eq(findings_apply_bounds(&gpu.bounds, &gpu), 0);
	cr_expect_eq(gpu.tests[0].status, TEST_PASSED);
	json_t *r = report_json(&gpu);
	cr_expect_null(json_object_get(json_object_get(r, "metrics"), "outside_buffer"));
	json_decref(r);
	json_decref(d);
	grade_free(&gpu);
	grade_free(&emu);
}

/* The whole path in the emulator: its runtime names the access, its harness
 * reports it, the analysis keeps it, every size says it. */
Test(bounds_parity, a_load_one_past_the_input_is_named_in_the_emulator, .timeout = 300)
{
	struct graded g;
	grade_file("lab1", "tests/fixtures/lab1/reads_past_input.cu", &g);
	json_t *o = json_object_get(json_object_get(g.report, "metrics"), "outside_buffer");
	cr_expect_str_eq(json_string_value(json_object_get(o, "file")), "scan.cu", "%s", g.output);
	cr_expect_eq(json_integer_value(json_object_get(o, "line")), 28, "%s", g.output);
	every_size_says(g.report, "outside its buffer at scan.cu:28", 1);
	cr_expect_float_eq(json_number_value(json_object_get(g.report, "score")), 0, 1e-9, "%s", g.output);
	graded_free(&g);
}
