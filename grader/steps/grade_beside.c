/*
 * The emulator's parts of a grade (its build on a GPU, the prediction, the
 * analysis), and the parts that run in a forked grader beside the rest
 * (side.h): on a GPU the emulator's and lab 4's calculator, in the
 * emulator the analysis. See grade_run_state.h.
 */
#include "steps/grade_run_state.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "parallel.h"
#include "steps/analysis.h"
#include "steps/analysis_run.h"
#include "steps/integrity.h"
#include "steps/occupancy_check.h"
#include "steps/prediction.h"
#include "sys/clock.h"
#include "sys/file_copy.h"
#include "sys/isolation.h"

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

/* In the emulator, from the correctness step's traced runs; on a GPU,
 * here only where the emulator's fork did not start. */
int step_prediction(struct grade_run *run, struct grade *g)
{
	if (run->backend == BACKEND_EMU || !run->emulator.pid)
		emulator_prediction(run, g);
	return 1;
}

/* Analysis by the emulator, when the rubric has checks; not for a kernel
 * that never ends. after_a_call: of the second call of its process. */
static void analyse(struct grade_run *run, int after_a_call, struct grade *g)
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
		analysis_run(req, &run->ctx, use, run->emu_refused, run->emu_log, after_a_call, g);
	} else {
		struct test_result *t = grade_add_test(g, "analysis", GROUP_ANALYSIS,
						       req->rubric->analysis_points);
		test_fail_as(t, FAILURE_NOT_RUN, "not analysed: the kernel did not finish in time on %d sizes",
			     g->hangs);
	}
}

static void emulator_analysis(struct grade_run *run, struct grade *g)
{
	analyse(run, 0, g);
}

/* What a forked grader runs with instead of the grade's (own_folder). */
struct fork_folder {
	struct grade_request req;
	struct isolation_policy policy;
	char dir[1000];		/* its folder, inside the grade's */
	char staged[1000];	/* the staged submission's folder, shown to its children */
};

/*
 * A forked grader runs its children as a sandbox uid of its own (side.h),
 * so it builds and runs in a folder of its own (name), inside the grade's
 * and handed to that uid as the grade's was (isolation_ready). Its children
 * reach the staged submission through the grade's folder, which they may
 * traverse but not list or write, and see the staged submission's folder
 * (the headers beside the file), as the grade's children do. Sets up run
 * for the fork; -1: no folder.
 */
static int own_folder(struct grade_run *run, const char *name, struct fork_folder *f)
{
	struct stat st;
	struct grade_request *req = &f->req;
	*req = *run->req;
	snprintf(f->dir, sizeof(f->dir), "%s/%s", req->work_dir, name);
	snprintf(f->staged, sizeof(f->staged), "%s", req->submission);
	char *slash = strrchr(f->staged, '/');
	if (slash)
		*slash = '\0';
	if (mkdir(f->dir, 0700) < 0 || stat(req->work_dir, &st) < 0 ||
	    (geteuid() == 0 && chmod(req->work_dir, (st.st_mode & 07777) | 0011) < 0))
		return -1;
	if (req->isolation) {
		f->policy = *req->isolation;
		f->policy.writable = f->dir;
		f->policy.shown = slash ? f->staged : NULL;
		req->isolation = &f->policy;
	}
	req->work_dir = f->dir;
	run->req = req;
	run->ctx.work_dir = f->dir;
	run->ctx.isolation = req->isolation;
	char err[512];
	return isolation_ready(req->isolation, f->dir, err, sizeof(err));
}

/* own_folder, for a fork that analyses: its grade holds the source, in
 * which the analysis marks the skeleton's lines. */
static int analysing_folder(struct grade_run *run, const char *name, struct fork_folder *f,
			    struct grade *g)
{
	if (own_folder(run, name, f) < 0)
		return -1;
	grade_keep_source(g, run->req->submission);
	return 0;
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
	struct fork_folder f;
	run->ctx = grade_run_context(run, NULL);	/* each step names the emulator build it runs */
	if (analysing_folder(run, "emulator", &f, g) < 0)
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
	struct fork_folder f;
	if (own_folder(run, "calculator", &f) < 0)
		_exit(1);
	double t0 = now_s();
	occupancy_check_run(&run->ctx, run->backend, run->req->occupancy_table, g);
	g->step_seconds[0] = now_s() - t0;
	g->n_steps = 1;
}

/* The analysis in a forked grader, on its own copy of the build. */
static void beside_analysis(void *arg, struct grade *g)
{
	struct grade_run *run = arg;
	struct fork_folder f;
	char copy[sizeof(run->built.harness)], err[512];
	if (analysing_folder(run, "analysis", &f, g) < 0 ||
	    snprintf(copy, sizeof(copy), "%s/harness-emu", f.dir) >= (int)sizeof(copy) ||
	    file_copy(run->built.harness, copy, 0755, err, sizeof(err)) < 0)
		_exit(1);
	memcpy(run->built.harness, copy, sizeof(copy));
	double t0 = now_s();
	emulator_analysis(run, g);
	g->step_seconds[EMU_ANALYSIS] = now_s() - t0;
	g->n_steps = EMU_PARTS;
}

/* On a GPU: the emulator's steps start beside (side.h) before anything
 * else; join_beside, at the analysis step, joins them. A grader that
 * cannot fork runs them in turn. */
int step_emulator_beside(struct grade_run *run, struct grade *g)
{
	if (run->backend == BACKEND_CUDA)
		side_start(&run->emulator, g->lab, beside_emulator, run);
	return 1;
}

/* Lab 4's calculator beside, once nvcc built the file; joined with the emulator's. */
int step_calculator_beside(struct grade_run *run, struct grade *g)
{
	if (run->backend == BACKEND_CUDA && run->req->lab->has_calculator &&
	    run->req->rubric->occupancy_points > 0)
		side_start(&run->calculator, g->lab, beside_calculator, run);
	return 1;
}

/* In the emulator, on a machine of more than one core: the analysis, which
 * needs only the build, runs beside the correctness sizes rather than after
 * them (docs/results/emu-grade-profile.md). */
int step_analysis_beside(struct grade_run *run, struct grade *g)
{
	if (run->backend == BACKEND_EMU && run->req->analysis && analysis_checks_present(run->req->rubric) &&
	    parallel_threads() > 1)
		side_start(&run->emulator, g->lab, beside_analysis, run);
	return 1;
}

/*
 * The other half of the step_*_beside steps: their forks joined into g
 * (each part again here, if its fork died). The time the parts took beside
 * goes into g->beside; the step table keeps the grade's own wall time (how
 * long it waited for them). Returns whether the emulator's analysis came
 * back.
 */
static int join_beside(struct grade_run *run, struct grade *g)
{
	double calc = 0, emu[EMU_PARTS] = { 0 }, cpu = 0;
	if (run->calculator.pid && side_join(&run->calculator, g, &calc, 1, &cpu) < 0)
		occupancy_check_run(&run->ctx, run->backend, run->req->occupancy_table, g);
	g->beside.cpu += cpu;
	if (!run->emulator.pid)
		return 0;
	if (g->hangs) {
		side_stop(&run->emulator);	/* the kernel hangs: it is not analysed */
		return 0;
	}
	if (side_join(&run->emulator, g, emu, EMU_PARTS, &cpu) == 0) {
		g->beside = (struct beside_seconds){ .joined = 1, .calculator = calc,
						     .emulator_build = emu[EMU_BUILD],
						     .prediction = emu[EMU_PREDICTION],
						     .analysis = emu[EMU_ANALYSIS],
						     .cpu = g->beside.cpu + cpu };
		return 1;
	}
	if (run->backend == BACKEND_CUDA)
		emulator_prediction(run, g);
	return 0;
}

void grade_analysis(struct grade_run *run, struct grade *g)
{
	if (!join_beside(run, g))
		emulator_analysis(run, g);
}

void grade_analysis_again(struct grade_run *run, struct grade *g)
{
	grade_clear_analysis(g);
	analyse(run, 1, g);
}
