/* The rubric's gates (see gates.h). */
#include "steps/gates.h"

#include <stdio.h>
#include <string.h>

/* Takes t's points away, saying why before what the test had found. */
static void withhold(struct test_result *t, const char *why)
{
	char was[TEST_MESSAGE_LEN];
	snprintf(was, sizeof(was), "%s", t->message);
	test_fail_as(t, FAILURE_GATE_SHUT, "no points: %s%s%.900s", why, was[0] ? ". " : "", was);
}

/* The analysis test of check i: passed, or why the gate stays shut. */
static int check_passed(const struct grade *g, int check, char *why, size_t len)
{
	const char *name = analysis_checks[check].name;
	for (int i = 0; i < g->n_tests; i++)
		if (g->tests[i].kind == KIND_ANALYSIS_CHECK && g->tests[i].check == check) {
			if (g->tests[i].status == TEST_PASSED)
				return 1;
			snprintf(why, len, "%s \"analysis: %s\" passes, and it did not", GATE_WHY, name);
			return 0;
		}
	snprintf(why, len, "%s \"analysis: %s\" passes, and it could not be checked", GATE_WHY, name);
	return 0;
}

void gates_apply(const struct rubric *r, int kernel_correct, struct grade *g)
{
	char why[256] = "";
	int open = 1;
	for (int i = 0; i < ANALYSIS_CHECKS && open; i++)
		if (r->performance_gate[i])
			open = check_passed(g, i, why, sizeof(why));
	for (int i = 0; i < g->n_tests; i++) {
		struct test_result *t = &g->tests[i];
		if (t->group == GROUP_ANALYSIS && t->max_points > 0 && !kernel_correct &&
		    t->status == TEST_PASSED)
			withhold(t, "analysis counts only once every correctness test passes");
		else if (t->group == GROUP_PERFORMANCE && t->points > 0 && !kernel_correct)
			withhold(t, "speed counts only once every correctness test passes");
		else if (t->group == GROUP_PERFORMANCE && t->points > 0 && !open)
			withhold(t, why);
	}
}
