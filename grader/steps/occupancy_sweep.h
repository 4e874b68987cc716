/*
 * Lab 4's experiment, run by the grader on a GPU: the student's kernel with
 * more and more dynamic shared memory per block, so that fewer and fewer
 * blocks fit on an SM, each point timed against a copy of the same bytes.
 * What occupancy each point really ran at comes from the launch log and the
 * CUDA occupancy API, not from the shared size asked for.
 */
#ifndef GRADER_OCCUPANCY_SWEEP_H
#define GRADER_OCCUPANCY_SWEEP_H

#include "steps/correctness.h"
#include "steps/grade.h"

/* From the points the performance step's child timed (performance.h):
 * sets g->sweep.points: [{"occupancy_pct", "gbps", "copy_gbps",
 * "percent_of_copy", "extra_shared"}], by occupancy, one point per
 * occupancy; or g->sweep.error with why they are not believed (the
 * performance test's rules: timing.h, peak_gbps the GPU's). */
void occupancy_sweep(const struct run_context *ctx, json_t *points, double peak_gbps, struct grade *g);

#endif
