/*
 * Lab 4's occupancy sweep, timed by the performance step's child after the
 * graded sizes (grader/steps/performance.c, occupancy_sweep.c), driven
 * through the emulator's harness: the sweep's points come back beside the
 * sizes' timings and become the report's sweep; a sweep that crashes costs
 * the sweep alone, never the timed sizes.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "steps/build.h"
#include "steps/occupancy_sweep.h"
#include "steps/performance.h"
#include "sys/kit_paths.h"
#include "test_support.h"

extern const struct lab lab4_occupancy;

struct timed {
	struct rubric r;
	struct bench_run st;
	struct grade g;
	char work[64], msg[1024];
	int rc;
};

/* Builds FILE for the emulator, times it at 2^12+7 (4 runs) with the sweep
 * after it (2 runs a point), and turns the points into the grade's sweep. */
static void time_with_sweep(const char *file, struct timed *t)
{
	char path[1024], err[512], log[8192], src[1024];
	struct build_result b;
	struct device_info dev;
	memset(t, 0, sizeof(*t));
	memset(&dev, 0, sizeof(dev));
	kit_path(path, sizeof(path), "labs/lab4-occupancy/lab.ini");
	cr_assert_eq(rubric_load(path, 1, &t->r, err, sizeof(err)), 0, "%s", err);
	test_temp_dir(t->work, sizeof(t->work), "sweep");
	cr_assert_eq(build_submission(&lab4_occupancy, BACKEND_EMU, kit_path(src, sizeof(src), file), t->work,
				      &dev, NULL, 120, &b, log, sizeof(log)), 0, "%s", log);
	t->r.n_chart_shapes = 0;
	t->r.perf_shape = (struct shape){ 1, { 4096 + 7, 0 } };
	t->r.runs = 4;
	t->r.sweep_runs = 2;
	t->r.bench_timeout_s = 120;
	struct run_context ctx = { .lab = &lab4_occupancy, .rubric = &t->r, .harness = b.harness,
				   .backend = BACKEND_EMU, .work_dir = t->work, .seed = 5 };
	t->rc = bench_harness(&ctx, b.harness, 1, &t->st, t->msg, sizeof(t->msg));
	grade_init(&t->g, &lab4_occupancy);
	if (t->st.sweep)
		occupancy_sweep(&ctx, t->st.sweep, dev.peak_gbps, &t->g);
}

static void timed_free(struct timed *t)
{
	char rm[128];
	snprintf(rm, sizeof(rm), "rm -rf %s", t->work);
	cr_expect_eq(system(rm), 0);
	bench_run_free(&t->st);
	grade_free(&t->g);
	rubric_free(&t->r);
}

/* The points themselves: in the emulator there is no launch log, so the
 * report's sweep (occupancy from the launches) is made on a GPU only. */
Test(sweep, comes_back_with_the_timed_sizes, .timeout = 300)
{
	struct timed t;
	time_with_sweep("solutions/lab4-occupancy/occupancy.cu", &t);
	cr_assert_eq(t.rc, 0, "%s", t.msg);
	cr_assert_not_null(t.st.sweep, "%s", t.st.sweep_error);
	size_t n = json_array_size(t.st.sweep), i;
	cr_expect_geq(n, 2, "one timing per shared size");
	json_t *p;
	json_array_foreach(t.st.sweep, i, p) {
		json_int_t extra = json_integer_value(json_object_get(p, "extra_shared"));
		cr_expect(i + 1 < n ? extra > 0 : extra == 0, "point %zu: extra_shared %lld", i, (long long)extra);
		cr_expect_eq(json_array_size(json_object_get(p, "student_ms")), 2, "sweep_runs runs a point");
	}
	cr_expect_str_eq(t.g.sweep.error,
			 "the harness's report of a point of the sweep is malformed (no launch recorded)");
	timed_free(&t);
}

Test(sweep, a_crash_in_it_costs_the_sweep_alone, .timeout = 300)
{
	struct timed t;
	time_with_sweep("tests/fixtures/sweep/shared_variant_crashes.cu", &t);
	cr_expect_eq(t.rc, 0, "the sizes were timed before the sweep: %s", t.msg);
	cr_expect_null(t.st.sweep);
	cr_expect(strstr(t.st.sweep_error, "sweep") != NULL, "why: '%s'", t.st.sweep_error);
	timed_free(&t);
}
