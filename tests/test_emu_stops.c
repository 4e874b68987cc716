/*
 * A kernel the emulator has to stop: one that never ends is graded as a
 * time-out naming the kernel and its line, and the grade gives up after two
 * sizes; one whose recursion overflows its stack is a stack overflow in the
 * kernel. Neither is "the entry point called exit()".
 */
#include <criterion/criterion.h>
#include <string.h>
#include <time.h>

#include "grade_runner.h"

/* The message of the report's test named name, or "". */
static const char *test_message(json_t *report, const char *name)
{
	return json_string_value(json_object_get(report_test(report, name), "message")) ?: "";
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

Test(emu_stops, a_kernel_that_never_ends_is_a_time_out, .timeout = 300)
{
	if (!have_emulator())
		cr_skip_test("the emulator is not built (build/emu/cuemu-cc): run make");
	struct graded g;
	double t0 = now_s();
	cr_assert_eq(run_grade("lab3", "tests/fixtures/emu_faults/kernel_hang.cu", "emu", NULL, &g), 0);
	double took = now_s() - t0;
	cr_assert_not_null(g.report, "%s", g.output);
	cr_log_info("a hanging kernel graded in %.1f s", took);
	/* The first two sizes: stopped by the emulator's watchdog, which names
	 * the kernel and the line it was spinning at. */
	const char *first = test_message(g.report, "correctness 1x1");
	cr_expect(strstr(first, "did not finish in time"), "%s", first);
	cr_expect(strstr(first, "kernel transpose_spin"), "%s", first);
	cr_expect(strstr(first, "transpose.cu:15"), "the line, in the student's own file name: %s", first);
	cr_expect(strstr(first, "CPU time"), "stopped by the grader's wall clock, not the emulator: %s", first);
	cr_expect_null(strstr(first, "exit()"), "%s", first);
	cr_expect(strstr(test_message(g.report, "correctness 1x1000"), "did not finish in time"), "%s",
		  g.output);
	/* Then the grade gives up: the other sizes are not run, nor the analysis. */
	const char *third = test_message(g.report, "correctness 1000x1");
	cr_expect(strstr(third, "not run") && strstr(third, "2 sizes"), "%s", third);
	cr_expect(strstr(test_message(g.report, "correctness 1023x2049"), "not run"), "%s", g.output);
	cr_expect(strstr(test_message(g.report, "analysis"), "did not finish in time"), "%s", g.output);
	cr_expect_eq(g.exit_status, 1);
	graded_free(&g);
}

Test(emu_stops, deep_recursion_is_a_stack_overflow_in_the_kernel, .timeout = 300)
{
	if (!have_emulator())
		cr_skip_test("the emulator is not built (build/emu/cuemu-cc): run make");
	struct graded g;
	cr_assert_eq(run_grade("lab3", "tests/fixtures/emu_faults/deep_recursion.cu", "emu", NULL, &g), 0);
	cr_assert_not_null(g.report, "%s", g.output);
	const char *m = test_message(g.report, "correctness 1x1");
	cr_expect(strstr(m, "stack overflow in kernel transpose_deep"), "%s", m);
	cr_expect(strstr(m, "transpose.cu:"), "the line, in the student's own file name: %s", m);
	cr_expect_null(strstr(m, "exit()"), "%s", m);
	cr_expect_null(strstr(m, "did not finish in time"), "%s", m);
	cr_expect_eq(g.exit_status, 1);
	graded_free(&g);
}
