/*
 * The conformance fixtures (tests/conformance/) as the grader's integrity
 * check sees them: written in the idioms of real code (a cudaCheck helper
 * printing to stderr, log2 and frexp, a namespace cuda, cooperative groups,
 * streams, the occupancy API), every one must be allowed. Their emulator
 * objects are built by make (tests/conformance/conformance.mk).
 */
#include <criterion/criterion.h>

#include <glob.h>
#include <stdio.h>
#include <string.h>

#include "steps/integrity.h"

/* The rubric of the lab a fixture's header names ("Conformance fixture,
 * lab 3"); *rank: its sizes' rank. */
static const char *rubric_of(const char *fixture, int *rank)
{
	static const char *rubrics[] = { "labs/lab1-naive-scan/lab.ini", "labs/lab2-blelloch-scan/lab.ini",
					 "labs/lab3-transpose/lab.ini" };
	FILE *f = fopen(fixture, "r");
	char line[256];
	int lab = 0;
	cr_assert_not_null(f, "%s", fixture);
	while (!lab && fgets(line, sizeof line, f)) {
		const char *p = strstr(line, "Conformance fixture, lab ");
		if (p)
			lab = p[strlen("Conformance fixture, lab ")] - '0';
	}
	fclose(f);
	cr_assert(lab >= 1 && lab <= 3, "%s does not name its lab in its header", fixture);
	*rank = lab == 3 ? 2 : 1;
	return rubrics[lab - 1];
}

Test(conformance, every_fixture_passes_the_integrity_check, .timeout = 120)
{
	glob_t g;
	cr_assert_eq(glob("tests/conformance/*.cu", 0, NULL, &g), 0, "no fixtures");
	for (size_t i = 0; i < g.gl_pathc; i++) {
		char obj[512], err[512], name[256];
		snprintf(name, sizeof name, "%s", strrchr(g.gl_pathv[i], '/') + 1);
		name[strlen(name) - 3] = '\0';
		snprintf(obj, sizeof obj, "build/conformance/%s.o", name);
		struct rubric r;
		int rank;
		const char *rubric = rubric_of(g.gl_pathv[i], &rank);
		cr_assert_eq(rubric_load(rubric, rank, &r, err, sizeof err), 0, "%s", err);
		struct grade gr;
		grade_init(&gr, NULL);
		int ok = integrity_check(&r, BACKEND_EMU, obj, NULL, &gr);
		cr_expect_eq(ok, 1, "%s refused: %s", name, gr.tests[0].message);
		grade_free(&gr);
		rubric_free(&r);
	}
	globfree(&g);
}
