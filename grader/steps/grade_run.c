/* One grade, start to finish: a table of steps (see grade_run.h). */
#include "steps/grade_run.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "steps/analysis.h"
#include "steps/analysis_run.h"
#include "steps/analysis_shape.h"
#include "steps/build.h"
#include "steps/correctness.h"
#include "steps/findings.h"
#include "steps/gates.h"
#include "steps/integrity.h"
#include "steps/launch_match.h"
#include "sys/clock.h"
#include "sys/isolation.h"
#include "sys/kit_paths.h"
#include "steps/occupancy_check.h"
#include "steps/occupancy_sweep.h"
#include "steps/own_calculator.h"
#include "steps/performance.h"
#include "steps/prediction.h"
#include "steps/reference_times.h"
#include "steps/scale.h"
#include "steps/side.h"

/* What the emulator's fork does, in turn (beside_emulator), and times. */
enum { EMU_BUILD, EMU_PREDICTION, EMU_ANALYSIS, EMU_PARTS };

/* What one grade carries from step to step. */
struct grade_run {
	const struct grade_request *req;
	const struct device_info *dev;
	enum backend backend;
	struct build_result built;
	struct run_context ctx;		/* set once the submission is built */
	int checked;			/* the correctness step ran */
	int failed;			/* correctness tests that failed */
	struct traced_runs traced;	/* in the emulator: the prediction's traces, from correctness */
	const char *ref_harness;	/* the reference solution built for this GPU, or NULL */
	struct build_result ref;
	struct early_bench early;	/* on a GPU: the timing the correctness run made */
	int timed;			/* the performance step timed the submission */
	json_t *sweep;			/* lab 4: the sweep's points, timed by the same child */
	/* The submission's emulator build, for the prediction and the analysis:
	 * in the emulator the grade's own; on a GPU built once, when first needed,
	 * and its symbols checked (emu_refused: the check's words in emu_log). */
	int emu_tried, emu_ok, emu_refused;
	struct build_result emu;
	char emu_log[8192];
	/* On a GPU, the steps that need no GPU run beside the GPU's (side.h):
	 * the emulator's from the start, lab 4's calculator once its file is built. */
	struct side emulator, calculator;
};

/* What the children of a grade share; harness is the build they run. */
static struct run_context context_for(const struct grade_run *run, const char *harness)
{
	const struct grade_request *req = run->req;
	return (struct run_context){
		.lab = req->lab,
		.rubric = req->rubric,
		.harness = harness,
		.backend = run->backend,
		.work_dir = req->work_dir,
		.seed = req->seed,
		.salt = req->salt,
		.seed_hashes = req->seed_hashes,
		.isolation = req->isolation,
		.gpu = req->gpu,
		/* the batch's GPU lock, child by child */
		.share = run->backend == BACKEND_CUDA ? req->share : (struct gpu_share){ 0 },
		.device_sms = run->backend == BACKEND_CUDA ? run->dev->sms : 0,
	};
}

/* Build: nvcc, or the emulator's compiler, and the harness linked. */
static int step_build(struct grade_run *run, struct grade *g)
{
	const struct grade_request *req = run->req;
	struct test_result *t = grade_add_test(g, run->backend == BACKEND_CUDA ? "build (nvcc)" :
					       "build (emulator)", GROUP_BUILD, 0);
	int rc = build_submission(req->lab, run->backend, req->submission, req->work_dir, run->dev,
				  isolation_for_tools(req->isolation), req->rubric->build_timeout_s, &run->built, g->build_log,
				  sizeof(g->build_log));
	if (rc == 0) {
		test_pass(t, "%s", "");
		run->ctx = context_for(run, run->built.harness);
		return 1;
	}
	if (rc < 0) {
		g->internal_error = 1;
		snprintf(g->internal_message, sizeof(g->internal_message), "%.500s", g->build_log);
		test_fail(t, "the kit could not build: %s", g->build_log);
	} else {
		g->build_failed = 1;
		test_fail_as(t, run->built.failure, "%s did not compile; the compiler's messages are below",
			     req->submission);
	}
	return 0;
}

/* Integrity: nothing runs that calls what the lab forbids. */
static int step_integrity(struct grade_run *run, struct grade *g)
{
	const struct grade_request *req = run->req;
	return integrity_check(req->rubric, run->backend, run->built.student_obj,
			       isolation_for_tools(req->isolation), g) &&
	       own_calculator_check(req->lab, run->backend, req->submission, run->built.student_obj,
				    req->work_dir, run->dev, isolation_for_tools(req->isolation),
				    req->rubric->build_timeout_s, &g->tests[g->n_tests - 1]);
}

/* Whether the timing includes lab 4's sweep. */
static int sweeps(const struct grade_request *req)
{
	return req->lab->has_calculator && req->rubric->sweep_runs > 0;
}

/* Correctness: every size of the rubric. */
static int step_correctness(struct grade_run *run, struct grade *g)
{
	struct reference_times times;
	/* A batch measured them before its workers started. A miss builds the
	 * solution here for the measurement, and removes it, but never in a
	 * GPU batch's worker, whose student's emulator runs go on beside. */
	reference_times_get(&run->ctx, run->backend, run->dev, run->req->reference_harness,
			    run->req->share.phase == NULL, &times);
	/* On a GPU the timing runs in the process that runs every size: one
	 * CUDA context a student, not two (the host makes them one at a time).
	 * Not where the grader holds a batch's lock for its children, which
	 * would keep the GPU alone for the sizes too. */
	struct shape timed[GRADE_MAX_BENCH];
	struct bench_order order;
	bench_order_for(run->req->rubric, sweeps(run->req), timed, &order);
	int early = run->backend == BACKEND_CUDA && (!run->req->share.phase || run->req->share.lend);
	run->failed = correctness_run(&run->ctx, run->backend, &times, &run->traced, &order,
				      early ? &run->early : NULL, g);
	run->checked = 1;
	return 1;
}

/* Lab 4's calculator: its own tests, which do not hold back the timing of a
 * correct kernel; here unless it runs beside (step_calculator_beside). */
static int step_occupancy_check(struct grade_run *run, struct grade *g)
{
	if (!run->calculator.pid)
		occupancy_check_run(&run->ctx, run->backend, run->req->occupancy_table, g);
	return 1;
}

/*
 * On a GPU the emulator's build is not the one step_integrity checked, and
 * a file can tell the two compilers apart: its symbols are checked too,
 * or a stand-in defined for the emulator alone would report the analysis.
 */
static void emu_check(struct grade_run *run)
{
	struct grade scratch;
	grade_init(&scratch, run->req->lab);
	if (!integrity_check(run->req->rubric, BACKEND_EMU, run->emu.student_obj,
			     isolation_for_tools(run->req->isolation), &scratch)) {
		run->emu_ok = 0;
		run->emu_refused = 1;
		snprintf(run->emu_log, sizeof(run->emu_log), "%s",
			 scratch.n_tests ? scratch.tests[scratch.n_tests - 1].message : "");
	}
	grade_free(&scratch);
}

static const struct build_result *emu_build(struct grade_run *run)
{
	const struct grade_request *req = run->req;
	if (run->backend == BACKEND_EMU)
		return &run->built;
	if (!run->emu_tried) {
		run->emu_tried = 1;
		run->emu_ok = build_submission(req->lab, BACKEND_EMU, req->submission, req->work_dir,
					       run->dev, isolation_for_tools(req->isolation),
					       req->rubric->build_timeout_s, &run->emu, run->emu_log,
					       sizeof(run->emu_log)) == 0;
		if (run->emu_ok)
			emu_check(run);
	}
	return run->emu_ok ? &run->emu : NULL;
}

/* The emulator's build as a part of the fork (beside_emulator), timed on its own. */
static void emulator_build(struct grade_run *run, struct grade *g)
{
	(void)g;
	emu_build(run);
}

/* The performance model's prediction (of a kernel that ends): graded in the
 * emulator for a correct kernel, shown beside the measurement on a GPU it
 * knows. */
static void emulator_prediction(struct grade_run *run, struct grade *g)
{
	char gpu[128];
	if (g->hangs || prediction_gpu(run->req->rubric, run->backend == BACKEND_CUDA ? run->dev->name : NULL,
				       gpu, sizeof(gpu)) != 0)
		return;
	const struct build_result *e = emu_build(run);
	if (e)
		prediction_run(&run->ctx, e->harness, &run->traced, gpu, g);
	else
		snprintf(g->prediction.error, sizeof(g->prediction.error),
			 "the emulator could not build this file");
}

static int step_prediction(struct grade_run *run, struct grade *g)
{
	if (!run->emulator.pid)
		emulator_prediction(run, g);
	return 1;
}

/* The reference solution to time beside a correct kernel on a GPU: a
 * batch's, built once per GPU model, or built here. */
static int step_reference(struct grade_run *run, struct grade *g)
{
	const struct grade_request *req = run->req;
	char ref_dir[1100], log[8192] = "";
	run->ref_harness = req->reference_harness;
	if (run->backend != BACKEND_CUDA || run->failed || !req->time_reference || run->ref_harness ||
	    req->reference_timing)
		return 1;
	snprintf(ref_dir, sizeof(ref_dir), "%s/reference", req->work_dir);
	/* The compilers write there as the run's folder's owner (a sandbox uid
	 * when the grader is root). */
	struct stat st;
	if (make_dirs(ref_dir) < 0 || stat(req->work_dir, &st) < 0 || chown(ref_dir, st.st_uid, st.st_gid) < 0)
		snprintf(g->reference_failure, sizeof(g->reference_failure), "the reference solution "
			 "could not be built: no folder %.300s", ref_dir);
	else if (build_reference(req->lab, ref_dir, run->dev, isolation_for_tools(req->isolation),
				 req->rubric->build_timeout_s, &run->ref, log, sizeof(log)) == 0)
		run->ref_harness = run->ref.harness;
	else	/* the compiler's first line says why */
		snprintf(g->reference_failure, sizeof(g->reference_failure), "the reference solution "
			 "did not build: %.*s", (int)(strcspn(log, "\n") < 400 ? strcspn(log, "\n") : 400), log);
	return 1;
}

/* Performance, on a GPU, for a correct kernel only; beside the reference.
 * Lab 4's sweep is timed by the same child, after the graded sizes. */
static int step_performance(struct grade_run *run, struct grade *g)
{
	const struct grade_request *req = run->req;
	run->timed = performance_run(&run->ctx, run->backend, run->failed == 0, &run->early,
				     req->reference_timing, run->ref_harness, run->dev,
				     sweeps(req) ? &run->sweep : NULL, g);
	early_bench_free(&run->early);
	return 1;
}

/* Lab 4: bandwidth against occupancy, for a kernel that was timed. */
static int step_occupancy_sweep(struct grade_run *run, struct grade *g)
{
	if (run->timed && run->sweep)
		occupancy_sweep(&run->ctx, run->sweep, run->dev->peak_gbps, g);
	json_decref(run->sweep);
	run->sweep = NULL;
	return 1;
}

/* Analysis by the emulator, when the rubric has checks; not for a kernel
 * that never ends. */
static void emulator_analysis(struct grade_run *run, struct grade *g)
{
	const struct grade_request *req = run->req;
	if (!analysis_checks_present(req->rubric))
		return;
	if (!req->analysis) {
		struct test_result *t = grade_add_test(g, "analysis", GROUP_ANALYSIS, 0);
		t->status = TEST_NOT_MEASURED;
		snprintf(t->message, sizeof(t->message), "not analysed: this grade ran with --no-analysis");
	} else if (g->hangs == 0) {
		const struct build_result *use = emu_build(run);
		analysis_run(req, &run->ctx, use, run->emu_refused, run->emu_log, g);
	} else {
		struct test_result *t = grade_add_test(g, "analysis", GROUP_ANALYSIS,
						       req->rubric->analysis_points);
		test_fail_as(t, FAILURE_NOT_RUN, "not analysed: the kernel did not finish in time on %d sizes",
			     g->hangs);
	}
}

/*
 * A forked grader runs its children as a sandbox uid of its own (side.h),
 * so it builds and runs in a folder of its own (name), inside the grade's
 * and handed to that uid as the grade's was (isolation_ready). Its children
 * reach the staged submission through the grade's folder, which they may
 * traverse but not list or write. Sets up run for the fork; -1: no folder.
 */
static int own_folder(struct grade_run *run, const char *name, struct grade_request *req,
		      struct isolation_policy *policy, char *dir, size_t len)
{
	struct stat st;
	*req = *run->req;
	snprintf(dir, len, "%s/%s", req->work_dir, name);
	if (mkdir(dir, 0700) < 0 || stat(req->work_dir, &st) < 0 ||
	    (geteuid() == 0 && chmod(req->work_dir, (st.st_mode & 07777) | 0011) < 0))
		return -1;
	if (req->isolation) {
		*policy = *req->isolation;
		policy->writable = dir;
		req->isolation = policy;
	}
	req->work_dir = dir;
	run->req = req;
	run->ctx.work_dir = dir;
	run->ctx.isolation = req->isolation;
	char err[512];
	return isolation_ready(req->isolation, dir, err, sizeof(err));
}

/*
 * The emulator's steps, in a forked grader from the grade's start: they
 * need nothing the GPU's find out, not even the nvcc build (its own build
 * is checked by emu_check). It cannot know whether the kernel hangs on the
 * GPU; join_beside drops its work if so. Without a folder of its own it
 * ends unreported, and the grade runs the steps itself.
 */
static void beside_emulator(void *arg, struct grade *g)
{
	struct grade_run *run = arg;
	struct grade_request req;
	struct isolation_policy policy;
	char dir[1100];
	run->ctx = context_for(run, NULL);	/* each step names the emulator build it runs */
	if (own_folder(run, "emulator", &req, &policy, dir, sizeof(dir)) < 0)
		_exit(1);
	void (*part[EMU_PARTS])(struct grade_run *, struct grade *) = { emulator_build, emulator_prediction,
									   emulator_analysis };
	for (int i = 0; i < EMU_PARTS; i++) {
		double t0 = now_s();
		part[i](run, g);
		g->step_seconds[i] = now_s() - t0;
	}
	g->n_steps = EMU_PARTS;
}

/* Lab 4's calculator (host code) in a forked grader, once the file is
 * built: its live table, where no batch made it, is read from the GPU's
 * occupancy API while the correctness child runs, which is never timed. */
static void beside_calculator(void *arg, struct grade *g)
{
	struct grade_run *run = arg;
	struct grade_request req;
	struct isolation_policy policy;
	char dir[1100];
	if (own_folder(run, "calculator", &req, &policy, dir, sizeof(dir)) < 0)
		_exit(1);
	double t0 = now_s();
	occupancy_check_run(&run->ctx, run->backend, run->req->occupancy_table, g);
	g->step_seconds[0] = now_s() - t0;
	g->n_steps = 1;
}

/* On a GPU: the emulator's steps start beside (side.h) before anything
 * else; join_beside, at the analysis step, joins them. A grader that
 * cannot fork runs them in turn. */
static int step_emulator_beside(struct grade_run *run, struct grade *g)
{
	if (run->backend == BACKEND_CUDA)
		side_start(&run->emulator, g->lab, beside_emulator, run);
	return 1;
}

/* Lab 4's calculator beside, once nvcc built the file; joined with the emulator's. */
static int step_calculator_beside(struct grade_run *run, struct grade *g)
{
	if (run->backend == BACKEND_CUDA && run->req->lab->has_calculator &&
	    run->req->rubric->occupancy_points > 0)
		side_start(&run->calculator, g->lab, beside_calculator, run);
	return 1;
}

/*
 * The other half of step_emulator_beside and step_calculator_beside: their
 * forks joined into g (each part again here, if its fork died). The time
 * the emulator's parts took beside goes into g->beside; the step table
 * keeps the grade's own wall time (how long it waited for them). Returns
 * whether the emulator's analysis came back.
 */
static int join_beside(struct grade_run *run, struct grade *g)
{
	double calc = 0, emu[EMU_PARTS] = { 0 };
	if (run->calculator.pid && side_join(&run->calculator, g, &calc, 1) < 0)
		occupancy_check_run(&run->ctx, run->backend, run->req->occupancy_table, g);
	if (!run->emulator.pid)
		return 0;
	if (g->hangs) {
		side_stop(&run->emulator);	/* the kernel hangs: its analysis is not wanted */
		return 0;
	}
	if (side_join(&run->emulator, g, emu, EMU_PARTS) == 0) {
		g->beside = (struct beside_seconds){ .joined = 1, .calculator = calc,
						     .emulator_build = emu[EMU_BUILD],
						     .prediction = emu[EMU_PREDICTION],
						     .analysis = emu[EMU_ANALYSIS] };
		return 1;
	}
	emulator_prediction(run, g);
	return 0;
}

/* The analysis: joined from beside, or run here. On a GPU the analysis
 * is of the emulator's build: believed only if it launches what nvcc's
 * build launches. */
static int step_analysis(struct grade_run *run, struct grade *g)
{
	if (!join_beside(run, g))
		emulator_analysis(run, g);
	if (g->analysis)
		findings_race(g->analysis, &g->race);
	if (run->backend == BACKEND_CUDA && !g->hangs)
		launch_match_apply(&run->ctx, g);
	/* A result that depends on a race fails on both backends; on a GPU,
	 * only where the emulator analysed the program the GPU ran. */
	if (run->backend == BACKEND_EMU || g->launch_match.same_launches)
		run->failed += findings_apply_race(&g->race, g);
	/* A speed predicted for a kernel that computes the wrong answer
	 * means nothing: it is not shown, nor why its traced run failed
	 * (the correctness tests say that). */
	if (run->failed > 0 && (g->prediction.made || g->prediction.error[0])) {
		g->prediction.made = 0;
		snprintf(g->prediction.error, sizeof(g->prediction.error),
			 "not predicted: a prediction means nothing for a kernel that fails correctness");
	}
	return 1;
}

struct step {
	const char *name;
	int (*run)(struct grade_run *run, struct grade *g);	/* 0: the grade ends here */
};

/* The grade, in order (docs/architecture.md, "One grade"). */
static const struct step steps[] = {
	{ "emulator beside", step_emulator_beside },
	{ "build", step_build },
	{ "integrity", step_integrity },
	{ "calculator beside", step_calculator_beside },
	{ "correctness", step_correctness },
	{ "occupancy calculator", step_occupancy_check },
	{ "prediction", step_prediction },
	{ "reference", step_reference },
	{ "performance", step_performance },
	{ "occupancy sweep", step_occupancy_sweep },
	{ "analysis", step_analysis },
};

const char *grade_step_name(int i)
{
	return i >= 0 && i < (int)(sizeof(steps) / sizeof(steps[0])) ? steps[i].name : NULL;
}

void grade_submission(const struct grade_request *req, const struct device_info *dev,
		      struct grade *g)
{
	struct grade_run run = { .req = req, .dev = dev };
	g->seed = req->seed;
	snprintf(g->submission, sizeof(g->submission), "%s", req->submission);
	grade_keep_source(g, req->submission);
	g->backend = req->backend;	/* what was asked, until it is resolved */
	if (backend_resolve(req->backend, dev, &run.backend, g->internal_message,
			    sizeof(g->internal_message)) < 0) {
		g->internal_error = 1;
		scale_settle(req->rubric, NULL, g);
		return;
	}
	g->backend = run.backend;
	isolation_describe(req->isolation, g->isolation_note, sizeof(g->isolation_note));
	snprintf(g->gpu, sizeof(g->gpu), "%s", req->gpu ? req->gpu : "");
	snprintf(g->device, sizeof(g->device), "%s", run.backend == BACKEND_CUDA ? dev->name : "CPU emulator");

	for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
		double t0 = now_s(), cpu0 = cpu_seconds_used();
		int go_on = steps[i].run(&run, g);
		if (g->n_steps < GRADE_MAX_STEPS) {
			g->step_cpu_seconds[g->n_steps] = cpu_seconds_used() - cpu0;
			g->step_seconds[g->n_steps++] = now_s() - t0;
		}
		if (!go_on)
			break;
	}
	side_stop(&run.emulator);	/* only if a step ended the grade before the joins */
	side_stop(&run.calculator);
	traced_runs_free(&run.traced);
	early_bench_free(&run.early);	/* only if a step ended the grade before the timing */
	gates_apply(req->rubric, run.checked && run.failed == 0, g);
	scale_settle(req->rubric, NULL, g);
}
