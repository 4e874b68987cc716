/*
 * grader/steps/side.c: a part of a grade in a forked grader. What the part
 * adds to its grade comes back whole, or not at all; a part that dies or
 * is stopped leaves the grade as it was.
 */
#include <criterion/criterion.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
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

/* About half a CPU-second of work, then a report. */
static void burns_cpu(void *arg, struct grade *g)
{
	(void)arg, (void)g;
	volatile double x = 0;
	for (clock_t end = clock() + CLOCKS_PER_SEC / 2; clock() < end;)
		x += 1;
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
	double cpu = -1;
	cr_assert_eq(side_join(&s, &g, seconds, 2, &cpu), 0);
	cr_assert_eq(g.n_tests, 2, "its test after the grade's own");
	cr_expect(cpu >= 0 && cpu < 1, "the part's CPU seconds: %f", cpu);
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
	double cpu = -1;
	cr_expect_eq(side_join(&s, &g, seconds, 2, &cpu), -1);
	cr_expect_float_eq(cpu, -1, 1e-12, "no CPU seconds from a part that did not report");
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
	cr_expect_eq(side_join(&s, &g, NULL, 0, NULL), -1, "a stopped part has nothing to join");
	cr_expect_eq(g.n_tests, 1);
	grade_free(&g);
}

static double children_cpu(void)
{
	struct rusage ru;
	getrusage(RUSAGE_CHILDREN, &ru);
	return (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
	       (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

/* The grader reaps whatever child has ended after each sandboxed run
 * (uid_reap_orphans): a part that has reported waits to be joined, so that
 * it is reaped at the join and what it used counts there, once, as what it
 * said it used (the grade takes it out of the joining step's CPU seconds). */
Test(side, a_part_is_reaped_at_its_join_and_says_what_it_used)
{
	struct grade g;
	struct side s;
	double cpu = -1;
	main_grade(&g);
	cr_assert_eq(side_start(&s, &lab3_transpose, burns_cpu, NULL), 0);
	struct pollfd report = { .fd = s.fd, .events = POLLIN };
	cr_assert_eq(poll(&report, 1, 20000), 1, "the part did not report");
	struct timespec nap = { 0, 200 * 1000 * 1000 };
	nanosleep(&nap, NULL);
	cr_assert_eq(waitpid(-1, NULL, WNOHANG), 0, "the part could be reaped before its join");
	double before = children_cpu();
	cr_assert_eq(side_join(&s, &g, NULL, 0, &cpu), 0);
	double reaped = children_cpu() - before;
	cr_expect(cpu > 0.3 && cpu < 2, "the part said it used %.3f CPU seconds", cpu);
	cr_expect(reaped > cpu - 0.02 && reaped < cpu + 0.05,
		  "%.3f CPU seconds reaped at the join, %.3f said", reaped, cpu);
	grade_free(&g);
}
