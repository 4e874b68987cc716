/*
 * The same files graded on a GPU: run on the GPU machine, skipped with the
 * reason elsewhere. Solutions get full marks against this GPU's band;
 * fixtures earn what their header says (no points for naive, partial for
 * an unpadded tile, full for a padded one).
 */
#include <criterion/criterion.h>

#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "e2e_cases.h"
#include "grade_runner.h"

ParameterizedTestParameters(gpu, grade)
{
	size_t n;
	struct e2e_case *c = e2e_cases(&n);
	return cr_make_param_array(struct e2e_case, c, n, e2e_free);
}

ParameterizedTest(struct e2e_case *c, gpu, grade, .timeout = 900)
{
	char why[512];
	if (!have_gpu(why, sizeof(why)))
		cr_skip_test("needs a CUDA GPU: %s", why);
	/* KIT_GPU_LABS="lab1 lab2": grade only these labs (a short GPU session). */
	const char *only = getenv("KIT_GPU_LABS");
	if (only && *only && !strstr(only, c->lab))
		cr_skip_test("%s: not in KIT_GPU_LABS (%s)", c->lab, only);
	struct graded g;
	cr_assert_eq(run_grade(c->lab, c->file[0] ? c->file : NULL, "cuda", NULL, &g), 0);
	cr_assert_not_null(g.report, "%s %s: no JSON report (exit %d)\n%s", c->lab, c->file,
			   g.exit_status, g.output);
	if (strcmp(c->kind, "solution") == 0)
		cr_expect_eq(g.exit_status, 0, "%s solution: exit %d\n%s", c->lab, g.exit_status, g.output);
	if (c->expect_cuda[0])
		expect_groups(c->expect_cuda, g.report, g.output);
	if (strcmp(c->kind, "fixture") == 0) {
		int checked = check_expectations(c->file, "cuda", g.report, why, sizeof(why));
		cr_expect_geq(checked, 0, "%s\n%s", why, g.output);
		cr_expect_geq(check_message(c->file, g.report, why, sizeof(why)), 0, "%s\n%s", why, g.output);
	}
	/* One scale, and the bounds the weights promise (expect-score); a
	 * reference keeps at least 95. */
	cr_expect_geq(check_score(c->file[0] ? c->file : NULL, g.report, why, sizeof(why)), 0, "%s\n%s",
		      why, g.output);
	if (strcmp(c->kind, "solution") == 0)
		cr_expect_geq(json_number_value(json_object_get(g.report, "score")), 95, "%s solution\n%s",
			      c->lab, g.output);
	graded_free(&g);
}

/* The same submission graded five times on one GPU: scores within 2% of the
 * maximum of each other. The unpadded tile earns partial points, where
 * timing noise would show first. */
Test(gpu, repeatable_scores, .timeout = 900)
{
	char why[512];
	if (!have_gpu(why, sizeof(why)))
		cr_skip_test("needs a CUDA GPU: %s", why);
	double lo = 1e9, hi = -1, max = 0;
	for (int i = 0; i < 5; i++) {
		struct graded g;
		cr_assert_eq(run_grade("lab3", "tests/fixtures/lab3/unpadded.cu", "cuda", "--no-analysis", &g), 0);
		cr_assert_not_null(g.report, "%s", g.output);
		double s = json_number_value(json_object_get(g.report, "score"));
		max = json_number_value(json_object_get(g.report, "max_score"));
		lo = s < lo ? s : lo;
		hi = s > hi ? s : hi;
		graded_free(&g);
	}
	cr_expect_leq(hi - lo, 0.02 * max, "scores from %g to %g of %g", lo, hi, max);
}

/* Three grades of the lab 1 answer key at once on one GPU, as students of
 * one lab machine run them: each earns full performance points, as one
 * alone does. Each takes the machine's lock of the GPU around its timed
 * runs (batch_gpu_alone); without it, two at once each measured about half
 * the key's speed on an H200 and lost points. */
Test(gpu, grades_at_once_each_time_the_gpu_alone, .timeout = 900)
{
	char why[512];
	if (!have_gpu(why, sizeof(why)))
		cr_skip_test("needs a CUDA GPU: %s", why);
	enum { AT_ONCE = 3 };
	pid_t pids[AT_ONCE];
	for (int i = 0; i < AT_ONCE; i++) {
		pids[i] = fork();
		cr_assert_geq(pids[i], 0);
		if (pids[i] == 0) {
			struct graded g;
			int full = run_grade("lab1", NULL, "cuda", "--no-analysis", &g) == 0 && g.report &&
				   strcmp(group_verdict(g.report, "performance"), "full") == 0;
			if (!full)
				fprintf(stderr, "grade %d of %d at once:\n%s\n", i + 1, AT_ONCE, g.output);
			_exit(full ? 0 : 1);
		}
	}
	int full = 0;
	for (int i = 0; i < AT_ONCE; i++) {
		int status;
		cr_assert_eq(waitpid(pids[i], &status, 0), pids[i]);
		full += WIFEXITED(status) && WEXITSTATUS(status) == 0;
	}
	cr_expect_eq(full, AT_ONCE, "%d of %d grades at once earned full performance points", full, AT_ONCE);
}

/* The GPU probes among the hostile fixtures (tests/fixtures/hostile/gpu_*.cu):
 * each earns what its expect-cuda line says, and its performance test's
 * message holds its expect-cuda-message. */
ParameterizedTestParameters(gpu, hostile)
{
	static const char *pattern = "tests/fixtures/hostile/gpu_*.cu";
	glob_t g;
	size_t n = 0;
	char (*files)[256] = NULL;
	if (glob(pattern, 0, NULL, &g) == 0) {
		files = cr_malloc(sizeof(*files) * g.gl_pathc);
		for (; n < g.gl_pathc; n++)
			snprintf(files[n], sizeof(files[n]), "%s", g.gl_pathv[n]);
		globfree(&g);
	}
	return cr_make_param_array(char[256], files, n, e2e_free);
}

ParameterizedTest(char (*file)[256], gpu, hostile, .timeout = 900)
{
	char why[512], want[256] = "";
	if (!have_gpu(why, sizeof(why)))
		cr_skip_test("needs a CUDA GPU: %s", why);
	struct graded g;
	cr_assert_eq(run_grade("lab3", *file, "cuda", "--no-analysis", &g), 0);
	cr_assert_not_null(g.report, "%s: no JSON report (exit %d)\n%s", *file, g.exit_status, g.output);
	cr_expect_geq(check_expectations(*file, "cuda", g.report, why, sizeof(why)), 1, "%s\n%s", why, g.output);
	FILE *f = fopen(*file, "r");
	char line[512];
	for (int i = 0; f && i < 40 && fgets(line, sizeof(line), f); i++)
		if (sscanf(line, "// expect-cuda-message: %255[^\n]", want) == 1)
			break;
	if (f)
		fclose(f);
	cr_expect(want[0] && strstr(g.output, want), "%s: the report does not say '%s':\n%s", *file, want,
		  g.output);
	graded_free(&g);
}
