/*
 * grader/steps/side.c: a part of a grade in a forked grader. What the part
 * adds to its grade comes back whole, or not at all; a part that dies or
 * is stopped leaves the grade as it was.
 */
#include <criterion/criterion.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "steps/side.h"

extern const struct lab lab3_transpose;

/* What the emulator's steps add: a test, a prediction, the analysis, seconds. */
static void adds_everything(void *arg, struct grade *g)
{
	struct test_result *t = grade_add_test(g, "analysis: coalescing", GROUP_ANALYSIS, 5);
	test_fail(t, "%s saw %d sectors per request", (const char *)arg, 32);
	g->prediction.made = 1;
	g->prediction.percent_of_copy = 87.5;
	g->analysis = json_pack("{s:i}", "sectors_per_request", 32);
	g->internal_error = 1;
	snprintf(g->internal_message, sizeof(g->internal_message), "no occupancy table");
	g->step_seconds[0] = 0.25;
	g->step_seconds[1] = 0.5;
	g->n_steps = 2;
}

static void dies(void *arg, struct grade *g)
{
	(void)arg;
	grade_add_test(g, "never seen", GROUP_ANALYSIS, 5);
	abort();
}

static void sleeps(void *arg, struct grade *g)
{
	(void)arg, (void)g;
	sleep(30);
}

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The grade the main process holds: one test and one figure of its own. */
static void main_grade(struct grade *g)
{
	grade_init(g, &lab3_transpose);
	test_pass(grade_add_test(g, "correctness 32x32", GROUP_CORRECTNESS, 10), "%s", "");
	g->perf.measured = 1;
	g->perf.gbps = 2900;
}

Test(side, what_the_part_adds_joins_the_grade)
{
	struct grade g;
	struct side s;
	double seconds[2] = { -1, -1 };
	main_grade(&g);
	cr_assert_eq(side_start(&s, &lab3_transpose, adds_everything, "the emulator"), 0);
	cr_assert_gt(s.pid, 0);
	cr_assert_eq(side_join(&s, &g, seconds, 2), 0);
	cr_assert_eq(g.n_tests, 2, "its test after the grade's own");
	cr_expect_str_eq(g.tests[0].name, "correctness 32x32");
	cr_expect_str_eq(g.tests[1].name, "analysis: coalescing");
	cr_expect_eq(g.tests[1].status, TEST_FAILED);
	cr_expect_str_eq(g.tests[1].message, "the emulator saw 32 sectors per request");
	cr_expect_float_eq(g.perf.gbps, 2900, 1e-9);
	cr_expect_float_eq(g.prediction.percent_of_copy, 87.5, 1e-9);
	cr_expect_eq(json_integer_value(json_object_get(g.analysis, "sectors_per_request")), 32);
	cr_expect_float_eq(seconds[0], 0.25, 1e-12);
	cr_expect_float_eq(seconds[1], 0.5, 1e-12);
	cr_expect_eq(g.internal_error, 1);
	cr_expect_str_eq(g.internal_message, "no occupancy table");
	cr_expect_eq(s.pid, 0, "joined: nothing left running");
	grade_free(&g);
}

Test(side, a_part_that_dies_leaves_the_grade_unchanged)
{
	struct grade g;
	struct side s;
	double seconds[2] = { -1, -1 };
	main_grade(&g);
	cr_assert_eq(side_start(&s, &lab3_transpose, dies, NULL), 0);
	cr_expect_eq(side_join(&s, &g, seconds, 2), -1);
	cr_expect_eq(g.n_tests, 1);
	cr_expect_eq(g.prediction.made, 0);
	cr_expect_float_eq(g.perf.gbps, 2900, 1e-9);
	cr_expect_null(g.analysis);
	cr_expect_eq(g.internal_error, 0);
	cr_expect_float_eq(seconds[0], -1, 1e-12, "no seconds from a part that did not report");
	grade_free(&g);
}

Test(side, a_stopped_part_ends_at_once)
{
	struct grade g;
	struct side s;
	main_grade(&g);
	cr_assert_eq(side_start(&s, &lab3_transpose, sleeps, NULL), 0);
	pid_t pid = s.pid;
	double t0 = now();
	side_stop(&s);
	cr_expect_lt(now() - t0, 5, "stopping waited for the part");
	cr_expect_eq(s.pid, 0);
	cr_expect_eq(kill(pid, 0), -1, "the part still runs");
	cr_expect_eq(side_join(&s, &g, NULL, 0), -1, "a stopped part has nothing to join");
	cr_expect_eq(g.n_tests, 1);
	grade_free(&g);
}
