/*
 * Which of the emulator's correctness sizes the performance model's
 * prediction traces (steps/prediction.h), and what their one run left for it:
 * in the emulator the correctness step runs those sizes traced, so that one
 * run is both the size's verdict and the prediction's trace; on a GPU the
 * prediction runs them itself, in the emulator, beside the GPU's steps.
 */
#ifndef GRADER_TRACED_SIZES_H
#define GRADER_TRACED_SIZES_H

#include <jansson.h>

#include "labs/lab.h"
#include "steps/rubric.h"

/* The largest size traced, in elements: a traced run computes every block,
 * four of each launch in lockstep, and the performance model's scaling was
 * fitted to traces of 2^20+7 elements (lab 3: 1024x2048). The emulator's
 * larger correctness sizes (2^22+5, 2^24; lab 3's 4097x1023 and 8191x3073)
 * run untraced. */
#define TRACED_MAX_ELEMENTS ((size_t)1 << 21)

/* The sizes, as indices into r->emu_shapes, into pick: of those of at most
 * TRACED_MAX_ELEMENTS, the largest with at most half the largest's elements
 * (where a grid that follows the data is clearly smaller), then the
 * largest. Returns how many (0 to 2). */
int traced_sizes_pick(const struct rubric *r, const struct lab *lab, int pick[2]);

/* What the correctness step's runs of the traced sizes left. */
struct traced_runs {
	int ran;		/* it ran them, traced (in the emulator): not to be run again */
	json_t *metrics[2];	/* each one's trace where it passed, in traced_sizes_pick's order */
	/* The trace of the correctness run at the analysis shape, where it
	 * passed after another size of its process: a later call, whose
	 * launches the launch check compares (launch_match.h). */
	json_t *at_analysis_shape;
};

/* Whether emu_shapes[size] is one the prediction traces. */
int traced_sizes_has(const struct rubric *r, const struct lab *lab, int size);

/* Keeps a passing traced size's trace (a reference of its own), if size is
 * one of the traced sizes. */
void traced_runs_keep(struct traced_runs *t, const struct rubric *r, const struct lab *lab, int size,
		      json_t *metrics);

void traced_runs_free(struct traced_runs *t);

#endif
