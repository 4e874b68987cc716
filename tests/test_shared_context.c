/*
 * On a GPU, correctness runs every size in one process (one CUDA context)
 * and falls back to one process per size after the first failure. Driven
 * here through the emulator's harness, with the GPU's path chosen: a crash,
 * a wrong word or a hang costs one size only, and a size that fails in the
 * shared process is judged again alone.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "steps/build.h"
#include "steps/correctness.h"
#include "sys/kit_paths.h"
#include "test_support.h"

extern const struct lab lab3_transpose;

#define SIZES 4
static const struct shape sizes[SIZES] = {
	{ 2, { 31, 33 } }, { 2, { 33, 31 } }, { 2, { 64, 64 } }, { 2, { 1, 1000 } },
};

/* Builds FILE for the emulator and runs the GPU's correctness path on it;
 * with pids, also returns how many different processes wrote pids.txt. */
static int shared_grade_pids(const char *file, double timeout_s, struct grade *g, int *pids)
{
	struct rubric r;
	char work[] = "/tmp/shared-context-XXXXXX";
	struct build_result b;
	emu_lab3_build(file, &r, work, &b);
	memcpy(r.shapes, sizes, sizeof(sizes));
	r.n_shapes = SIZES;
	r.test_timeout_s = timeout_s;
	struct run_context ctx = { .lab = &lab3_transpose, .rubric = &r, .harness = b.harness, .work_dir = work,
				   .backend = BACKEND_EMU, .seed = 7 };
	grade_init(g, &lab3_transpose);
	struct reference_times untimed = { .where = "here" };	/* every size: the rubric's limit */
	int failed = correctness_run(&ctx, BACKEND_CUDA, &untimed, g);
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
	cr_expect_eq(g.hangs, 1, "the shared process's time-out is not counted as a hang");
	grade_free(&g);
}

Test(shared_context, a_failure_is_judged_again_alone)
{
	struct grade g;
	cr_expect_eq(shared_grade("tests/fixtures/shared/wrong_after_first_call.cu", 30, &g), 0);
	expect_all_pass(&g);
	grade_free(&g);
}
