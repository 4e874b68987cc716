/* grader/steps/grade_run.c: the grade is a table of steps, walked in order. */
#include <criterion/criterion.h>

#include "steps/grade_run.h"

Test(steps, the_grade_in_order)
{
	static const char *const want[] = { "emulator beside", "build", "integrity", "analysis beside",
					    "calculator beside",
					    "correctness", "occupancy calculator",
					    "prediction", "reference", "performance", "occupancy sweep", "analysis" };
	int n = (int)(sizeof(want) / sizeof(want[0]));
	for (int i = 0; i < n; i++) {
		cr_assert_not_null(grade_step_name(i), "step %d (%s) is missing", i, want[i]);
		cr_expect_str_eq(grade_step_name(i), want[i], "step %d", i);
	}
	cr_expect_null(grade_step_name(n), "no step after analysis");
	cr_expect_null(grade_step_name(-1));
}
