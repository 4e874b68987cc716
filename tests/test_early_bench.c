/*
 * A GPU's timing in the process that runs every correctness size first
 * (correctness_run with a bench order; struct early_bench): one CUDA
 * context a student, not two. The GPU's path, run here on the emulator's
 * build of the file at small sizes: the sizes of the shared-context tests,
 * and a timing of 64x64, two runs. With the launch check's run asked for
 * too, the analysis shape runs in the same process, between the sizes and
 * the timing.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "steps/correctness.h"
#include "steps/performance.h"
#include "sys/kit_paths.h"
#include "test_support.h"

extern const struct lab lab3_transpose;

#define SIZES 4
static const struct shape sizes[SIZES] = {
	{ 2, { 31, 33 } }, { 2, { 33, 31 } }, { 2, { 64, 64 } }, { 2, { 1, 1000 } },
};
static const struct shape timed = { 2, { 64, 64 } };

struct graded_run {
	struct rubric r;
	char work[64];
	struct build_result b;
	struct run_context ctx;
	struct grade g;
	struct early_bench early;
	struct gpu_launches analysis;	/* the analysis shape's run, where asked for */
};

/* The processes that wrote pids.txt in the run's folder. */
static int pids_in(const struct graded_run *run)
{
	char cmd[1200];
	int pids = -1;
	snprintf(cmd, sizeof(cmd), "sort -u %s/pids.txt 2>/dev/null | wc -l", run->work);
	FILE *p = popen(cmd, "r");
	cr_assert(p && fscanf(p, "%d", &pids) == 1);
	pclose(p);
	return pids;
}

/* Builds FILE for the emulator and runs the GPU's correctness path on it,
 * the timing asked for after the sizes, and the analysis shape before the
 * timing where analysis says so. */
static void run_checked(const char *file, int analysis, struct graded_run *run)
{
	memset(run, 0, sizeof(*run));
	snprintf(run->work, sizeof(run->work), "/tmp/early-bench-XXXXXX");
	emu_lab3_build(file, &run->r, run->work, &run->b);
	memcpy(run->r.shapes, sizes, sizeof(sizes));
	run->r.n_shapes = SIZES;
	run->r.test_timeout_s = 30;
	run->r.n_chart_shapes = 0;
	run->r.perf_shape = timed;
	run->r.runs = 2;
	run->r.bench_timeout_s = 60;
	/* The context a GPU's grade has: its children run harness_correct_many,
	 * here an emulator build of the harness, on the CPU. */
	run->ctx = (struct run_context){ .lab = &lab3_transpose, .rubric = &run->r, .harness = run->b.harness,
					 .work_dir = run->work, .backend = BACKEND_CUDA, .seed = 7 };
	grade_init(&run->g, &lab3_transpose);
	struct reference_times untimed = { .where = "here" };
	struct shape shapes[GRADE_MAX_BENCH];
	struct bench_order order;
	bench_order_for(&run->r, 0, shapes, &order);
	correctness_run(&run->ctx, BACKEND_CUDA, &untimed, NULL, &order, &run->early,
			analysis ? &run->analysis : NULL, &run->g);
}

static void run_with_timing(const char *file, struct graded_run *run)
{
	run_checked(file, 0, run);
}

static void expect_every_size_passed(const struct graded_run *run)
{
	for (int i = 0; i < run->g.n_tests; i++)
		cr_expect_eq(run->g.tests[i].status, TEST_PASSED, "%s: %s", run->g.tests[i].name,
			     run->g.tests[i].message);
}

/* The performance step on what the correctness run kept; its test. */
static const struct test_result *performance_of(struct graded_run *run)
{
	struct device_info dev = { .present = 1, .name = "stand-in", .peak_gbps = 1e6 };
	performance_run(&run->ctx, BACKEND_CUDA, 1, &run->early, NULL, NULL, &dev, NULL, &run->g);
	return &run->g.tests[run->g.n_tests - 1];
}

static void run_free(struct graded_run *run)
{
	early_bench_free(&run->early);
	grade_free(&run->g);
	emu_lab3_done(&run->r, run->work);
}

Test(early_bench, the_timing_runs_in_the_process_of_every_size, .timeout = 120)
{
	struct graded_run run;
	run_with_timing("tests/fixtures/shared/records_pid.cu", &run);
	expect_every_size_passed(&run);
	cr_expect_eq(run.g.correctness_processes, 1);
	cr_expect_eq(pids_in(&run), 1, "the sizes and the timing ran in %d processes", pids_in(&run));
	cr_assert(run.early.have, "the timing's report was not kept");
	json_t *t = json_array_get(run.early.part.timings, 0);
	cr_expect_eq(json_array_size(run.early.part.timings), 1);
	cr_expect_str_eq(json_string_value(json_object_get(t, "shape")), "64x64");
	cr_expect(run.early.part.ended, "the timing's part ends the process's report");

	/* The performance step reads it and starts no child: pids.txt gets no
	 * other process's id. */
	const struct test_result *perf = performance_of(&run);
	cr_expect_eq(perf->group, GROUP_PERFORMANCE);
	cr_expect_null(strstr(perf->message, "timing:"), "%s", perf->message);
	cr_expect_eq(run.g.n_bench, 1, "the timed size is recorded");
	cr_expect_eq(run.g.timing_processes, 0);
	cr_expect_eq(pids_in(&run), 1, "the performance step started a process of its own");
	run_free(&run);
}

/* A size that fails in the shared process: no timing is kept (a timing
 * counts only for a kernel correct at every size, each first run). */
Test(early_bench, a_failed_size_keeps_no_timing, .timeout = 120)
{
	struct graded_run run;
	run_with_timing("tests/fixtures/shared/crash_at_33_rows.cu", &run);
	cr_expect_eq(run.g.tests[1].status, TEST_FAILED, "%s", run.g.tests[1].message);
	cr_expect(!run.early.have);
	run_free(&run);
}

/* A kernel right at every size that copies its last output when called
 * again on the same size: the timing kept from the shared process catches
 * it as a timing of its own does (and times it again alone, which catches
 * it too). */
Test(early_bench, a_repeated_call_that_copies_is_caught_in_the_shared_timing, .timeout = 120)
{
	struct graded_run run;
	run_with_timing("tests/fixtures/hostile/gpu_repeat_copy.cu", &run);
	expect_every_size_passed(&run);
	cr_assert(run.early.have);
	const struct test_result *perf = performance_of(&run);
	cr_expect_eq(perf->status, TEST_FAILED);
	cr_expect(strstr(perf->message, "computed a wrong result"), "%s", perf->message);
	cr_expect_eq(run.g.timing_processes, 1, "timed again alone");
	run_free(&run);
}

/* The launch check's run at the analysis shape (launch_match.h) in the same
 * process: the sizes' verdicts and the timing as without it, the run read
 * and judged right (an emulator build logs no launches: logged is 0). */
Test(early_bench, the_analysis_shape_runs_between_the_sizes_and_the_timing, .timeout = 120)
{
	struct graded_run run;
	run_checked("tests/fixtures/shared/records_pid.cu", 1, &run);
	expect_every_size_passed(&run);
	cr_expect_eq(run.g.n_tests, SIZES, "the analysis shape is no test");
	cr_expect_eq(run.g.hangs, 0);
	cr_expect_eq(pids_in(&run), 1, "the sizes, the analysis shape and the timing ran in %d processes",
		     pids_in(&run));
	cr_assert(run.analysis.have, "the analysis shape's run was not read");
	cr_expect(run.analysis.right, "%s", run.analysis.why);
	cr_expect(!run.analysis.logged);
	cr_assert(run.early.have, "the timing's report was not kept");
	json_t *t = json_array_get(run.early.part.timings, 0);
	cr_expect_str_eq(json_string_value(json_object_get(t, "shape")), "64x64");
	run_free(&run);
}

/* A size that fails ends the first run early, as without the analysis
 * shape: its run is then not made there (the launch check runs it alone). */
Test(early_bench, a_run_cut_short_makes_no_analysis_run, .timeout = 120)
{
	struct graded_run run;
	run_checked("tests/fixtures/shared/crash_at_33_rows.cu", 1, &run);
	cr_expect_eq(run.g.tests[1].status, TEST_FAILED, "%s", run.g.tests[1].message);
	cr_expect(!run.analysis.have);
	run_free(&run);
}
