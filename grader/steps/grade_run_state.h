/*
 * What one grade carries from step to step, shared by the two files of
 * grade_submission: grade_run.c (the table of steps and the GPU's) and
 * grade_beside.c (the emulator's parts, and the parts that run in a forked
 * grader beside the rest, side.h). Not for other callers: grade_run.h is
 * the interface.
 */
#ifndef GRADER_GRADE_RUN_STATE_H
#define GRADER_GRADE_RUN_STATE_H

#include <jansson.h>

#include "steps/build.h"
#include "steps/grade_run.h"
#include "steps/harness_door.h"
#include "steps/launch_match.h"
#include "steps/side.h"
#include "steps/traced_sizes.h"

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
	struct gpu_launches analysis_run;	/* on a GPU: its run at the analysis shape */
	int timed;			/* the performance step timed the submission */
	json_t *sweep;			/* lab 4: the sweep's points, timed by the same child */
	/* The submission's emulator build, for the prediction and the analysis:
	 * in the emulator the grade's own; on a GPU built once, when first needed,
	 * and its symbols checked (emu_refused: the check's words in emu_log). */
	int emu_tried, emu_ok, emu_refused;
	struct build_result emu;
	char emu_log[8192];
	/* The parts that run beside the rest (side.h). emulator: on a GPU the
	 * emulator's steps, from the start; in the emulator, with a core to
	 * spare, its analysis, once the file is built. calculator: lab 4's on
	 * a GPU, once its file is built. */
	struct side emulator, calculator;
};
/* What the children of a grade share; harness is the build they run. */
struct run_context grade_run_context(const struct grade_run *run, const char *harness);

/* The steps of grade_beside.c (a step returns 0 when the grade ends there). */
int step_emulator_beside(struct grade_run *run, struct grade *g);	/* on a GPU, from the start */
int step_analysis_beside(struct grade_run *run, struct grade *g);	/* in the emulator, once built */
int step_calculator_beside(struct grade_run *run, struct grade *g);	/* lab 4, on a GPU, once built */
int step_prediction(struct grade_run *run, struct grade *g);

/* The emulator's analysis into g: joined from beside, or run here. */
void grade_analysis(struct grade_run *run, struct grade *g);

/* The analysis again, here, of the second call of its process: its tests
 * and figures replace the first's (launch_match.h). */
void grade_analysis_again(struct grade_run *run, struct grade *g);

#endif
