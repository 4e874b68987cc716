/*
 * Every solution, skeleton and fixture graded through the emulator, as CI
 * (no GPU) grades them: solutions get full marks, the rest fail as designed.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "e2e_cases.h"
#include "grade_runner.h"
#include "steps/grade_run.h"
#include "sys/kit_paths.h"
#include "test_support.h"

/* 1 when the file's expect-emu line names a check that fails. */
static int expects_failure(const char *file)
{
	FILE *f = fopen(file, "r");
	char line[512];
	int fails = 0;
	for (int n = 0; f && n < 40 && fgets(line, sizeof(line), f); n++)
		if (strstr(line, "expect-emu:") && strstr(line, "=fail"))
			fails = 1;
	if (f)
		fclose(f);
	return fails;
}

/* The verdict a GPU gives the file's performance (its expect-cuda line, or the
 * case's), or "" when it names none. */
static void cuda_performance(const struct e2e_case *c, char *buf, size_t len)
{
	char line[512] = "";
	FILE *f = c->file[0] ? fopen(c->file, "r") : NULL;
	snprintf(line, sizeof(line), "%s", c->expect_cuda);
	for (int n = 0; f && n < 40 && fgets(line, sizeof(line), f) && !strstr(line, "expect-cuda:"); n++)
		;
	if (f)
		fclose(f);
	const char *at = strstr(line, "performance=");
	snprintf(buf, len, "%.*s", at ? (int)strcspn(at + 12, " \n") : 0, at ? at + 12 : "");
}

/* Speed in emulation is the performance model's prediction for a GPU, said to
 * be one (or, where the file failed its calls again, why it scores none): a
 * correct kernel's predicted verdict is the one the H100 measured. */
static void expect_prediction(const struct e2e_case *c, const struct graded *g)
{
	json_t *m = json_object_get(g->report, "metrics");
	const char *gpu = json_string_value(json_object_get(m, "predicted_for"));
	if (strcmp(group_verdict(g->report, "correctness"), "pass") != 0)
		return;
	cr_expect(gpu && json_is_number(json_object_get(m, "predicted_percent_of_copy")),
		  "%s %s: no prediction\n%s", c->lab, c->file, g->output);
	cr_expect(strstr(g->output, "(predicted)") &&
		  (strstr(g->output, "a prediction") || strstr(g->output, "calls the entry point again")),
		  "%s %s: the performance test does not say it is a prediction\n%s", c->lab, c->file,
		  g->output);
	char want[32];
	cuda_performance(c, want, sizeof(want));
	if (want[0])
		cr_expect_str_eq(group_verdict(g->report, "performance"), want, "%s %s: predicted %.1f%%\n%s",
				 c->lab, c->file,
				 json_number_value(json_object_get(m, "predicted_percent_of_copy")), g->output);
}

/* 1 when the kit-relative file includes the toolkit's occupancy header
 * (by name, or pasted together from "cuda_occ" and the rest). */
static int file_includes_toolkit_calculator(const char *file)
{
	char path[1024], line[1024];
	int found = 0;
	FILE *f = fopen(kit_path(path, sizeof(path), file), "r");
	while (f && !found && fgets(line, sizeof(line), f))
		found = strstr(line, "#include") && strstr(line, "cuda_occ");
	if (f)
		fclose(f);
	return found;
}

ParameterizedTestParameters(e2e_emu, grade)
{
	size_t n;
	struct e2e_case *c = e2e_cases(&n);
	return cr_make_param_array(struct e2e_case, c, n, e2e_free);
}

ParameterizedTest(struct e2e_case *c, e2e_emu, grade, .timeout = 600)
{
	if (!have_emulator())
		cr_skip_test("the emulator is not built (build/emu/cuemu-cc): run make");
	if (c->file[0] && file_includes_toolkit_calculator(c->file) && !toolkit_header_present("cuda_occupancy.h"))
		cr_skip_test("%s includes the CUDA toolkit's cuda_occupancy.h, which is not installed here",
			     c->file);
	struct graded g;
	cr_assert_eq(run_grade(c->lab, c->file[0] ? c->file : NULL, "emu", NULL, &g), 0);
	cr_assert_not_null(g.report, "%s %s: no JSON report (exit %d)\n%s", c->lab, c->file,
			   g.exit_status, g.output);
	cr_expect_str_eq(json_string_value(json_object_get(g.report, "backend")), "emu");
	if (strcmp(c->kind, "solution") == 0) {
		cr_expect_eq(g.exit_status, 0, "%s solution: exit %d\n%s", c->lab, g.exit_status, g.output);
		double score = json_number_value(json_object_get(g.report, "score"));
		double max = json_number_value(json_object_get(g.report, "max_score"));
		cr_expect(max > 0 && score == max, "%s solution: %g of %g\n%s", c->lab, score, max, g.output);
	}
	if (c->expect_emu[0])
		expect_groups(c->expect_emu, g.report, g.output);
	if (strcmp(c->kind, "fixture") == 0) {
		char why[512];
		int checked = check_expectations(c->file, "emu", g.report, why, sizeof(why));
		cr_expect_geq(checked, 0, "%s\n%s", why, g.output);
		cr_expect_geq(check_message(c->file, g.report, why, sizeof(why)), 0, "%s\n%s", why, g.output);
		/* A fixture expected to fail a check here must make ./grade exit 1. */
		if (expects_failure(c->file))
			cr_expect_eq(g.exit_status, 1, "%s: expected to fail, exit %d\n%s", c->file,
				     g.exit_status, g.output);
	}
	/* The exit status is the report's verdict: 0 exactly when everything passed. */
	int passed = json_is_true(json_object_get(g.report, "passed"));
	cr_expect_eq(g.exit_status, passed ? 0 : 1, "exit %d but passed=%d\n%s", g.exit_status, passed,
		     g.output);
	char score_why[512];
	cr_expect_geq(check_score(c->file[0] ? c->file : NULL, g.report, score_why, sizeof(score_why)), 0,
		      "%s\n%s", score_why, g.output);
	expect_prediction(c, &g);
	graded_free(&g);
}

/* The rubric can turn predicted grading off: the test is then not measured,
 * and the report still carries the prediction. */
Test(e2e_emu, predicted_grading_turned_off, .timeout = 300)
{
	if (!have_emulator())
		cr_skip_test("the emulator is not built (build/emu/cuemu-cc): run make");
	char text[16384], path[] = "/tmp/kit-rubric-XXXXXX", arg[64], ini[1024];
	FILE *in = fopen(kit_path(ini, sizeof(ini), "labs/lab3-transpose/lab.ini"), "r");
	cr_assert_not_null(in);
	size_t n = fread(text, 1, sizeof(text) - 1, in);
	fclose(in);
	text[n] = 0;
	char *at = strstr(text, "[performance]\n");
	cr_assert_not_null(at);
	int fd = mkstemp(path);
	cr_assert_geq(fd, 0);
	FILE *out = fdopen(fd, "w");
	fprintf(out, "%.*s[performance]\npredicted = 0\n%s", (int)(at - text), text, at + strlen("[performance]\n"));
	fclose(out);
	snprintf(arg, sizeof(arg), "--rubric=%s", path);
	struct graded g;
	cr_assert_eq(run_grade("lab3", "tests/fixtures/lab3/padded.cu", "emu", arg, &g), 0);
	unlink(path);
	cr_assert_not_null(g.report, "%s", g.output);
	cr_expect_str_eq(group_verdict(g.report, "performance"), "zero");
	cr_expect(strstr(g.output, "bandwidth needs a GPU"), "%s", g.output);
	json_t *m = json_object_get(g.report, "metrics");
	cr_expect(json_is_number(json_object_get(m, "predicted_percent_of_copy")), "%s", g.output);
	graded_free(&g);
}

/* Coalesced vector accesses (16 bytes a lane) pass the coalescing checks:
 * g++ splits each into 4-byte pieces, which the emulator puts back together.
 * Lab 3's float4 transpose at 1024x2048 (seed 3) and 1000x1000 (seed 2), where
 * it takes its float4 path (at 1023x2049 it takes a scalar one whose lanes
 * read 16 bytes apart, which is not coalesced); lab 4's uint4 copy. */
Test(e2e_emu, coalesced_vector_accesses_pass, .timeout = 600)
{
	if (!have_emulator())
		cr_skip_test("the emulator is not built (build/emu/cuemu-cc): run make");
	static const struct { const char *lab, *file, *arg; } runs[] = {
		{ "lab3", "tests/gpu/heldout/lab3_tile_float4.cu", "--seed=3" },
		{ "lab3", "tests/gpu/heldout/lab3_tile_float4.cu", "--seed=2" },
		{ "lab4", "tests/gpu/heldout/lab4_uint4_x4_occ12.cu", "--seed=1" },
	};
	for (size_t i = 0; i < sizeof runs / sizeof runs[0]; i++) {
		struct graded g;
		cr_assert_eq(run_grade(runs[i].lab, runs[i].file, "emu", runs[i].arg, &g), 0);
		cr_assert_not_null(g.report, "%s", g.output);
		cr_expect_str_eq(group_verdict(g.report, "analysis"), "pass", "%s %s\n%s", runs[i].file,
				 runs[i].arg, g.output);
		cr_expect_str_eq(group_verdict(g.report, "performance"), "full", "%s %s\n%s", runs[i].file,
				 runs[i].arg, g.output);
		graded_free(&g);
	}
}

/* Blocks that wait for each other cannot run with the others skipped: the
 * prediction then comes from a smaller size with every block computed. */
Test(e2e_emu, prediction_of_blocks_that_wait_for_each_other, .timeout = 300)
{
	if (!have_emulator())
		cr_skip_test("the emulator is not built (build/emu/cuemu-cc): run make");
	struct graded g;
	cr_assert_eq(run_grade("lab1", "tests/fixtures/model/chained_scan.cu", "emu", NULL, &g), 0);
	cr_assert_not_null(g.report, "%s", g.output);
	cr_expect_str_eq(group_verdict(g.report, "correctness"), "pass", "%s", g.output);
	json_t *m = json_object_get(g.report, "metrics");
	const char *why = json_string_value(json_object_get(m, "predicted_why"));
	double pct = json_number_value(json_object_get(m, "predicted_percent_of_copy"));
	cr_expect(why && strstr(why, "every block computed"), "%s", g.output);
	/* One pass over the data, a block scan's barriers: a block scan's speed,
	 * not the 256x of a 2^20 trace taken for the graded 2^28. */
	cr_expect(pct > 10 && pct < 60, "predicted %.1f%%\n%s", pct, g.output);
	graded_free(&g);
}

/* Every report says where the grade's time went: each step that ran, in the
 * step table's order, its wall seconds. */
Test(e2e_emu, report_has_step_seconds, .timeout = 300)
{
	if (!have_emulator())
		cr_skip_test("the emulator is not built (build/emu/cuemu-cc): run make");
	struct graded g;
	cr_assert_eq(run_grade("lab1", NULL, "emu", "--solution", &g), 0);
	cr_assert_not_null(g.report, "%s", g.output);
	json_t *s = json_object_get(g.report, "step_seconds");
	cr_assert(json_is_object(s), "no step_seconds in the report\n%s", g.output);
	const char *key;
	json_t *v;
	int i = 0;
	json_object_foreach(s, key, v) {
		cr_expect_str_eq(key, grade_step_name(i), "step %d", i);
		cr_expect(json_is_number(v) && json_number_value(v) >= 0, "%s", key);
		i++;
	}
	cr_expect_gt(json_number_value(json_object_get(s, "build")), 0.01, "a build takes time");
	cr_expect_gt(json_number_value(json_object_get(s, "correctness")), 0.01);
	/* And the CPU seconds of each, the children's counted: the compilers
	 * are children, and a step cannot use more than its wall time on every
	 * core. */
	json_t *cpu = json_object_get(g.report, "step_cpu_seconds");
	cr_assert(json_is_object(cpu), "no step_cpu_seconds in the report\n%s", g.output);
	cr_expect_eq(json_object_size(cpu), json_object_size(s));
	long cores = sysconf(_SC_NPROCESSORS_ONLN);
	json_object_foreach(cpu, key, v) {
		double wall = json_number_value(json_object_get(s, key)), used = json_number_value(v);
		cr_expect(json_is_number(v) && used >= 0 && used <= wall * (double)cores + 0.05,
			  "%s: %.3f CPU seconds in %.3f s on %ld cores", key, used, wall, cores);
	}
	cr_expect_gt(json_number_value(json_object_get(cpu, "build")), 0.1,
		     "the compilers' CPU time is not counted\n%s", g.output);
	graded_free(&g);
}

/* On more than one core the analysis, which needs only the build, runs in a
 * forked grader beside the correctness sizes: the grade waits for it at the
 * analysis step only for what is left of it. */
Test(e2e_emu, the_analysis_runs_beside_the_correctness_sizes, .timeout = 300)
{
	if (!have_emulator())
		cr_skip_test("the emulator is not built (build/emu/cuemu-cc): run make");
	if (sysconf(_SC_NPROCESSORS_ONLN) < 2)
		cr_skip_test("one core: the analysis runs after the correctness sizes, not beside them");
	struct graded g;
	/* Seed 7 analyses lab 1 at 2^20+7, every block traced: seconds of work. */
	cr_assert_eq(run_grade("lab1", NULL, "emu", "--seed=7", &g), 0);
	cr_assert_not_null(g.report, "%s", g.output);
	cr_expect_str_eq(group_verdict(g.report, "analysis"), "pass", "%s", g.output);
	double beside = json_number_value(json_object_get(
		json_object_get(json_object_get(g.report, "metrics"), "beside_seconds"), "analysis"));
	double waited = json_number_value(json_object_get(json_object_get(g.report, "step_seconds"), "analysis"));
	cr_expect_gt(beside, 0.2, "the analysis did not run beside\n%s", g.output);
	cr_expect_lt(waited, beside, "the grade waited %.2f s for an analysis of %.2f s", waited, beside);
	/* The fork's CPU seconds are its own, not those of the step that
	 * joined it, however long that step waited. */
	long cores = sysconf(_SC_NPROCESSORS_ONLN);
	double fork_cpu = json_number_value(json_object_get(g.report, "beside_cpu_seconds"));
	double joining_cpu = json_number_value(
		json_object_get(json_object_get(g.report, "step_cpu_seconds"), "analysis"));
	cr_expect(fork_cpu > 0.1 && fork_cpu <= beside * (double)cores + 0.05,
		  "the fork used %.3f CPU seconds in %.3f s", fork_cpu, beside);
	cr_expect_leq(joining_cpu, waited * (double)cores + 0.05,
		      "the analysis step: %.3f CPU seconds in %.3f s", joining_cpu, waited);
	graded_free(&g);
}

Test(e2e_emu, a_solution_runs_its_sizes_in_one_process_and_2_20_7_once, .timeout = 300)
{
	if (!have_emulator())
		cr_skip_test("the emulator is not built (build/emu/cuemu-cc): run make");
	struct graded g;
	cr_assert_eq(run_grade("lab1", NULL, "emu", "--solution", &g), 0);
	cr_assert_not_null(g.report, "%s", g.output);
	cr_expect_eq(json_integer_value(json_object_get(g.report, "correctness_processes")), 1, "%s",
		     g.output);
	/* The prediction comes from the correctness step's traced runs of 65535
	 * and 2^20+7: it runs nothing itself (a traced run of 2^20+7 alone takes
	 * more than half a second of CPU). */
	json_t *m = json_object_get(g.report, "metrics");
	cr_expect(json_is_number(json_object_get(m, "predicted_percent_of_copy")), "no prediction\n%s",
		  g.output);
	const char *why = json_string_value(json_object_get(m, "predicted_why"));
	cr_expect(why && strstr(why, "traced correctness run at 2^20+7"), "%s", g.output);
	double predicted_s = json_number_value(json_object_get(json_object_get(g.report, "step_seconds"),
								"prediction"));
	cr_expect_lt(predicted_s, 0.1, "the prediction step took %.2f s: it ran the emulator again", predicted_s);
	graded_free(&g);
}

/* The emulator's sizes go past 2^20+7 (lab 1: to 2^22+5, in place of 2^24):
 * a scan whose block-sums pass drops a carry only past 1,049,600 elements
 * passes every size up to 2^20+7 and fails the larger one, at the first
 * block that misses it. */
Test(e2e_emu, a_carry_lost_past_1025_blocks_fails_past_2_20_7, .timeout = 300)
{
	if (!have_emulator())
		cr_skip_test("the emulator is not built (build/emu/cuemu-cc): run make");
	struct graded g;
	cr_assert_eq(run_grade("lab1", "tests/fixtures/lab1/carry_past_1025_blocks.cu", "emu", NULL, &g), 0);
	cr_assert_not_null(g.report, "%s", g.output);
	json_t *small = report_test(g.report, "correctness 2^20+7");
	json_t *big = report_test(g.report, "correctness 2^22+5");
	cr_assert(small && big, "the emulator's sizes include 2^20+7 and 2^22+5\n%s", g.output);
	cr_expect(json_is_true(json_object_get(small, "passed")), "%s", g.output);
	cr_expect(json_is_false(json_object_get(big, "passed")), "%s", g.output);
	const char *why = json_string_value(json_object_get(big, "message")) ?: "";
	cr_expect(strstr(why, "index 1050624 (block 1026"), "the first block past 1025 that lost its carry: %s", why);
	cr_expect_eq(g.exit_status, 1, "%s", g.output);
	graded_free(&g);
}

/* The analysis on the second call (grader/steps/launch_match.h): a file
 * whose first call also launches a warm-up is analysed on its second call
 * and believed; one whose first call dilutes the naive stores with eight
 * launches of the tiled transpose has the naive stores graded there. */
Test(e2e_emu, a_first_call_that_launched_more_is_not_the_one_analysed, .timeout = 600)
{
	static const struct {
		const char *file, *analysis;
	} cases[] = { { "tests/fixtures/lab3/first_call_warm_up.cu", "pass" },
		      { "tests/fixtures/lab3/first_call_dilution.cu", "fail" } };
	if (!have_emulator())
		cr_skip_test("the emulator is not built (build/emu/cuemu-cc): run make");
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct graded g;
		cr_assert_eq(run_grade("lab3", cases[i].file, "emu", NULL, &g), 0);
		cr_assert_not_null(g.report, "%s: no JSON report\n%s", cases[i].file, g.output);
		json_t *call = json_object_get(json_object_get(g.report, "metrics"), "analysis_call");
		cr_expect_eq(json_integer_value(call), 2, "%s\n%s", cases[i].file, g.output);
		cr_expect_str_eq(group_verdict(g.report, "analysis"), cases[i].analysis, "%s\n%s", cases[i].file,
				 g.output);
		graded_free(&g);
	}
}
