/*
 * The size the analysis runs at. A fixed size that no correctness test
 * uses would let a file recognise the analysis run and show it a decoy;
 * so the analysis runs at one of the sizes the emulator grades for
 * correctness, chosen by the seed, or, where none is large enough, at a
 * seeded size near the rubric's.
 */
#ifndef GRADER_STEPS_ANALYSIS_SHAPE_H
#define GRADER_STEPS_ANALYSIS_SHAPE_H

#include <stdint.h>

#include "steps/rubric.h"

/* Largest size the analysis is run at, in elements (the emulator's speed:
 * every block in lockstep). Below the emulator's sizes past 2^20+7 (lab 1's
 * 2^22+5, 2^24, lab 3's 4097x1023), which only check results. */
#define ANALYSIS_MAX_ELEMENTS ((size_t)1 << 21)

/*
 * The rubric's [analysis] shape when it is one of r->emu_shapes; else a
 * seeded choice among the emu_shapes of at least as many elements (and at
 * most ANALYSIS_MAX_ELEMENTS); else the rubric's shape with each dimension
 * grown by a seeded 0 to 50%.
 */
struct shape analysis_shape_choose(const struct rubric *r, uint64_t seed);

#endif
