/*
 * One program on both machines, on a GPU (skipped, saying why, elsewhere):
 * a lab 2 file that runs a work-efficient scan where the device is the
 * emulator and Hillis-Steele on the GPU has its analysis "not believed",
 * naming the first launch that differs, and its performance points gated
 * shut; the honest Blelloch scan it copies is believed, and so are lab 3's
 * padded tile and lab 4's solution, each by the correctness process's run
 * of the analysis shape after its sizes, with no process of its own; and a
 * file that launches a warm-up kernel on its first call only is believed
 * too: the run after the sizes, a later call, launched less than the
 * emulator's analysis run, a first call, so the analysis runs again on the
 * second call of its process, which the run after the sizes then matches.
 *
 * On a GPU machine: make build/tests/unit, then build/tests/unit with
 * KIT_ROOT set and --filter on this suite's name, launch_match_gpu.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "grade_runner.h"

/* The report's "launch_match" verdict: 1 believed, 0 not, -1 absent. */
static int believed(json_t *report)
{
	json_t *m = json_object_get(json_object_get(report, "metrics"), "launch_match");
	return m ? json_is_true(json_object_get(m, "believed")) : -1;
}

/* Whether the report's verdict came from a process of its own. */
static int own_process(json_t *report)
{
	json_t *m = json_object_get(json_object_get(report, "metrics"), "launch_match");
	return json_is_true(json_object_get(m, "own_process"));
}

/* Which call of its process the analysis traced (1 or 2), 0 when absent. */
static int analysis_call(json_t *report)
{
	json_t *c = json_object_get(json_object_get(report, "metrics"), "analysis_call");
	return json_is_integer(c) ? (int)json_integer_value(c) : 0;
}

/* A fixture's grade on the GPU, as its expect- lines say. */
static void grade_fixture(const char *lab, const char *file, struct graded *g)
{
	char why[512];
	if (!have_gpu(why, sizeof why))
		cr_skip_test("needs a CUDA GPU: %s", why);
	cr_assert_eq(run_grade(lab, file, "cuda", NULL, g), 0);
	cr_assert_not_null(g->report, "no JSON report (exit %d)\n%s", g->exit_status, g->output);
	cr_expect_geq(check_expectations(file, "cuda", g->report, why, sizeof why), 1, "%s\n%s", why, g->output);
}

Test(launch_match_gpu, two_programs_are_not_believed, .timeout = 900)
{
	struct graded g;
	grade_fixture("lab2", "tests/fixtures/hostile/two_programs.cu", &g);
	cr_expect_eq(believed(g.report), 0, "%s", g.output);
	cr_expect(strstr(g.output, "not believed"), "%s", g.output);
	cr_expect(strstr(g.output, "scan_block"), "the first differing launch is not named:\n%s", g.output);
	graded_free(&g);
}

Test(launch_match_gpu, one_program_is_believed, .timeout = 900)
{
	static const struct {
		const char *lab, *file;
	} honest[] = { { "lab2", "tests/fixtures/lab2/blelloch_256.cu" },
		       { "lab3", "tests/fixtures/lab3/padded.cu" },
		       { "lab4", NULL } };
	char why[512];
	if (!have_gpu(why, sizeof why))
		cr_skip_test("needs a CUDA GPU: %s", why);
	for (size_t i = 0; i < sizeof honest / sizeof honest[0]; i++) {
		struct graded g;
		cr_assert_eq(run_grade(honest[i].lab, honest[i].file, "cuda", NULL, &g), 0);
		cr_assert_not_null(g.report, "no JSON report (exit %d)\n%s", g.exit_status, g.output);
		cr_expect_str_eq(group_verdict(g.report, "analysis"), "pass", "%s %s\n%s", honest[i].lab,
				 honest[i].file ? honest[i].file : "solution", g.output);
		cr_expect_eq(believed(g.report), 1, "%s", g.output);
		cr_expect(!own_process(g.report), "the run after the sizes did not settle it:\n%s", g.output);
		cr_expect_eq(analysis_call(g.report), 1, "%s", g.output);
		graded_free(&g);
	}
}

Test(launch_match_gpu, a_warm_up_on_the_first_call_only_is_believed, .timeout = 900)
{
	struct graded g;
	grade_fixture("lab3", "tests/fixtures/lab3/first_call_warm_up.cu", &g);
	cr_expect_eq(believed(g.report), 1, "%s", g.output);
	cr_expect_eq(analysis_call(g.report), 2, "the warm-up's first call was the one analysed:\n%s", g.output);
	cr_expect(!own_process(g.report), "the run after the sizes did not settle it:\n%s", g.output);
	graded_free(&g);
}
