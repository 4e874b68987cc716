/*
 * The performance model's prediction of the graded call (docs/model.md): two
 * of the emulator's correctness runs (the largest size, and one at most half
 * as large: traced_sizes.h) with a seeded sample of each launch's blocks
 * traced, their outputs judged as correctness runs are (in the emulator they
 * are the correctness step's own runs); grader/model/ scales the
 * traces to the graded size and turns them into a time on a named GPU and a
 * percentage of that GPU's copy bandwidth. No run at the graded size. In the emulator it is what the
 * performance test grades (steps/performance.c); on a GPU it is shown beside
 * the measurement.
 */
#ifndef GRADER_STEPS_PREDICTION_H
#define GRADER_STEPS_PREDICTION_H

#include "steps/correctness.h"
#include "steps/grade.h"
#include "steps/traced_sizes.h"

/* The GPU model to predict for, into name: on a GPU (device non-NULL) that
 * GPU, if the kit has its model; in the emulator the first GPU the rubric
 * has a band for and the kit a model of, else the H100. Returns 0, or -1
 * when the kit has no model for the GPU. */
int prediction_gpu(const struct rubric *r, const char *device, char *name, size_t len);

/*
 * Records the prediction in g->prediction (grade.h), or its error, saying why
 * there is none, from the traces of the traced sizes (traced_sizes.h): done's,
 * where the correctness step ran them (in the emulator), else runs of
 * emu_harness (the submission's emulator build) in prediction mode (a traced
 * correctness run; a wrong result predicts nothing). done may be NULL.
 */
void prediction_run(const struct run_context *ctx, const char *emu_harness, const struct traced_runs *done,
		    const char *gpu_name, struct grade *g);

#endif
