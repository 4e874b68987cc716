/* One grade, start to finish (see grade_run.h). */
#include "steps/grade_run.h"

#include <stdio.h>
#include <string.h>

#include "steps/analysis.h"
#include "steps/build.h"
#include "steps/correctness.h"
#include "steps/integrity.h"
#include "sys/isolation.h"
#include "sys/kit_paths.h"
#include "steps/occupancy_check.h"
#include "steps/performance.h"
#include "steps/prediction.h"

int backend_resolve(enum backend asked, const struct device_info *dev, enum backend *out,
		    char *why, size_t len)
{
	if (asked == BACKEND_EMU || (asked == BACKEND_AUTO && !dev->present)) {
		*out = BACKEND_EMU;
		return 0;
	}
	if (!dev->present) {
		snprintf(why, len, "--backend cuda: no CUDA device here (%s); --backend emu runs the "
			 "emulator instead", dev->why_absent);
		return -1;
	}
	*out = BACKEND_CUDA;
	return 0;
}

static int build_step(const struct grade_request *req, enum backend backend,
		      const struct device_info *dev, struct build_result *b, struct grade *g)
{
	struct test_result *t = grade_add_test(g, backend == BACKEND_CUDA ? "build (nvcc)" : "build (emulator)",
					       GROUP_BUILD, 0);
	int rc = build_submission(req->lab, backend, req->submission, req->work_dir, dev,
				  req->rubric->build_timeout_s, b, g->build_log, sizeof(g->build_log));
	if (rc == 0) {
		test_pass(t, "%s", "");
		return 1;
	}
	if (rc < 0) {
		g->internal_error = 1;
		snprintf(g->internal_message, sizeof(g->internal_message), "%.500s", g->build_log);
		test_fail(t, "the kit could not build: %s", g->build_log);
	} else {
		g->build_failed = 1;
		test_fail(t, "%s did not compile; the compiler's messages are below",
			  req->submission);
	}
	return 0;
}

/* The submission's emulator build: the grade's own in the emulator; on a
 * GPU built once, when the analysis or the prediction first needs it. */
struct emu_build {
	int tried, ok;
	struct build_result b;
	char log[8192];
};

static const struct build_result *emu_build(const struct grade_request *req, enum backend backend,
					    const struct build_result *built, const struct device_info *dev,
					    struct emu_build *e)
{
	if (backend == BACKEND_EMU)
		return built;
	if (!e->tried) {
		e->tried = 1;
		e->ok = build_submission(req->lab, BACKEND_EMU, req->submission, req->work_dir, dev,
					 req->rubric->build_timeout_s, &e->b, e->log, sizeof(e->log)) == 0;
	}
	return e->ok ? &e->b : NULL;
}

/*
 * The emulator's analysis on a small input: coalescing, bank conflicts,
 * races, work. Runs on a GPU machine too, from its own emulated build.
 */
static void analysis_step(const struct grade_request *req, const struct run_context *ctx,
			  const struct build_result *use, const char *build_log, struct grade *g)
{
	const struct rubric *r = req->rubric;
	if (!use) {
		struct test_result *t = grade_add_test(g, "analysis", GROUP_ANALYSIS, 0);
		t->status = TEST_NOT_MEASURED;
		snprintf(t->message, sizeof(t->message), "the emulator could not build this file, "
			 "so it was not analysed: %.900s", build_log);
		return;
	}
	char shape[64], seed[32], err[256];
	shape_format(&r->analysis_shape, shape, sizeof(shape));
	snprintf(seed, sizeof(seed), "%llu", (unsigned long long)ctx->seed);
	char *argv[] = { (char *)use->harness, "analysis", (char *)req->lab->id, shape, seed, NULL };
	struct harness_report rep;
	size_t words = 2 * 4096 + req->lab->out_count(&r->analysis_shape);
	if (harness_run(argv, r, r->analysis_timeout_s, words * 4 + (64 << 20), req->isolate,
			req->work_dir, &rep, err, sizeof(err)) < 0) {
		struct test_result *t = grade_add_test(g, "analysis", GROUP_ANALYSIS, r->analysis_points);
		test_fail(t, "the grader could not start the emulator: %s", err);
		return;
	}
	char msg[TEST_MESSAGE_LEN];
	if (!rep.metrics || rep.corrupt) {
		struct test_result *t = grade_add_test(g, "analysis", GROUP_ANALYSIS, r->analysis_points);
		if (!correctness_judge(req->lab, &r->analysis_shape, ctx->seed, &rep, msg, sizeof(msg)))
			test_fail(t, "the analysis run failed: %s", msg);
		else
			test_fail(t, "the emulator sent no metrics");
	} else {
		g->analysis = json_incref(rep.metrics);
		analysis_grade(r, rep.metrics, g);
	}
	harness_report_free(&rep);
}

/* Batch mode: tells the batch when GPU work starts and stops (grade_run.h). */
static void gpu_phase(const struct grade_request *req, enum backend backend, int timed, int begin)
{
	if (req->gpu_phase && backend == BACKEND_CUDA)
		req->gpu_phase(req->gpu_phase_arg, timed, begin);
}

static int has_analysis_checks(const struct rubric *r)
{
	return r->max_load_sectors_per_request >= 0 || r->max_store_sectors_per_request >= 0 ||
	       r->max_shared_wavefronts_per_request >= 0 || r->max_races >= 0 ||
	       r->max_uninit_shared_reads >= 0 || r->max_active_warp_steps >= 0;
}

void grade_submission(const struct grade_request *req, const struct device_info *dev,
		      struct grade *g)
{
	enum backend backend;
	g->seed = req->seed;
	snprintf(g->submission, sizeof(g->submission), "%s", req->submission);
	if (backend_resolve(req->backend, dev, &backend, g->internal_message,
			    sizeof(g->internal_message)) < 0) {
		g->internal_error = 1;
		return;
	}
	g->backend = backend;
	isolation_describe(req->isolate, g->isolation_note, sizeof(g->isolation_note));
	snprintf(g->device, sizeof(g->device), "%s", backend == BACKEND_CUDA ? dev->name : "CPU emulator");

	/* 1. Build. */
	struct build_result built;
	if (!build_step(req, backend, dev, &built, g))
		return;

	/* 2. Integrity: nothing runs that calls what the lab forbids. */
	if (!integrity_check(req->rubric, backend, built.student_obj, g))
		return;

	/* 3. Correctness, one child per size. */
	struct run_context ctx = { req->lab, req->rubric, built.harness, req->work_dir, req->seed,
				   req->salt, req->isolate };
	gpu_phase(req, backend, 0, 1);
	int failed = correctness_run(&ctx, backend, g);
	/* Lab 4's calculator: its own tests, which do not hold back the timing
	 * of a correct kernel. */
	occupancy_check_run(&ctx, backend, req->occupancy_table, g);
	gpu_phase(req, backend, 0, 0);

	/* 4. The performance model's prediction (of a kernel that ends): graded in
	 * the emulator for a correct kernel, shown beside the measurement on a
	 * GPU it knows. */
	struct emu_build emu = { 0 };
	char gpu[128];
	if (g->hangs == 0 && prediction_gpu(req->rubric, backend == BACKEND_CUDA ? dev->name : NULL, gpu,
					  sizeof(gpu)) == 0) {
		const struct build_result *e = emu_build(req, backend, &built, dev, &emu);
		if (e)
			prediction_run(&ctx, e->harness, gpu, g);
		else if (g->metrics)
			json_object_set_new(g->metrics, "prediction_error",
					    json_string("the emulator could not build this file"));
	}

	/* 5. Performance, on a GPU, for a correct kernel only; beside the reference. */
	struct build_result ref;
	char log[8192];
	const char *ref_harness = req->reference_harness;
	if (backend == BACKEND_CUDA && failed == 0 && req->reference && !ref_harness) {
		char ref_dir[1100];
		snprintf(ref_dir, sizeof(ref_dir), "%s/reference", req->work_dir);
		if (make_dirs(ref_dir) == 0 &&
		    build_submission(req->lab, BACKEND_CUDA, req->reference, ref_dir, dev,
				     req->rubric->build_timeout_s, &ref, log, sizeof(log)) == 0)
			ref_harness = ref.harness;
	}
	if (failed == 0)
		gpu_phase(req, backend, 1, 1);
	performance_run(&ctx, backend, failed == 0, req->reference_timing, ref_harness, dev, g);
	if (failed == 0)
		gpu_phase(req, backend, 1, 0);

	/* 6. Analysis by the emulator; not for a kernel that never ends. */
	if (req->analysis && has_analysis_checks(req->rubric)) {
		if (g->hangs == 0) {
			analysis_step(req, &ctx, emu_build(req, backend, &built, dev, &emu), emu.log, g);
		} else {
			struct test_result *t = grade_add_test(g, "analysis", GROUP_ANALYSIS,
							       req->rubric->analysis_points);
			test_fail(t, "not analysed: the kernel did not finish in time on %d sizes", g->hangs);
		}
	}
}
