/* One grade, start to finish: a table of steps (see grade_run.h). */
#include "steps/grade_run_state.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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
#include "steps/reference_times.h"
#include "steps/scale.h"

/* See grade_run_state.h. */
struct run_context grade_run_context(const struct grade_run *run, const char *harness)
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
		run->ctx = grade_run_context(run, run->built.harness);
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
			    !run->req->in_batch, &times);
	/* On a GPU the timing runs in the process that runs every size: one
	 * CUDA context a student, not two (the host makes them one at a time).
	 * Not where the grader holds the GPU's lock for its children, which
	 * would keep the GPU alone for the sizes too. */
	struct shape timed[GRADE_MAX_BENCH];
	struct bench_order order;
	bench_order_for(run->req->rubric, sweeps(run->req), timed, &order);
	int early = run->backend == BACKEND_CUDA && (!run->req->share.phase || run->req->share.lend);
	/* The launch check's run in the same process too, where an analysis
	 * will want it: a third of a class's CUDA contexts were its own
	 * (docs/results/gpu-2026-11-28-workers/). */
	run->failed = correctness_run(&run->ctx, run->backend, &times, &run->traced, &order,
				      early ? &run->early : NULL, run->req->analysis ? &run->analysis_run : NULL, g);
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


/* A later call's launches at the analysis shape (launch_match.h): in the
 * emulator, the correctness run's there; on a GPU, the run after the
 * sizes. 0 when there is none to compare, or the analysis run did not
 * end right (figures.shape is set only then): one that stopped at a fault
 * launched less, and its findings stand (findings.h). */
static int later_call_launches(const struct grade_run *run, const struct grade *g, struct launch_list *out)
{
	const struct gpu_launches *d = &run->analysis_run;
	if (!g->figures.shape[0])
		return 0;
	if (run->backend == BACKEND_EMU)
		return run->traced.at_analysis_shape && launch_list_from_metrics(run->traced.at_analysis_shape, out) == 0;
	if (g->hangs || !d->have || !d->logged || d->unreadable || d->failure.kind == FAILURE_TIME_LIMIT)
		return 0;
	*out = d->list;
	return 1;
}

/* The analysis: joined from beside, or run here; again on the second call
 * where a later call launched otherwise than the first. On a GPU the
 * analysis is of the emulator's build: believed only if it launches what
 * nvcc's build launches. On both, a later call must launch what the
 * analysed call did (launch_match.h). */
static int step_analysis(struct grade_run *run, struct grade *g)
{
	struct launch_list later;
	grade_analysis(run, g);
	int have_later = later_call_launches(run, g, &later);
	if (have_later && launch_match_later_differs(&later, g))
		grade_analysis_again(run, g);
	if (g->analysis)
		findings_race(g->analysis, &g->race);
	if (run->backend == BACKEND_CUDA && !g->hangs)
		launch_match_apply(&run->ctx, &run->analysis_run, g);
	if (run->backend == BACKEND_EMU && have_later)
		launch_match_later_call(&run->ctx, &later, g);
	/* A result that depends on a race, or was computed with an access
	 * outside a buffer, fails on both backends; on a GPU, only where the
	 * emulator analysed the program the GPU ran (for the access, up to the
	 * fault that ended the emulator's run, or where the GPU's run of that
	 * size stopped too). A correctness size's own access outside a buffer
	 * needs no such belief: it is this backend's run of the file. */
	const struct launch_match *m = &g->launch_match;
	if (run->backend == BACKEND_EMU || m->same_launches)
		run->failed += findings_apply_race(&g->race, g);
	int believed = run->backend == BACKEND_EMU || m->same_launches || m->emulator_within || m->gpu_stopped;
	if (!(g->bounds.found && believed) && g->bounds_at_size.found)
		g->bounds = g->bounds_at_size;
	if (believed || g->bounds.at_size)
		run->failed += findings_apply_bounds(&g->bounds, g);
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
	{ "analysis beside", step_analysis_beside },
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

/* A test the grader could not start (no fork, no sandbox, a GPU held by
 * another process past the sandbox's patience) says nothing of the
 * student's code: the grade is the grader's failure, and a batch grades
 * the student again when it resumes. */
static void not_started_is_internal(struct grade *g)
{
	for (int i = 0; i < g->n_tests && !g->internal_error; i++)
		if (g->tests[i].status == TEST_FAILED && g->tests[i].failure.kind == FAILURE_NOT_STARTED) {
			g->internal_error = 1;
			snprintf(g->internal_message, sizeof(g->internal_message), "%s", g->tests[i].message);
		}
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
		double t0 = now_s(), cpu0 = cpu_seconds_used(), beside0 = g->beside.cpu;
		int go_on = steps[i].run(&run, g);
		if (g->n_steps < GRADE_MAX_STEPS) {
			/* A fork joined in this step was reaped in it: its CPU
			 * seconds are the fork's, not the step's. */
			g->step_cpu_seconds[g->n_steps] = cpu_seconds_used() - cpu0 - (g->beside.cpu - beside0);
			g->step_seconds[g->n_steps++] = now_s() - t0;
		}
		if (!go_on)
			break;
	}
	not_started_is_internal(g);
	side_stop(&run.emulator);	/* only if a step ended the grade before the joins */
	side_stop(&run.calculator);
	traced_runs_free(&run.traced);
	early_bench_free(&run.early);	/* only if a step ended the grade before the timing */
	gates_apply(req->rubric, run.checked && run.failed == 0, g);
	scale_settle(req->rubric, NULL, g);
}
