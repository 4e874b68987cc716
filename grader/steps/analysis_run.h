/* The emulator's analysis run of a submission, and what it found. */
#ifndef GRADER_ANALYSIS_RUN_H
#define GRADER_ANALYSIS_RUN_H

#include "steps/build.h"
#include "steps/grade.h"
#include "steps/grade_run.h"
#include "steps/run_context.h"

/*
 * Runs the emulator's build use (NULL: it did not build; refused: its
 * symbols were refused, build_log says why) at the analysis shape, checks
 * its output like a correctness test's and grades its figures. Figures of
 * a run that did not compute the answer are not graded, but what the
 * emulator found there (races, uninitialised reads, the per-line figures)
 * is kept in g->analysis and named in the failure: it is often why.
 * after_a_call: the analysis is of the second call of its process
 * (launch_match.h).
 */
void analysis_run(const struct grade_request *req, const struct run_context *ctx,
		  const struct build_result *use, int refused, const char *build_log, int after_a_call,
		  struct grade *g);

#endif
