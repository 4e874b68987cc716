/* Every grade out of the rubric's maximum (see scale.h). */
#include "steps/scale.h"

#include <stdio.h>
#include <string.h>

/* The rubric's points of a group; lab 4's calculator counts as correctness. */
static double group_points(const struct rubric *r, enum test_group group)
{
	switch (group) {
	case GROUP_CORRECTNESS: return r->correctness_points + r->occupancy_points;
	case GROUP_PERFORMANCE: return r->performance_points;
	case GROUP_ANALYSIS: return rubric_max_score(r) - r->correctness_points -
				    r->occupancy_points - r->performance_points;
	case GROUP_BUILD:
	case GROUP_INTEGRITY: return 0;
	}
	return 0;
}

/* Why a group has no tests, in a student's words. */
static const char *unreached(const struct grade *g, char *buf, size_t len)
{
	if (g->build_failed)
		return "not graded: the file did not compile";
	if (g->internal_error) {
		snprintf(buf, len, "not graded: the grader could not run this file (%.400s)",
			 g->internal_message);
		return buf;
	}
	for (int i = 0; i < g->n_tests; i++)
		if (g->tests[i].group == GROUP_INTEGRITY && g->tests[i].status == TEST_FAILED)
			return "not graded: the integrity check refused the file";
	return "not graded: the grade stopped before this part";
}

void scale_settle(const struct rubric *r, const char *why, struct grade *g)
{
	char buf[512];
	for (int k = 0; k < GROUP_COUNT; k++) {
		enum test_group group = group_order[k];
		double want = group_points(r, group), have = 0;
		struct test_result *unmeasured = NULL;
		for (int i = 0; i < g->n_tests; i++)
			if (g->tests[i].group == group) {
				have += g->tests[i].max_points;
				if (!unmeasured && g->tests[i].status == TEST_NOT_MEASURED)
					unmeasured = &g->tests[i];
			}
		if (want - have < 1e-9)
			continue;
		/* A test that could not be measured carries what it could not show. */
		if (unmeasured) {
			unmeasured->max_points += want - have;
			continue;
		}
		struct test_result *t = grade_add_test(g, group_name(group), group, want - have);
		if (!t)
			continue;
		t->kind = KIND_UNREACHED;
		test_fail(t, "%s", why ? why : unreached(g, buf, sizeof(buf)));
	}
}
