/*
 * Time limits that follow the work (steps/time_limit.h): each correctness
 * size gets a multiple of the reference solution's time for it, at least a
 * floor, at most the rubric's limit; a run of several sizes is watched size
 * by size on its channel (sys/channel_watch.h). A hang is stopped at its
 * size's limit; a kernel slow but finishing is never taken for a hung one.
 * The GPU tests skip with the reason where there is no GPU.
 */
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "channel.h"
#include "grade_runner.h"
#include "steps/correctness.h"
#include "steps/reference_times.h"
#include "steps/time_limit.h"
#include "sys/channel_watch.h"
#include "sys/clock.h"
#include "sys/kit_paths.h"
#include "sys/sandbox.h"
#include "test_support.h"

extern const struct lab lab3_transpose;

static const struct time_rule rule = { .factor = 20, .floor_s = 1, .cap_s = 30 };

/* ---- the derivation: reference time, factor, floor, cap -> limit -------------------- */

Test(time_limits, a_limit_is_the_factor_times_the_reference)
{
	struct time_limit l = time_limit_derive(&rule, 0.1);
	cr_expect_float_eq(l.limit_s, 2.0, 1e-9);
	cr_expect_eq(l.kind, LIMIT_SCALED);
}

Test(time_limits, a_short_reference_gets_the_floor)
{
	struct time_limit l = time_limit_derive(&rule, 0.002);
	cr_expect_float_eq(l.limit_s, 1.0, 1e-9);
	cr_expect_eq(l.kind, LIMIT_FLOOR);
}

Test(time_limits, the_rubric_keeps_the_upper_bound)
{
	struct time_limit l = time_limit_derive(&rule, 4);
	cr_expect_float_eq(l.limit_s, 30.0, 1e-9);
	cr_expect_eq(l.kind, LIMIT_CAP);
	/* A floor above the cap: the rubric's cap still wins. */
	struct time_rule odd = { .factor = 20, .floor_s = 50, .cap_s = 30 };
	cr_expect_float_eq(time_limit_derive(&odd, 0.01).limit_s, 30.0, 1e-9);
}

Test(time_limits, an_unmeasured_reference_gets_the_rubric_limit)
{
	cr_expect_float_eq(time_limit_derive(&rule, 0).limit_s, 30.0, 1e-9);
	cr_expect_float_eq(time_limit_derive(&rule, -1).limit_s, 30.0, 1e-9);
	cr_expect_eq(time_limit_derive(&rule, 0).kind, LIMIT_UNKNOWN_REFERENCE);
}

Test(time_limits, the_report_says_which_limit_applied)
{
	char buf[256];
	struct time_limit l = time_limit_derive(&rule, 0.105);
	time_limit_explain(&rule, &l, "on this GPU", buf, sizeof(buf));
	cr_expect(strstr(buf, "20x the reference's 0.1") && strstr(buf, "on this GPU"), "%s", buf);
	l = time_limit_derive(&rule, 0.01);
	cr_expect(strstr(time_limit_explain(&rule, &l, "here", buf, sizeof(buf)), "1 s floor"), "%s", buf);
	l = time_limit_derive(&rule, 0);
	cr_expect(strstr(time_limit_explain(&rule, &l, "here", buf, sizeof(buf)), "rubric's 30 s"), "%s",
		  buf);
}

Test(time_limits, the_shipped_rubrics_scale_the_reference)
{
	struct rubric r;
	char path[1024], err[512];
	kit_path(path, sizeof(path), "labs/lab3-transpose/lab.ini");
	cr_assert_eq(rubric_load(path, 2, &r, err, sizeof(err)), 0, "%s", err);
	struct time_rule got = reference_times_rule(&r);
	cr_expect(got.factor >= 10, "a generous factor: %g", got.factor);
	cr_expect(got.floor_s >= 0.5 && got.floor_s <= 2, "a floor of about a second: %g", got.floor_s);
	cr_expect(got.cap_s >= got.floor_s, "the rubric's limit stays the cap: %g", got.cap_s);
	rubric_free(&r);
}


/* A large size run first in its process sends its output whole, which the
 * reference's stage (a digest) did not: 1 GiB gets 2.1 s more, within the
 * cap, and the report says so. */
Test(time_limits, a_size_sent_whole_gets_the_time_to_send_it)
{
	char buf[256];
	double gib = 1024.0 * 1024 * 1024;
	struct time_limit l = time_limit_with_whole_output(&rule, time_limit_derive(&rule, 0.052), gib);
	cr_expect_float_eq(l.limit_s, 1.04 + gib / WHOLE_OUTPUT_BYTES_PER_S, 1e-9);
	cr_expect_float_eq(l.whole_output_s, gib / WHOLE_OUTPUT_BYTES_PER_S, 1e-9);
	cr_expect_eq(l.kind, LIMIT_SCALED);
	time_limit_explain(&rule, &l, "on this GPU", buf, sizeof(buf));
	cr_expect(strstr(buf, "20x the reference's 0.052 s on this GPU, and 2.1 s to send the output whole"),
		  "%s", buf);
	l = time_limit_with_whole_output(&rule, time_limit_derive(&rule, 1.4), 100 * gib);
	cr_expect_float_eq(l.limit_s, 30.0, 1e-9, "the cap holds");
	l = time_limit_with_whole_output(&rule, time_limit_derive(&rule, 0), gib);
	cr_expect_float_eq(l.limit_s, 30.0, 1e-9);
	cr_expect_null(strstr(time_limit_explain(&rule, &l, "here", buf, sizeof(buf)), "whole"), "%s", buf);
}

/* ---- the watch: a stage past its own limit, and one that is only slow -------------- */

/* A shell line that writes an empty-JSON MSG_BEGIN frame ("{}") to the
 * channel: magic, type 2, length 2 (little-endian), then the payload. */
#define BEGIN_FRAME "printf 'CHLK\\002\\000\\000\\000\\002\\000\\000\\000\\000\\000\\000\\000{}' >&3"

static void run_watched(const char *script, const double *limits, int n, double wall_s,
			struct channel_watch *w, struct child_result *res)
{
	char *argv[] = { "/bin/sh", "-c", (char *)script, NULL };
	char err[256];
	memset(w, 0, sizeof(*w));
	w->limit_s = limits;
	w->n_limits = n;
	struct sandbox_limits lim = { .wall_s = wall_s, .output_cap = 4096, .with_channel = 1, .watch = w };
	cr_assert_eq(sandbox_run(argv, &lim, res, err, sizeof(err)), 0, "%s", err);
}

Test(time_limits, a_size_that_stops_making_progress_is_stopped_at_its_own_limit, .timeout = 60)
{
	/* Stage 0 (the start) may take 20 s, the first size half a second; the
	 * whole run 20 s. The child begins a size and never ends it. */
	const double limits[] = { 20, 0.5 };
	struct channel_watch w;
	struct child_result res;
	double t0 = now_s();
	run_watched(BEGIN_FRAME "; sleep 30", limits, 2, 20, &w, &res);
	double took = now_s() - t0;
	cr_expect(res.timed_out);
	cr_expect(w.stopped, "stopped by its size's limit, not the run's");
	cr_expect_eq(w.stopped_stage, 1);
	cr_expect(w.stopped_after_s >= 0.5 && w.stopped_after_s < 2, "%.2f s", w.stopped_after_s);
	cr_expect_lt(took, 5, "judged in %.1f s, not at the run's 20 s", took);
	child_result_free(&res);
}

Test(time_limits, a_slow_but_finishing_size_is_not_called_hung, .timeout = 60)
{
	/* A reference of 0.1 s a size, limits of 20x: each size of the child
	 * takes 5x the reference (0.5 s) and ends. */
	const double limits[] = { 20, 2.0, 2.0, 2.0 };
	struct channel_watch w;
	struct child_result res;
	run_watched(BEGIN_FRAME "; sleep 0.5; " BEGIN_FRAME "; sleep 0.5; " BEGIN_FRAME "; sleep 0.5",
		    limits, 4, 20, &w, &res);
	cr_expect_not(res.timed_out, "a slow size was stopped");
	cr_expect_not(w.stopped);
	cr_expect(res.exited && res.exit_status == 0);
	cr_expect_eq(w.stages, 3);
	for (int k = 1; k <= 3; k++)
		cr_expect(channel_watch_stage_s(&w, k) >= 0.4 && channel_watch_stage_s(&w, k) < 2,
			  "size %d took %.2f s", k, channel_watch_stage_s(&w, k));
	child_result_free(&res);
}

/* An empty-JSON MSG_DONE frame (type 4). */
#define DONE_FRAME "printf 'CHLK\\004\\000\\000\\000\\002\\000\\000\\000\\000\\000\\000\\000{}' >&3"

Test(time_limits, the_kits_time_after_a_size_is_no_sizes_time, .timeout = 60)
{
	/* Each size may take 0.6 s and takes 0.2 s. After the first, 1.2 s of
	 * the kit's (its frees, a wait for a batch's GPU, the next size's
	 * set-up); after the second, 1.2 s of the process's end (a CUDA
	 * context's teardown among many). */
	const double limits[] = { 20, 0.6, 0.6 };
	struct channel_watch w;
	struct child_result res;
	run_watched(BEGIN_FRAME "; sleep 0.2; " DONE_FRAME "; sleep 1.2; " BEGIN_FRAME "; sleep 0.2; " DONE_FRAME
		    "; sleep 1.2", limits, 3, 20, &w, &res);
	cr_expect_not(res.timed_out, "a size was stopped for time that was the kit's");
	cr_expect_not(w.stopped);
	cr_expect_eq(w.stages, 2);
	for (int k = 1; k <= 2; k++)
		cr_expect(channel_watch_stage_s(&w, k) < 0.6, "size %d counted %.2f s, the kit's time in it", k,
			  channel_watch_stage_s(&w, k));
	child_result_free(&res);
}

Test(time_limits, the_kits_time_after_a_size_has_the_starts_limit, .timeout = 60)
{
	/* Kit's time that never ends (a wait for the GPU that never comes, or
	 * a forged frame) is stopped at stage 0's 1 s, not at the whole run's
	 * 20 s. */
	const double limits[] = { 1, 5 };
	struct channel_watch w;
	struct child_result res;
	double t0 = now_s();
	run_watched(BEGIN_FRAME "; " DONE_FRAME "; sleep 30", limits, 2, 20, &w, &res);
	double took = now_s() - t0;
	cr_expect(res.timed_out);
	cr_expect(w.stopped);
	cr_expect_eq(w.stopped_stage, 1);
	cr_expect_lt(took, 5, "stopped after %.1f s", took);
	cr_expect_lt(w.stopped_after_s, 0.5, "the size's own time, %.2f s, holds the kit's", w.stopped_after_s);
	child_result_free(&res);
}

Test(time_limits, a_channel_that_does_not_parse_falls_back_to_the_whole_limit, .timeout = 60)
{
	const double limits[] = { 0.3 };
	struct channel_watch w;
	struct child_result res;
	/* Not a frame: the watch cannot tell the stages, and the stage-0 limit
	 * (0.3 s) must not be trusted past it... but stage 0 has not ended
	 * either: only the run's own 1.5 s applies once the channel is broken. */
	run_watched("printf 'garbage-garbage-garbage' >&3; sleep 0.8", limits, 1, 1.5, &w, &res);
	cr_expect(w.broken);
	cr_expect_not(res.timed_out, "stopped at %.2f s by a watch that could not read the channel",
		      res.wall_s);
	child_result_free(&res);
}

Test(time_limits, a_forged_frame_length_cannot_stall_the_watch, .timeout = 30)
{
	/* A header whose length would bring the reader back to where it is
	 * (2^64 - 16): the watch must give up on the channel, not spin. */
	const double limits[] = { 10, 0.5 };
	struct channel_watch w;
	struct child_result res;
	run_watched("printf 'CHLK\\002\\000\\000\\000\\360\\377\\377\\377\\377\\377\\377\\377' >&3; "
		    "sleep 0.3", limits, 2, 5, &w, &res);
	cr_expect(w.broken);
	cr_expect(res.exited && res.exit_status == 0);
	child_result_free(&res);
}

/* ---- in the emulator: a hang judged within its derived limit ----------------------- */

static double grade_emu(const char *file, struct rubric *r_out, int factor, double floor_s,
			int measure, struct grade *g, struct reference_times *times)
{
	char work[] = "/tmp/time-limits-XXXXXX";
	struct build_result b;
	emu_lab3_build(file, r_out, work, &b);
	r_out->test_time_factor = factor;
	r_out->test_time_floor_s = floor_s;
	struct run_context ctx = { .lab = &lab3_transpose, .rubric = r_out, .harness = b.harness,
				   .backend = BACKEND_EMU, .work_dir = work, .seed = 11 };
	struct device_info none;
	memset(&none, 0, sizeof(none));
	memset(times, 0, sizeof(*times));
	times->where = "in the emulator";
	if (measure) {
		reference_times_get(&ctx, BACKEND_EMU, &none, NULL, 1, times);
		cr_assert(times->known, "the reference could not be measured in the emulator");
	}
	grade_init(g, &lab3_transpose);
	double t0 = now_s();
	correctness_run(&ctx, BACKEND_EMU, times, NULL, NULL, NULL, NULL, g);
	double took = now_s() - t0;
	char rm[1100];
	snprintf(rm, sizeof(rm), "rm -rf %s", work);
	cr_expect_eq(system(rm), 0);
	return took;
}

Test(time_limits, an_emulated_hang_is_judged_within_its_derived_limit, .timeout = 300)
{
	if (!have_emulator())
		cr_skip_test("the emulator is not built (build/emu/cuemu-cc): run make");
	struct rubric r;
	struct grade g;
	struct reference_times times;
	double took = grade_emu("tests/fixtures/emu_faults/kernel_hang.cu", &r, 20, 1, 1, &g, &times);
	cr_assert_geq(g.n_tests, 3);
	for (int i = 0; i < 2; i++) {
		const char *m = g.tests[i].message;
		cr_expect_eq(g.tests[i].status, TEST_FAILED);
		cr_expect(strstr(m, "did not finish in time"), "%s", m);
		cr_expect(strstr(m, "the limit: ") && strstr(m, "the reference's"), "which limit: %s", m);
		/* The emulator's watchdog at the size's derived limit (not its own
		 * default), naming the line it spun at. */
		char limit[64];
		snprintf(limit, sizeof(limit), "CUEMU_KERNEL_TIMEOUT=%.0f)",
			 reference_times_limit(&r, &times, i).limit_s);
		cr_expect(strstr(m, limit), "%s in: %s", limit, m);
		cr_expect(strstr(m, "kernel_hang.cu:15"), "%s", m);
	}
	for (int i = 2; i < g.n_tests; i++)
		cr_expect(strstr(g.tests[i].message, "not run"), "%s", g.tests[i].message);
	cr_log_info("an emulated hang judged in %.1f s", took);
	grade_free(&g);
	rubric_free(&r);
}

Test(time_limits, an_emulated_kernel_five_times_the_work_passes, .timeout = 300)
{
	if (!have_emulator())
		cr_skip_test("the emulator is not built (build/emu/cuemu-cc): run make");
	struct rubric r;
	struct grade g;
	struct reference_times times;
	/* A tight rule, 6x the reference and a floor of a fifth of a second: the
	 * work done five times still fits. */
	grade_emu("tests/fixtures/time_limits/slow_fivefold.cu", &r, 6, 0.2, 1, &g, &times);
	for (int i = 0; i < g.n_tests; i++)
		cr_expect_eq(g.tests[i].status, TEST_PASSED, "%s: %s", g.tests[i].name, g.tests[i].message);
	cr_expect_eq(g.hangs, 0);
	grade_free(&g);
	rubric_free(&r);
}

Test(time_limits, a_hang_in_the_shared_run_counts_and_the_rest_is_not_waited_out, .timeout = 300)
{
	if (!have_emulator())
		cr_skip_test("the emulator is not built (build/emu/cuemu-cc): run make");
	/* Every size in one process, with an emulator build: the shared run's
	 * time-out at its first size is that size's verdict and the first
	 * hang, the next size alone the second, and no other size runs. */
	struct rubric r;
	char work[] = "/tmp/time-limits-shared-XXXXXX";
	struct build_result b;
	emu_lab3_build("tests/fixtures/emu_faults/kernel_hang.cu", &r, work, &b);
	struct run_context ctx = { .lab = &lab3_transpose, .rubric = &r, .harness = b.harness,
				   .backend = BACKEND_EMU, .work_dir = work, .seed = 5 };
	struct reference_times times = { .known = 1, .n = r.n_shapes, .where = "here" };
	for (int i = 0; i < r.n_shapes; i++)
		times.size_s[i] = 0.05;	/* every limit: the 1 s floor */
	struct grade g;
	grade_init(&g, &lab3_transpose);
	double t0 = now_s();
	correctness_run(&ctx, BACKEND_CUDA, &times, NULL, NULL, NULL, NULL, &g);
	double took = now_s() - t0;
	cr_expect_eq(g.hangs, 2, "the shared run's time-out and the next size alone");
	for (int i = 0; i < 2; i++)
		cr_expect(strstr(g.tests[i].message, "did not finish in time"), "%s", g.tests[i].message);
	for (int i = 2; i < g.n_tests; i++)
		cr_expect(strstr(g.tests[i].message, "not run"), "%s: %s", g.tests[i].name, g.tests[i].message);
	/* Two sizes' limits (the emulator's clock slack on a loaded machine
	 * makes the seconds themselves no test). */
	cr_log_info("a hang in the shared run judged in %.1f s", took);
	grade_free(&g);
	emu_lab3_done(&r, work);
}

Test(time_limits, an_emulated_hang_among_shared_sizes_is_stopped_at_its_own_limit, .timeout = 120)
{
	if (!have_emulator())
		cr_skip_test("the emulator is not built (build/emu/cuemu-cc): run make");
	/* Every size in one emulated child, each with its own watchdog: the
	 * hang at the first size is stopped at that size's limit (1 s, not the
	 * second's 7 s, nor the emulator's default), naming the line. */
	struct rubric r;
	char work[] = "/tmp/time-limits-sizes-XXXXXX", err[256];
	struct build_result b;
	emu_lab3_build("tests/fixtures/emu_faults/kernel_hang.cu", &r, work, &b);
	struct run_context ctx = { .lab = &lab3_transpose, .rubric = &r, .harness = b.harness,
				   .backend = BACKEND_EMU, .work_dir = work, .seed = 5 };
	struct emu_size sizes[2] = { { .shape = r.emu_shapes[0], .seed = 1, .kernel_timeout_s = 1 },
				     { .shape = r.emu_shapes[1], .seed = 2, .kernel_timeout_s = 7 } };
	struct harness_report whole, parts[2];
	cr_assert_eq(harness_correct_sizes(&ctx, sizes, 2, NULL, &whole, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(harness_split(&whole, parts, 2), 1, "the child ended in its first size");
	const char *m = json_string_value(json_object_get(parts[0].stopped, "message"));
	cr_assert_not_null(m, "no MSG_STOPPED");
	cr_expect(harness_hung(&parts[0]));
	cr_expect(strstr(m, "CUEMU_KERNEL_TIMEOUT=1)"), "%s", m);
	cr_expect(strstr(m, "kernel_hang.cu:15"), "%s", m);
	harness_part_free(&parts[0]);
	harness_report_free(&whole);
	emu_lab3_done(&r, work);
}

/* A loop on the host, outside any kernel, which the emulator's watchdog
 * does not see: the size's run is stopped by its CPU time (one and a half
 * times the limit and a second), as a time limit, not by the grader's
 * clock four times the limit later. */
Test(time_limits, an_emulated_loop_on_the_host_is_stopped_by_its_cpu_time, .timeout = 120)
{
	if (!have_emulator())
		cr_skip_test("the emulator is not built (build/emu/cuemu-cc): run make");
	struct rubric r;
	char work[] = "/tmp/time-limits-host-XXXXXX", err[256];
	struct build_result b;
	emu_lab3_build("tests/fixtures/hostile/infinite_loop.cu", &r, work, &b);
	struct run_context ctx = { .lab = &lab3_transpose, .rubric = &r, .harness = b.harness,
				   .backend = BACKEND_EMU, .work_dir = work, .seed = 5 };
	struct emu_size sizes[1] = { { .shape = r.emu_shapes[0], .seed = 1, .kernel_timeout_s = 1 } };
	struct harness_report whole;
	cr_assert_eq(harness_correct_sizes(&ctx, sizes, 1, NULL, &whole, err, sizeof(err)), 0, "%s", err);
	const char *kind = json_string_value(json_object_get(whole.stopped, "kind"));
	const char *m = json_string_value(json_object_get(whole.stopped, "message"));
	cr_assert_not_null(m, "no MSG_STOPPED: %s", whole.child.output ? whole.child.output : "");
	cr_expect_str_eq(kind, "call_timeout");
	cr_expect(strstr(m, "2.5 s of CPU time") && strstr(m, "outside any kernel"), "%s", m);
	cr_expect(harness_hung(&whole), "a time limit, counted as a hang");
	struct failure f;
	harness_abort_failure(&whole, &f);
	cr_expect_eq(f.kind, FAILURE_TIME_LIMIT);
	cr_expect(!whole.child.timed_out, "stopped by its CPU time, not by the grader's clock");
	harness_report_free(&whole);
	emu_lab3_done(&r, work);
}

/* ---- on a GPU ----------------------------------------------------------------------- */

Test(time_limits_gpu, a_hang_is_judged_in_seconds, .timeout = 300)
{
	char why[512];
	if (!have_gpu(why, sizeof(why)))
		cr_skip_test("needs a CUDA GPU: %s", why);
	struct graded g;
	/* Once for the reference's times (cached in build/), then timed. */
	cr_assert_eq(run_grade("lab3", NULL, "cuda", NULL, &g), 0);
	graded_free(&g);
	double t0 = now_s();
	cr_assert_eq(run_grade("lab3", "tests/fixtures/emu_faults/kernel_hang.cu", "cuda", NULL, &g), 0);
	double took = now_s() - t0;
	cr_assert_not_null(g.report, "%s", g.output);
	cr_expect(strstr(g.output, "did not finish in time"), "%s", g.output);
	cr_expect(strstr(g.output, "stopped after") && strstr(g.output, "on this GPU"), "%s", g.output);
	cr_expect(strstr(g.output, "not run"), "%s", g.output);
	cr_expect_lt(took, 15, "a hang graded in %.1f s", took);
	cr_log_info("a hang graded in %.1f s on a GPU", took);
	graded_free(&g);
}

Test(time_limits_gpu, a_kernel_five_times_the_work_is_not_hung, .timeout = 300)
{
	char why[512];
	if (!have_gpu(why, sizeof(why)))
		cr_skip_test("needs a CUDA GPU: %s", why);
	struct graded g;
	cr_assert_eq(run_grade("lab3", "tests/fixtures/time_limits/slow_fivefold.cu", "cuda", NULL, &g), 0);
	cr_assert_not_null(g.report, "%s", g.output);
	cr_expect_str_eq(group_verdict(g.report, "correctness"), "pass", "%s", g.output);
	cr_expect_null(strstr(g.output, "did not finish"), "%s", g.output);
	graded_free(&g);
}

/* The largest size alone (as a size brought forward runs) sends 1 GiB
 * whole: the solution must pass it, never be called hung. */
Test(time_limits_gpu, the_largest_size_alone_sends_its_output_in_time, .timeout = 300)
{
	char why[512];
	if (!have_gpu(why, sizeof(why)))
		cr_skip_test("needs a CUDA GPU: %s", why);
	struct graded g;
	cr_assert_eq(run_grade("lab3", NULL, "cuda", "--only=16384x16384", &g), 0);
	cr_assert_not_null(g.report, "%s", g.output);
	cr_expect_str_eq(group_verdict(g.report, "correctness"), "pass", "%s", g.output);
	cr_expect_null(strstr(g.output, "did not finish"), "%s", g.output);
	graded_free(&g);
}
