/*
 * Grades in the emulator of files that hide their accesses from the trace
 * (tests/fixtures/hostile/): a Hillis-Steele scan whose step stores are
 * memcpy calls of run-time size, a naive transpose whose strided stores are
 * such memcpy calls beside a coalesced decoy, a naive transpose staged
 * through a __device__ array. Each now gets its honest version's analysis
 * verdicts (the same tests pass and fail) and scores no more than it.
 */
#include <criterion/criterion.h>
#include <limits.h>
#include <string.h>

#include "grade_runner.h"
#include "sys/kit_paths.h"

static struct graded graded_file(const char *lab, const char *fixture)
{
	char file[PATH_MAX];
	struct graded g;
	kit_path(file, sizeof(file), fixture);
	cr_assert_eq(run_grade(lab, file, "emu", NULL, &g), 0, "./grade did not run on %s", fixture);
	cr_assert_not_null(g.report, "%s: no JSON report (exit %d)\n%s", fixture, g.exit_status, g.output);
	return g;
}

/* The analysis tests of both reports pass and fail alike. */
/* The test of report named name, or NULL. */
static json_t *test_named(json_t *report, const char *name)
{
	size_t i;
	json_t *t;
	json_array_foreach(json_object_get(report, "tests"), i, t)
		if (strcmp(json_string_value(json_object_get(t, "name")), name) == 0)
			return t;
	return NULL;
}

/* The analysis tests of both reports pass and fail alike. */
static void same_analysis(json_t *honest, json_t *cheat, const char *fixture)
{
	size_t i;
	json_t *a;
	int compared = 0;
	json_array_foreach(json_object_get(honest, "tests"), i, a) {
		if (strcmp(json_string_value(json_object_get(a, "group")), "analysis") != 0)
			continue;
		const char *name = json_string_value(json_object_get(a, "name"));
		json_t *b = test_named(cheat, name);
		cr_assert_not_null(b, "%s: no test '%s'", fixture, name);
		int pa = json_is_true(json_object_get(a, "passed")), pb = json_is_true(json_object_get(b, "passed"));
		cr_expect_eq(pb, pa, "%s: '%s' %s, the honest version's %s", fixture, name,
			     pb ? "passed" : "failed", pa ? "passed" : "failed");
		compared++;
	}
	cr_expect_gt(compared, 0, "no analysis tests in the honest report");
}

static void no_better_than_honest(const char *lab, const char *honest, const char *cheat)
{
	if (!have_emulator())
		cr_skip_test("the emulator is not built: run make");
	char file[PATH_MAX], why[512];
	struct graded h = graded_file(lab, honest), c = graded_file(lab, cheat);
	double hs = json_number_value(json_object_get(h.report, "score"));
	double cs = json_number_value(json_object_get(c.report, "score"));
	cr_expect_leq(cs, hs + 0.01, "%s scores %.2f, its honest version %.2f\n%s", cheat, cs, hs, c.output);
	same_analysis(h.report, c.report, cheat);
	kit_path(file, sizeof(file), cheat);
	cr_expect_geq(check_expectations(file, "emu", c.report, why, sizeof(why)), 1, "%s: %s", cheat, why);
	cr_expect_geq(check_score(file, c.report, why, sizeof(why)), 1, "%s: %s", cheat, why);
	graded_free(&h);
	graded_free(&c);
}

Test(traced_idioms, memcpy_steps_do_not_hide_hillis_steele, .timeout = 600)
{
	no_better_than_honest("lab2", "tests/fixtures/lab2/hillis_steele.cu",
			      "tests/fixtures/hostile/memcpy_hillis_steele.cu");
}

Test(traced_idioms, memcpy_stores_beside_a_decoy_are_seen, .timeout = 600)
{
	no_better_than_honest("lab3", "tests/fixtures/lab3/naive.cu",
			      "tests/fixtures/hostile/memcpy_strided_decoy.cu");
}

Test(traced_idioms, a_device_array_is_global_memory, .timeout = 600)
{
	no_better_than_honest("lab3", "tests/fixtures/lab3/naive.cu",
			      "tests/fixtures/hostile/device_array_staged.cu");
}
