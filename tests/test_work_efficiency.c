/*
 * Lab 2's work-efficiency check on the kit's scans: the figure (combining
 * operations per 1024 elements, docs/emu-metrics.md "Work") is measured over
 * the whole scan, so neither the block size nor the way the block sums are
 * scanned changes the verdict. Each fixture is graded in the emulator on a
 * few sizes (the analysis run is lab 2's own), and its figure must lie in
 * the range its algorithm gives.
 */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "grade_runner.h"
#include "sys/kit_paths.h"

struct work_case {
	char file[96];
	char verdict[8];	/* of the test "analysis: work-efficiency" */
	double lo, hi;		/* the figure's range */
};

/* Blelloch: 64 for the sweeps + 32 for the add pass (measured 95.2 to 96.2).
 * Hillis-Steele: sum over its steps of (block - offset) / block, x 32, + 32
 * for the add pass (measured 166.2, 257.3, 352.8 with the subtraction). */
static struct work_case cases[] = {
	{ "tests/fixtures/lab2/hillis_steele_32.cu", "failed", 155, 180 },
	{ "tests/fixtures/lab2/hillis_steele_256.cu", "failed", 240, 275 },
	{ "tests/fixtures/lab2/hillis_steele.cu", "failed", 330, 375 },
	{ "tests/fixtures/lab2/blelloch_256.cu", "passed", 88, 104 },
	{ "tests/fixtures/lab2/blelloch_256_two_launch.cu", "passed", 88, 104 },
	{ "tests/fixtures/lab2/blelloch_512.cu", "passed", 88, 104 },
	{ "tests/fixtures/lab2/blelloch_512_two_launch.cu", "passed", 88, 104 },
	{ "tests/fixtures/lab2/blelloch_padded.cu", "passed", 88, 104 },
	{ "tests/fixtures/lab2/blelloch_1024_two_launch.cu", "passed", 88, 104 },
	{ "solutions/lab2-blelloch-scan/scan.cu", "passed", 35, 55 },
};

ParameterizedTestParameters(work_efficiency, lab2)
{
	return cr_make_param_array(struct work_case, cases, sizeof(cases) / sizeof(cases[0]));
}

/* Lab 2's rubric on three sizes, without the prediction: the analysis is
 * what is tested here, and it is the rubric's own. */
static void fast_rubric(char *path, size_t len)
{
	char text[16384], ini[1024];
	FILE *in = fopen(kit_path(ini, sizeof(ini), "labs/lab2-blelloch-scan/lab.ini"), "r");
	cr_assert_not_null(in);
	size_t n = fread(text, 1, sizeof(text) - 1, in);
	fclose(in);
	text[n] = 0;
	char *shapes = strstr(text, "\nemu_shapes = "), *perf = strstr(text, "[performance]\n");
	cr_assert(shapes && perf && shapes < perf);
	snprintf(path, len, "/tmp/kit-work-rubric-XXXXXX");
	int fd = mkstemp(path);
	cr_assert_geq(fd, 0);
	FILE *out = fdopen(fd, "w");
	char *eol = strchr(shapes + 1, '\n');
	fprintf(out, "%.*s\nemu_shapes = 1 1025 65535%.*s[performance]\npredicted = 0\n%s",
		(int)(shapes - text), text, (int)(perf - eol), eol, perf + strlen("[performance]\n"));
	fclose(out);
}

/* The file graded for lab 2 in the emulator with fast_rubric's rubric. */
static void grade_fast(const char *file, struct graded *g)
{
	char rubric[64], arg[96];
	fast_rubric(rubric, sizeof(rubric));
	snprintf(arg, sizeof(arg), "--rubric=%s", rubric);
	int rc = run_grade("lab2", file, "emu", arg, g);
	unlink(rubric);
	cr_assert_eq(rc, 0);
	cr_assert_not_null(g->report, "%s: %s", file, g->output);
}

ParameterizedTest(struct work_case *c, work_efficiency, lab2, .timeout = 300)
{
	if (!have_emulator())
		cr_skip_test("the emulator is not built (build/emu/cuemu-cc): run make");
	struct graded g;
	grade_fast(c->file, &g);
	json_t *m = json_object_get(g.report, "metrics");
	json_t *v = json_object_get(m, "work_per_1024_elements");
	cr_assert(json_is_number(v), "%s: no work figure\n%s", c->file, g.output);
	double work = json_number_value(v);
	cr_log_info("%s: %.1f operations per 1024 elements", c->file, work);
	cr_expect(work >= c->lo && work <= c->hi, "%s: %.1f operations per 1024 elements, expected "
		  "%g to %g\n%s", c->file, work, c->lo, c->hi, g.output);
	size_t i;
	json_t *t, *found = NULL;
	json_array_foreach(json_object_get(g.report, "tests"), i, t)
		if (strcmp(json_string_value(json_object_get(t, "name")) ?: "", "analysis: work-efficiency") == 0)
			found = t;
	cr_assert_not_null(found, "%s: no work-efficiency test\n%s", c->file, g.output);
	const char *status = json_string_value(json_object_get(found, "status"));
	cr_expect_str_eq(status ?: "", c->verdict, "%s: %s\n%s", c->file,
			 json_string_value(json_object_get(found, "message")), g.output);
	graded_free(&g);
}

/* The skeleton scans nothing: its analysis run's output is wrong, so none of
 * its figures is believed and no analysis point is given (a scan that adds
 * too little is refused by the check itself: tests/test_analysis.c). */
Test(work_efficiency, skeleton_gets_no_analysis_points, .timeout = 300)
{
	if (!have_emulator())
		cr_skip_test("the emulator is not built (build/emu/cuemu-cc): run make");
	struct graded g;
	grade_fast("labs/lab2-blelloch-scan/scan.cu", &g);
	json_t *analysis = json_object_get(json_object_get(g.report, "groups"), "analysis");
	cr_assert(json_is_object(analysis), "no analysis group\n%s", g.output);
	double points = json_number_value(json_object_get(analysis, "points"));
	cr_expect_eq(points, 0, "analysis points %g\n%s", points, g.output);
	cr_expect(strstr(g.output, "not graded"), "%s", g.output);
	graded_free(&g);
}
