/* Correctness: every output word of every size against the CPU reference. */
#ifndef GRADER_CORRECTNESS_H
#define GRADER_CORRECTNESS_H

#include "steps/grade.h"
#include "steps/harness_door.h"
#include "steps/launch_match.h"
#include "steps/reference_times.h"
#include "steps/run_context.h"
#include "steps/traced_sizes.h"

/* Adds one correctness test per size of the rubric (the emulator's sizes
 * on the emulator), each run under its own time limit: times, the
 * reference's, scaled by the rubric (reference_times.h). On the emulator,
 * with traced non-NULL, the prediction's sizes run traced and their traces
 * are kept there (traced_sizes.h; traced_runs_free), so that the prediction
 * does not run them again. On a GPU, with bench and early non-NULL, the
 * process that runs every size first also runs bench after them, one CUDA
 * context for both; where every size passed there, the timing's report is
 * kept in early (early_bench_free) for the performance step, which then
 * starts no child of its own. On a GPU, with analysis_run non-NULL, that
 * process also runs the analysis shape with the analysis's seed, between
 * the sizes and the timing, and what it showed is read into analysis_run
 * for the launch check (launch_match.h; have stays 0 where it did not run).
 * Returns the number that failed. */
int correctness_run(const struct run_context *ctx, enum backend backend,
		    const struct reference_times *times, struct traced_runs *traced,
		    const struct bench_order *bench, struct early_bench *early,
		    struct gpu_launches *analysis_run, struct grade *g);

/*
 * Judges one harness run against the reference for (shape, seed): the
 * canaries, then every word. Used for correctness and for the output of
 * the analysis run. Returns 1 if correct; otherwise writes why into msg,
 * and what went wrong, as data, into f.
 */
int correctness_judge(const struct lab *lab, const struct shape *s, uint64_t seed,
		      const struct harness_report *rep, struct failure *f, char *msg, size_t len);

#endif
