/* The files graded end to end: every solution, skeleton and lab fixture. */
#ifndef TESTS_E2E_CASES_H
#define TESTS_E2E_CASES_H

#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <jansson.h>
#include <glob.h>
#include <stdio.h>
#include <string.h>

#include "grade_runner.h"

/* Room for the solutions, skeletons and every fixture of tests/fixtures/labN. */
#define E2E_MAX_CASES 96

struct e2e_case {
	char lab[8];		/* "lab3" */
	char kind[16];		/* "solution", "skeleton", "fixture" */
	char file[256];		/* relative to the kit's root */
	/* What the skeleton should do, per backend (fixtures say it in their header). */
	char expect_cuda[128];
	char expect_emu[128];
};

static void e2e_add(struct e2e_case *c, size_t *n, const char *lab, const char *kind,
		    const char *file, const char *cuda, const char *emu)
{
	memset(&c[*n], 0, sizeof(c[*n]));
	snprintf(c[*n].lab, sizeof(c[*n].lab), "%s", lab);
	snprintf(c[*n].kind, sizeof(c[*n].kind), "%s", kind);
	snprintf(c[*n].file, sizeof(c[*n].file), "%s", file);
	snprintf(c[*n].expect_cuda, sizeof(c[*n].expect_cuda), "%s", cuda);
	snprintf(c[*n].expect_emu, sizeof(c[*n].expect_emu), "%s", emu);
	(*n)++;
}

/* Criterion copies parameters between processes: they live in cr_malloc'd memory. */
static struct e2e_case *e2e_cases(size_t *count)
{
	static const char *labs[] = { "lab1", "lab2", "lab3", "lab4" };
	static const char *skeletons[] = { "labs/lab1-naive-scan/scan.cu", "labs/lab2-blelloch-scan/scan.cu",
					   "labs/lab3-transpose/transpose.cu", "labs/lab4-occupancy/occupancy.cu" };
	/* The scans' skeletons leave the block scan to the student: wrong results.
	 * The transpose's is a correct naive kernel: right, slow, uncoalesced.
	 * Lab 4's calculator counts warps only, and its correct kernel runs at
	 * full occupancy, over the cap. */
	static const char *skeleton_cuda[] = { "correctness=fail performance=zero",
					       "correctness=fail performance=zero",
					       "correctness=pass performance=zero",
					       "correctness=fail performance=zero" };
	static const char *skeleton_emu[] = { "correctness=fail", "correctness=fail",
					      "correctness=pass analysis=fail",
					      "correctness=fail analysis=pass" };
	struct e2e_case *c = cr_malloc(sizeof(*c) * E2E_MAX_CASES);
	size_t n = 0;
	for (int i = 0; i < 4; i++) {
		/* The tuned reference (solutions/LAB/FILE), which full marks are
		 * calibrated on; --solution's answer keys: tests/test_answer_keys.c. */
		char tuned[256];
		snprintf(tuned, sizeof(tuned), "solutions/%s", skeletons[i] + strlen("labs/"));
		e2e_add(c, &n, labs[i], "solution", tuned, "correctness=pass performance=full analysis=pass",
			"correctness=pass analysis=pass");
		e2e_add(c, &n, labs[i], "skeleton", skeletons[i], skeleton_cuda[i], skeleton_emu[i]);
		char pattern[64];
		snprintf(pattern, sizeof(pattern), "tests/fixtures/%s/*.cu", labs[i]);
		glob_t g;
		if (glob(pattern, 0, NULL, &g) == 0) {
			for (size_t k = 0; k < g.gl_pathc && n < E2E_MAX_CASES; k++)
				e2e_add(c, &n, labs[i], "fixture", g.gl_pathv[k], "", "");
			globfree(&g);
		}
	}
	*count = n;
	return c;
}

static void e2e_free(struct criterion_test_params *p)
{
	cr_free(p->params);
}

/* Checks one expectation string ("correctness=pass analysis=fail") against
 * the report's group verdicts. */
static inline void expect_groups(const char *expect, json_t *report, const char *output)
{
	char buf[128];
	snprintf(buf, sizeof(buf), "%s", expect);
	char *save;
	for (char *tok = strtok_r(buf, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
		char *eq = strchr(tok, '=');
		if (!eq)
			continue;
		*eq = '\0';
		cr_expect_str_eq(group_verdict(report, tok), eq + 1, "%s\n%s", tok, output);
	}
}

#endif
