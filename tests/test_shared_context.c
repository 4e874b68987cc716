/*
 * On a GPU, correctness runs every size in one process (one CUDA context).
 * A size that fails and leaves the process running (a wrong word, a canary)
 * is judged there; one that ends it (a crash, a hang, an exit) runs again
 * first in a new process, which goes on with the sizes after it
 * (steps/correctness_plan.h); an exit() in the entry point ends only its
 * size, the harness going on. Driven here through the emulator's harness,
 * with the GPU's path chosen: a crash, a wrong word, a hang or an exit
 * costs one size only, and each grade says how many processes it started. The
 * shared_context_gpu suite counts them on a real GPU.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "grade_runner.h"
#include "steps/build.h"
#include "harness_report.h"
#include "steps/correctness.h"
#include "steps/harness_door.h"
#include "sys/kit_paths.h"
#include "test_support.h"

extern const struct lab lab3_transpose;

#define SIZES 4
static const struct shape sizes[SIZES] = {
	{ 2, { 31, 33 } }, { 2, { 33, 31 } }, { 2, { 64, 64 } }, { 2, { 1, 1000 } },
};

/* Builds FILE for the emulator and runs the GPU's correctness path on it
 * at n shapes; with pids, also returns how many different processes wrote
 * pids.txt. */
static int grade_shapes(const char *file, double timeout_s, const struct shape *shapes, int n, struct grade *g,
			int *pids)
{
	struct rubric r;
	char work[] = "/tmp/shared-context-XXXXXX";
	struct build_result b;
	emu_lab3_build(file, &r, work, &b);
	memcpy(r.shapes, shapes, sizeof(*shapes) * (size_t)n);
	r.n_shapes = n;
	r.test_timeout_s = timeout_s;
	struct run_context ctx = { .lab = &lab3_transpose, .rubric = &r, .harness = b.harness, .work_dir = work,
				   .backend = BACKEND_EMU, .seed = 7 };
	grade_init(g, &lab3_transpose);
	struct reference_times untimed = { .where = "here" };	/* every size: the rubric's limit */
	int failed = correctness_run(&ctx, BACKEND_CUDA, &untimed, NULL, NULL, NULL, NULL, g);
	if (pids) {
		char cmd[1200];
		snprintf(cmd, sizeof(cmd), "sort -u %s/pids.txt | wc -l", work);
		FILE *p = popen(cmd, "r");
		cr_assert(p && fscanf(p, "%d", pids) == 1);
		pclose(p);
	}
	char rm[1100];
	snprintf(rm, sizeof(rm), "rm -rf %s", work);
	cr_expect_eq(system(rm), 0);
	rubric_free(&r);
	return failed;
}

static int shared_grade_pids(const char *file, double timeout_s, struct grade *g, int *pids)
{
	return grade_shapes(file, timeout_s, sizes, SIZES, g, pids);
}

static int shared_grade(const char *file, double timeout_s, struct grade *g)
{
	return shared_grade_pids(file, timeout_s, g, NULL);
}

static void expect_all_pass(const struct grade *g)
{
	cr_assert_eq(g->n_tests, SIZES);
	for (int i = 0; i < SIZES; i++)
		cr_expect_eq(g->tests[i].status, TEST_PASSED, "%s: %s", g->tests[i].name,
			     g->tests[i].message);
}

Test(shared_context, every_size_passes_in_one_process)
{
	struct grade g;
	cr_expect_eq(shared_grade("solutions/lab3-transpose/transpose.cu", 30, &g), 0);
	expect_all_pass(&g);
	grade_free(&g);
}

Test(shared_context, one_process_runs_every_size)
{
	struct grade g;
	int pids = 0;
	cr_expect_eq(shared_grade_pids("tests/fixtures/shared/records_pid.cu", 30, &g, &pids), 0);
	expect_all_pass(&g);
	cr_expect_eq(pids, 1, "%d processes ran the %d sizes", pids, SIZES);
	grade_free(&g);
}

/* Sizes 31x33, 33x31 (crash), 64x64 (wrong word), 1x1000 (hang). */
Test(shared_context, a_crash_a_wrong_word_and_a_hang_cost_one_size_each, .timeout = 60)
{
	struct grade g;
	cr_expect_eq(shared_grade("tests/fixtures/shared/one_fault_per_size.cu", 3, &g), 3);
	cr_assert_eq(g.n_tests, SIZES);
	const char *why[SIZES] = { NULL, "33x31: the program was killed by signal 11",
				   "64x64: first wrong element is out[63][63]",
				   "1x1000: transpose() did not finish in time" };
	for (int i = 0; i < SIZES; i++) {
		const struct test_result *t = &g.tests[i];
		cr_expect_eq(t->status == TEST_PASSED, why[i] == NULL, "%s: %s", t->name, t->message);
		if (why[i])
			cr_expect(strstr(t->message, why[i]), "%s: %s", t->name, t->message);
	}
	cr_expect_eq(g.hangs, 1, "the resumed process's time-out past its first size is not counted");
	/* The shared run (ends at 33x31); 33x31 first in its own (crashes
	 * again); 64x64 wrong there, and on to 1x1000, which hangs; 1x1000
	 * alone. */
	cr_expect_eq(g.correctness_processes, 4);
	grade_free(&g);
}

/* The sizes after a crash resume in one process, not one process each. */
Test(shared_context, a_crash_costs_its_size_alone_and_one_process_for_the_rest)
{
	struct grade g;
	cr_expect_eq(shared_grade("tests/fixtures/shared/crash_at_33_rows.cu", 30, &g), 1);
	cr_assert_eq(g.n_tests, SIZES);
	for (int i = 0; i < SIZES; i++)
		cr_expect_eq(g.tests[i].status == TEST_PASSED, i != 1, "%s: %s", g.tests[i].name,
			     g.tests[i].message);
	cr_expect_eq(g.tests[1].failure.kind, FAILURE_CRASH, "%s", g.tests[1].message);
	cr_expect_eq(g.correctness_processes, 3, "%d processes (before: 1 + %d)", g.correctness_processes,
		     SIZES - 1);
	grade_free(&g);
}

/* Six sizes, the first two with 33 rows. */
#define SIX 6
static const struct shape six[SIX] = {
	{ 2, { 33, 31 } }, { 2, { 33, 64 } }, { 2, { 64, 64 } },
	{ 2, { 1, 1000 } }, { 2, { 31, 33 } }, { 2, { 48, 48 } },
};

/* Grades file at the six sizes, expecting each to fail the way kind says
 * but 64x64 and 31x33, which are not run: the first two sizes, each first
 * in its process, then the last (48x48) and a middle one (1x1000) brought
 * forward, ended it the same way. Returns the processes it started. */
static int ends_every_size(const char *file, enum failure_kind kind)
{
	struct grade g;
	cr_expect_eq(grade_shapes(file, 30, six, SIX, &g, NULL), SIX);
	cr_assert_eq(g.n_tests, SIX);
	for (int i = 0; i < SIX; i++) {
		const struct test_result *t = &g.tests[i];
		int not_run = i == 2 || i == 4;
		cr_expect_eq(t->failure.kind, not_run ? FAILURE_NOT_RUN : kind, "%s: %s", t->name, t->message);
		if (not_run)
			cr_expect(strstr(t->message, "not run: transpose() ended its process the same way at "
					 "33x31 and 33x64, then at 48x48 and 1x1000"), "%s: %s", t->name, t->message);
	}
	int processes = g.correctness_processes;
	grade_free(&g);
	return processes;
}

/* A crash at every size: the opening run crashes at 33x31, then 33x31
 * runs alone (its verdict), and the rest as ends_every_size says. */
Test(shared_context, a_crash_at_every_size_costs_four_processes_not_one_a_size)
{
	int processes = ends_every_size("tests/fixtures/hostile/segfault.cu", FAILURE_CRASH);
	cr_expect_eq(processes, 4, "%d processes (before: %d)", processes, SIX);
}

/* A file that leaves a forged trace (MSG_METRICS) in the channel at every
 * size: the GPU's correctness run never sends one, so each report holding
 * it is the student's, and fails. The shared run cannot be cut (two traces
 * in its last size); then 33x31 alone and 33x64 alone end the same way,
 * and so on: 5 processes, not 1 + 6, and no size passes. Before, each size
 * alone passed: the forged frame came only where no trace was expected,
 * and was ignored. */
Test(shared_context, a_frame_its_run_never_sends_fails_the_size)
{
	int processes = ends_every_size("tests/fixtures/hostile/forge_metrics_stream.cu", FAILURE_CHANNEL_TAMPERED);
	cr_expect_eq(processes, 5, "%d processes (before: 1 + %d)", processes, SIX);
}

/* A crash at the first two sizes only (33 rows): the last size, brought
 * forward, passes, and every other size is run and passes. */
Test(shared_context, a_crash_at_the_first_sizes_only_docks_no_other_size)
{
	struct grade g;
	cr_expect_eq(grade_shapes("tests/fixtures/shared/crash_at_33_rows.cu", 30, six, SIX, &g, NULL), 2);
	cr_assert_eq(g.n_tests, SIX);
	for (int i = 0; i < SIX; i++)
		cr_expect_eq(g.tests[i].status == TEST_PASSED, i >= 2, "%s: %s", g.tests[i].name,
			     g.tests[i].message);
	/* the opening run, 33x64 alone, 48x48 alone, 64x64 to 31x33 */
	cr_expect_eq(g.correctness_processes, 4);
	grade_free(&g);
}

/* A wrong word leaves the process running: every size is judged in it. */
Test(shared_context, a_kernel_wrong_at_every_size_costs_one_process)
{
	struct grade g;
	cr_expect_eq(shared_grade("tests/fixtures/hostile/write_past_end.cu", 30, &g), SIZES);
	cr_assert_eq(g.n_tests, SIZES);
	for (int i = 0; i < SIZES; i++)
		cr_expect_eq(g.tests[i].failure.kind, FAILURE_WROTE_PAST_OUTPUT, "%s: %s", g.tests[i].name,
			     g.tests[i].message);
	cr_expect_eq(g.correctness_processes, 1, "%d processes (before: 1 + %d)", g.correctness_processes,
		     SIZES);
	grade_free(&g);
}

/* An exit() in the entry point ends only its size: the harness catches it
 * and goes on in the same process (grader/harness/student_exit.h). Before,
 * each size needed a process to end, after the shared run: 1 + SIZES. */
Test(shared_context, an_exit_at_every_size_costs_one_process)
{
	struct grade g;
	cr_expect_eq(shared_grade("tests/fixtures/hostile/exit_in_entry.cu", 30, &g), SIZES);
	cr_assert_eq(g.n_tests, SIZES);
	for (int i = 0; i < SIZES; i++) {
		const struct test_result *t = &g.tests[i];
		cr_expect_eq(t->failure.kind, FAILURE_EXIT_INSIDE_CALL, "%s: %s", t->name, t->message);
		cr_expect(strstr(t->message, "your code called exit(0) inside transpose()"), "%s: %s", t->name,
			  t->message);
	}
	cr_expect_eq(g.correctness_processes, 1, "%d processes (before: 1 + %d)", g.correctness_processes,
		     SIZES);
	grade_free(&g);
}

/* An exit() at 33x31 only: that size fails with its status, the others
 * pass where they ran, after it, in the same process. */
Test(shared_context, an_exit_at_one_size_fails_that_size_only)
{
	struct grade g;
	cr_expect_eq(shared_grade("tests/fixtures/shared/exit_at_33_rows.cu", 30, &g), 1);
	cr_assert_eq(g.n_tests, SIZES);
	for (int i = 0; i < SIZES; i++)
		cr_expect_eq(g.tests[i].status == TEST_PASSED, i != 1, "%s: %s", g.tests[i].name,
			     g.tests[i].message);
	cr_expect_eq(g.tests[1].failure.kind, FAILURE_EXIT_INSIDE_CALL, "%s", g.tests[1].message);
	cr_expect(strstr(g.tests[1].message, "33x31: your code called exit(3) inside transpose()"), "%s",
		  g.tests[1].message);
	cr_expect_eq(g.correctness_processes, 1, "%d processes (before: 3)", g.correctness_processes);
	grade_free(&g);
}

/* An exit() from an emulated kernel's thread runs on a stack of the
 * emulator's: not caught, it ends the process as before (3 processes, as
 * a crash at 33x31 costs). */
Test(shared_context, an_exit_from_a_kernels_stack_still_ends_the_process)
{
	struct grade g;
	cr_expect_eq(shared_grade("tests/fixtures/shared/exit_in_kernel_at_33_rows.cu", 30, &g), 1);
	cr_assert_eq(g.n_tests, SIZES);
	for (int i = 0; i < SIZES; i++)
		cr_expect_eq(g.tests[i].status == TEST_PASSED, i != 1, "%s: %s", g.tests[i].name,
			     g.tests[i].message);
	cr_expect(g.tests[1].failure.kind == FAILURE_EXIT_INSIDE_CALL && !g.tests[1].failure.exit_caught,
		  "%s", g.tests[1].message);
	cr_expect_eq(g.correctness_processes, 3);
	grade_free(&g);
}

/* A report written onto the channel before the exit() (the right output,
 * MSG_DONE, MSG_END) is cut away with everything else written during the
 * call: each size is the exit it was, not a pass, not a channel tampered
 * with. */
Test(shared_context, a_report_forged_before_an_exit_is_cut_away)
{
	struct grade g;
	cr_expect_eq(shared_grade("tests/fixtures/hostile/forge_report_then_exit.cu", 30, &g), SIZES);
	cr_assert_eq(g.n_tests, SIZES);
	for (int i = 0; i < SIZES; i++)
		cr_expect_eq(g.tests[i].failure.kind, FAILURE_EXIT_INSIDE_CALL, "%s: %s", g.tests[i].name,
			     g.tests[i].message);
	cr_expect_eq(g.correctness_processes, 1);
	grade_free(&g);
}

/* exit() from an atexit handler or a destructor, after the entry point
 * returned: neither runs (the harness ends with _exit), as before. */
Test(shared_context, an_exit_after_the_entry_point_returned_changes_nothing)
{
	struct grade g;
	cr_expect_eq(shared_grade("tests/fixtures/shared/exit_after_return.cu", 30, &g), 0);
	expect_all_pass(&g);
	cr_expect_eq(g.correctness_processes, 1);
	grade_free(&g);
}

/* The timed verb catches nothing: an exit() ends its process at once, with
 * the harness's status for it, and nothing is timed. */
Test(shared_context, an_exit_still_ends_a_timed_run, .timeout = 120)
{
	struct rubric r;
	char work[] = "/tmp/shared-context-XXXXXX", err[256];
	struct build_result b;
	struct harness_report rep;
	emu_lab3_build("tests/fixtures/hostile/exit_in_entry.cu", &r, work, &b);
	r.runs = 2;
	r.bench_timeout_s = 60;
	struct run_context ctx = { .lab = &lab3_transpose, .rubric = &r, .harness = b.harness, .work_dir = work,
				   .backend = BACKEND_EMU, .seed = 7 };
	struct bench_order one = { &sizes[2], 1, 0 };
	cr_assert_eq(harness_bench(&ctx, b.harness, &one, &rep, err, sizeof(err)), 0, "%s", err);
	cr_expect(rep.child.exited && rep.child.exit_status == HARNESS_STUDENT_EXIT, "exited %d, status %d",
		  rep.child.exited, rep.child.exit_status);
	cr_expect_eq(json_array_size(rep.timings), 0);
	cr_expect(!rep.ended);
	harness_report_free(&rep);
	char rm[1100];
	snprintf(rm, sizeof(rm), "rm -rf %s", work);
	cr_expect_eq(system(rm), 0);
	rubric_free(&r);
}

/* State kept between calls: the sizes after the first are wrong where they
 * ran, after another size in the same process, as a class's timed runs
 * (performance) find them too; before, each was judged again alone. */
Test(shared_context, a_kernel_wrong_from_its_second_call_is_wrong_there)
{
	struct grade g;
	cr_expect_eq(shared_grade("tests/fixtures/shared/wrong_after_first_call.cu", 30, &g), SIZES - 1);
	cr_assert_eq(g.n_tests, SIZES);
	cr_expect_eq(g.tests[0].status, TEST_PASSED, "%s", g.tests[0].message);
	for (int i = 1; i < SIZES; i++)
		cr_expect_eq(g.tests[i].failure.kind, FAILURE_WRONG_OUTPUT, "%s: %s", g.tests[i].name,
			     g.tests[i].message);
	cr_expect_eq(g.correctness_processes, 1);
	grade_free(&g);
}

/* ---- on a GPU ----------------------------------------------------------------------- */

/* The children correctness started, as the JSON report says (-1: absent). */
static long long gpu_processes(const char *file, const char *verdict)
{
	struct graded g;
	cr_assert_eq(run_grade("lab3", file, "cuda", NULL, &g), 0);
	cr_assert_not_null(g.report, "%s", g.output);
	cr_expect_str_eq(group_verdict(g.report, "correctness"), verdict, "%s", g.output);
	json_t *n = json_object_get(g.report, "correctness_processes");
	long long processes = json_is_integer(n) ? json_integer_value(n) : -1;
	cr_log_info("%s: %lld correctness processes on a GPU", file, processes);
	graded_free(&g);
	return processes;
}

Test(shared_context_gpu, each_failure_costs_the_processes_it_must, .timeout = 300)
{
	char why[512];
	if (!have_gpu(why, sizeof(why)))
		cr_skip_test("needs a CUDA GPU: %s", why);
	/* lab 3's ten sizes: 33x31 is the fifth. Before: 1, 1 + 6, 1 + 10, 1 + 9. */
	cr_expect_eq(gpu_processes("solutions/lab3-transpose/transpose.cu", "pass"), 1);
	cr_expect_eq(gpu_processes("tests/fixtures/shared/crash_at_33_rows.cu", "fail"), 3);
	cr_expect_eq(gpu_processes("tests/fixtures/hostile/write_past_end.cu", "fail"), 1);
	cr_expect_eq(gpu_processes("tests/fixtures/shared/wrong_after_first_call.cu", "fail"), 1);
	/* An exit() ends only its size: before, 1 + 10 and 1 + 6. */
	cr_expect_eq(gpu_processes("tests/fixtures/hostile/exit_in_entry.cu", "fail"), 1);
	cr_expect_eq(gpu_processes("tests/fixtures/shared/exit_at_33_rows.cu", "fail"), 1);
	/* A crash at every size: the first two, then the last and a middle
	 * one; before, 10. */
	cr_expect_eq(gpu_processes("tests/fixtures/hostile/segfault.cu", "fail"), 4);
	/* A forged trace at every size: the shared run, two alone, then the
	 * last and a middle one; before, 1 + 10, every size passing. */
	cr_expect_eq(gpu_processes("tests/fixtures/hostile/forge_metrics_stream.cu", "fail"), 5);
}

/* A correct file is timed by its correctness run's process, after its
 * sizes: one CUDA context for the grade (the performance step starts no
 * child), and the full marks of an answer key, lab 4's sweep included. */
Test(shared_context_gpu, a_correct_file_is_timed_in_its_correctness_process, .timeout = 300)
{
	char why[512];
	if (!have_gpu(why, sizeof(why)))
		cr_skip_test("needs a CUDA GPU: %s", why);
	const char *labs[] = { "lab3", "lab4" };
	for (int i = 0; i < 2; i++) {
		struct graded g;
		cr_assert_eq(run_grade(labs[i], NULL, "cuda", NULL, &g), 0);
		cr_assert_not_null(g.report, "%s", g.output);
		json_t *c = json_object_get(g.report, "correctness_processes");
		json_t *t = json_object_get(g.report, "timing_processes");
		cr_expect(json_is_integer(c) && json_integer_value(c) == 1, "%s\n%s", labs[i], g.output);
		cr_expect(json_is_integer(t) && json_integer_value(t) == 0, "%s\n%s", labs[i], g.output);
		cr_expect_eq(g.exit_status, 0, "%s: exit %d\n%s", labs[i], g.exit_status, g.output);
		graded_free(&g);
	}
}
