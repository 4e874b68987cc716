/*
 * From the traced correctness sizes to the graded size: the emulator traces a
 * lab's entry point at the largest of its correctness sizes (and a second, at
 * most half as large), never at the graded size; these functions scale the
 * traced launches to the graded size (docs/model.md, "The trace").
 */
#ifndef GRADER_MODEL_MODEL_SCALE_H
#define GRADER_MODEL_MODEL_SCALE_H

#include "model.h"

/* Makes each of l[0..n)'s traced blocks stand for the grid's mean block:
 * their figures times the grid's global bytes per block over theirs. The
 * sample of a few blocks, each counted for its share of the grid, is
 * off where the blocks' work differs (a grid-stride loop over the
 * correctness size gives some blocks a pass more than others: lab 4's
 * files predicted 73% or 84% of copy as the seed drew); the bytes every
 * block accessed are counted whole (emu/runtime/perf.c). A launch with
 * every block traced, or no such count, is left as it is. */
void model_scale_to_grid(struct model_launch *l, int n);

/* Scales big[0..n_big), traced at a size factor times smaller than the graded
 * one, in place. A kernel whose largest grid in big is larger than in small
 * (small[0..n_small), the second trace; NULL or 0 when there is none: every
 * grid then grows) gets factor times the blocks, each doing what its traced
 * blocks did; a kernel whose grid stayed (sized by the SMs, a grid-stride
 * loop) keeps its grid, and each block does factor times the work. */
void model_scale_to_graded(struct model_launch *big, int n_big, const struct model_launch *small,
			   int n_small, double factor);

#endif
