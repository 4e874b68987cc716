/*
 * One program on both machines (grader/steps/launch_match.h): the launches
 * the emulator analysed against those the GPU made, fed as typed lists and
 * as the two JSON forms; names are compared as the kernel's own name.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "steps/launch_match.h"

extern const struct lab lab2_blelloch_scan;

static const unsigned G1[3] = { 64, 1, 1 }, G2[3] = { 1, 1, 1 }, B[3] = { 1024, 1, 1 }, B2[3] = { 32, 32, 1 };

Test(launch_match, names_are_the_kernels_own)
{
	char n[96];
	launch_base_name("void ns::scan_step<true, 4>(unsigned int*, unsigned int const*, unsigned long)", n, sizeof n);
	cr_expect_str_eq(n, "scan_step");
	launch_base_name("ns::scan_step<T, 4>", n, sizeof n);
	cr_expect_str_eq(n, "scan_step");
	launch_base_name("::add_sums", n, sizeof n);
	cr_expect_str_eq(n, "add_sums");
	launch_base_name("transpose_tiled", n, sizeof n);
	cr_expect_str_eq(n, "transpose_tiled");
}

Test(launch_match, the_same_launches_in_any_order_match)
{
	struct launch_list emu = { 0 }, gpu = { 0 };
	char why[512] = "";
	launch_list_add(&emu, "scan_blocks", G1, B, 0, 1);
	launch_list_add(&emu, "scan_blocks", G2, B, 0, 1);
	launch_list_add(&emu, "add_sums", G1, B, 0, 1);
	launch_list_add(&gpu, "void add_sums(unsigned int*, unsigned int const*)", G1, B, 0, 1);
	launch_list_add(&gpu, "void scan_blocks(unsigned int*)", G2, B, 0, 1);
	launch_list_add(&gpu, "void scan_blocks(unsigned int*)", G1, B, 0, 1);
	cr_expect_eq(launch_lists_differ(&emu, &gpu, why, sizeof why), 0, "%s", why);
}

Test(launch_match, each_difference_is_named)
{
	struct launch_list emu = { 0 }, gpu = { 0 };
	char why[512];
	launch_list_add(&emu, "blelloch", G1, B, 0, 1);
	launch_list_add(&gpu, "hillis_steele", G1, B, 0, 1);
	cr_expect_eq(launch_lists_differ(&emu, &gpu, why, sizeof why), 1);
	cr_expect(strstr(why, "the emulator launched blelloch<<<(64, 1, 1), (1024, 1, 1), 0>>>"), "%s", why);

	memset(&gpu, 0, sizeof gpu);
	launch_list_add(&gpu, "blelloch", G1, B2, 0, 1);	/* same threads, other shape */
	cr_expect_eq(launch_lists_differ(&emu, &gpu, why, sizeof why), 1, "a block's shape counts");

	memset(&gpu, 0, sizeof gpu);
	launch_list_add(&gpu, "blelloch", G1, B, 4096, 1);
	cr_expect_eq(launch_lists_differ(&emu, &gpu, why, sizeof why), 1, "dynamic shared memory counts");

	memset(&gpu, 0, sizeof gpu);
	launch_list_add(&gpu, "blelloch", G1, B, 0, 2);
	cr_expect_eq(launch_lists_differ(&emu, &gpu, why, sizeof why), 1);
	cr_expect(strstr(why, "1 time, the GPU 2"), "%s", why);

	/* A launch the GPU made and the emulator did not. */
	memset(&gpu, 0, sizeof gpu);
	launch_list_add(&gpu, "blelloch", G1, B, 0, 1);
	launch_list_add(&gpu, "copy", G1, B, 0, 1);
	cr_expect_eq(launch_lists_differ(&emu, &gpu, why, sizeof why), 1);
	cr_expect(strstr(why, "the GPU launched copy"), "%s", why);

	gpu.overflow = 1;
	cr_expect_eq(launch_lists_differ(&emu, &gpu, why, sizeof why), 1, "an overflowing log is never believed");
}

Test(launch_match, both_json_forms_are_read)
{
	json_error_t err;
	json_t *metrics = json_loads("{\"launches\":[{\"kernel\":\"ns::k<4>\",\"grid\":[8,2,1],\"block\":[32,8,1],"
				     "\"dynamic_shared_bytes\":0},{\"kernel\":\"ns::k<4>\",\"grid\":[8,2,1],"
				     "\"block\":[32,8,1],\"dynamic_shared_bytes\":0}]}", 0, &err);
	json_t *log = json_loads("[{\"kernel\":\"_ZN2ns1kILi4EEEvPj\",\"name\":\"void ns::k<4>(unsigned int*)\","
				 "\"grid\":16,\"threads\":256,\"grid_dims\":[8,2,1],\"block_dims\":[32,8,1],"
				 "\"dynamic_shared\":0,\"count\":2}]", 0, &err);
	struct launch_list emu, gpu;
	char why[512] = "";
	cr_assert_eq(launch_list_from_metrics(metrics, &emu), 0);
	cr_assert_eq(launch_list_from_log(log, 0, &gpu), 0);
	cr_expect_eq(emu.n, 1);
	cr_expect_eq(emu.e[0].count, 2);
	cr_expect_eq(launch_lists_differ(&emu, &gpu, why, sizeof why), 0, "%s", why);
	json_t *bad = json_loads("[{\"kernel\":\"k\",\"grid\":16}]", 0, &err);
	cr_expect_eq(launch_list_from_log(bad, 0, &gpu), -1, "a log without dimensions is not read as one");
	json_decref(metrics);
	json_decref(log);
	json_decref(bad);
}

/* An emulator run ended by a fault launched part of what the GPU ran
 * whole: its launches are within the GPU's. Another program's are not. */
Test(launch_match, a_run_cut_short_by_a_fault_is_within_the_gpus)
{
	struct launch_list emu = { 0 }, gpu = { 0 };
	launch_list_add(&gpu, "scan_blocks", G1, B, 0, 1);
	launch_list_add(&gpu, "scan_blocks", G2, B, 0, 1);
	launch_list_add(&gpu, "add_sums", G1, B, 0, 1);
	cr_expect_eq(launch_list_within(&emu, &gpu), 0, "no launch at all stands for nothing");
	launch_list_add(&emu, "void scan_blocks(unsigned int*)", G1, B, 0, 1);
	cr_expect_eq(launch_list_within(&emu, &gpu), 1, "the first launch, where the fault ended the run");
	launch_list_add(&emu, "scan_blocks", G1, B, 0, 1);
	cr_expect_eq(launch_list_within(&emu, &gpu), 0, "more times than the GPU launched it");
	memset(&emu, 0, sizeof emu);
	launch_list_add(&emu, "scan_blocks", G1, B2, 0, 1);
	cr_expect_eq(launch_list_within(&emu, &gpu), 0, "a launch of another shape");
	memset(&emu, 0, sizeof emu);
	launch_list_add(&emu, "scan_blocks", G1, B, 0, 1);
	gpu.overflow = 1;
	cr_expect_eq(launch_list_within(&emu, &gpu), 0, "a list that overflowed proves nothing");
}

/* A grade with one passing analysis test and the emulator's launches: k,
 * once, 64 blocks of 1024 threads. */
static void analysed_grade(struct grade *g)
{
	json_error_t err;
	grade_init(g, &lab2_blelloch_scan);
	test_pass(grade_add_test(g, "analysis: races", GROUP_ANALYSIS, 1), "%s", "");
	g->analysis = json_loads("{\"launches\":[{\"kernel\":\"k\",\"grid\":[64,1,1],\"block\":[1024,1,1],"
				 "\"dynamic_shared_bytes\":0}]}", 0, &err);
	cr_assert_not_null(g->analysis, "%s", err.text);
}

/* The launch check settled by the correctness process's run at the
 * analysis shape (launch_match.h): the same launches and a right output
 * believe the analysis with no process of its own; other launches do not
 * settle it, and a process of its own is asked for (none can start here:
 * the harness does not exist); a run that timed out is not run again. */
Test(launch_match, the_run_after_the_sizes_settles_only_the_same_launches)
{
	struct rubric r = { .analysis_shape = { 1, { 70000 } } };
	struct run_context ctx = { .lab = &lab2_blelloch_scan, .rubric = &r, .backend = BACKEND_CUDA,
				   .harness = "/nonexistent/harness", .work_dir = "/nonexistent", .seed = 3 };
	struct gpu_launches run = { .have = 1, .right = 1, .logged = 1 };
	launch_list_add(&run.list, "void k(unsigned int*)", G1, B, 0, 1);
	struct grade g;
	analysed_grade(&g);
	launch_match_apply(&ctx, &run, &g);
	cr_expect(g.launch_match.checked && g.launch_match.believed, "%s", g.launch_match.why);
	cr_expect(!g.launch_match.own_process);
	cr_expect_eq(g.tests[0].status, TEST_PASSED);
	grade_free(&g);

	memset(&run.list, 0, sizeof run.list);
	launch_list_add(&run.list, "k", G2, B, 0, 1);
	analysed_grade(&g);
	launch_match_apply(&ctx, &run, &g);
	cr_expect(!g.launch_match.believed);
	cr_expect(strstr(g.launch_match.why, "could not start") || g.launch_match.own_process,
		  "other launches after the sizes settled it: %s", g.launch_match.why);
	cr_expect_eq(g.tests[0].failure.kind, FAILURE_NOT_BELIEVED);
	grade_free(&g);

	/* A run after the sizes that ran past its limit: not believed, and not
	 * run again to pay the limit twice. */
	run = (struct gpu_launches){ .have = 1, .failure = { .kind = FAILURE_TIME_LIMIT } };
	snprintf(run.why, sizeof run.why, "70000: did not finish in time");
	analysed_grade(&g);
	launch_match_apply(&ctx, &run, &g);
	cr_expect(!g.launch_match.believed && !g.launch_match.own_process);
	cr_expect(strstr(g.launch_match.why, "did not finish in time"), "%s", g.launch_match.why);
	grade_free(&g);
}

/* A later call's launches against the analysed call's (launch_match.h): the
 * same ones, as many times each, need no second analysis; fewer (the first
 * call also warmed up, or diluted its figures with other launches), more or
 * others do; and once the analysis is final a later call that differs
 * fails every analysis test, naming the difference and the analysed call. */
Test(launch_match, a_later_call_must_launch_what_the_analysed_call_did)
{
	struct rubric r = { .analysis_shape = { 1, { 70000 } } };
	struct run_context ctx = { .lab = &lab2_blelloch_scan, .rubric = &r, .backend = BACKEND_EMU, .seed = 3 };
	struct launch_list later = { 0 };
	struct grade g;
	json_error_t err;
	analysed_grade(&g);
	launch_list_add(&later, "k", G1, B, 0, 1);
	cr_expect_eq(launch_match_later_differs(&later, &g), 0, "the same launches");
	launch_list_add(&later, "k", G1, B, 0, 1);
	cr_expect_eq(launch_match_later_differs(&later, &g), 1, "k twice where the analysed call launched it once");
	grade_free(&g);

	/* A first call that diluted k among eight launches of another kernel. */
	analysed_grade(&g);
	json_decref(g.analysis);
	g.analysis = json_loads("{\"launches\":[{\"kernel\":\"k\",\"grid\":64,\"block\":1024,\"dynamic_shared_bytes\":0},"
				"{\"kernel\":\"good\",\"grid\":64,\"block\":1024,\"dynamic_shared_bytes\":0,"
				"\"count\":1}]}", 0, &err);
	cr_assert_not_null(g.analysis, "%s", err.text);
	memset(&later, 0, sizeof later);
	launch_list_add(&later, "k", G1, B, 0, 1);
	cr_expect_eq(launch_match_later_differs(&later, &g), 1, "a later call without the other kernel");

	/* An analysis run that did not end right (no shape analysed) keeps its
	 * own failure's words. */
	launch_match_later_call(&ctx, &later, &g);
	cr_expect_eq(g.tests[0].status, TEST_PASSED, "%s", g.tests[0].message);

	/* The analysis final (a second call), the later call still other. */
	g.figures.second_call = 1;
	snprintf(g.figures.shape, sizeof g.figures.shape, "70000");
	launch_match_later_call(&ctx, &later, &g);
	cr_expect_eq(g.tests[0].status, TEST_FAILED);
	cr_expect_eq(g.tests[0].failure.kind, FAILURE_NOT_BELIEVED);
	cr_expect(strstr(g.tests[0].message, "the analysis run, the second call of its process, launched good"),
		  "%s", g.tests[0].message);
	grade_free(&g);
}
