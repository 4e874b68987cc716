/*
 * --calibrate: time the reference solution and the rubric's calibration
 * fixtures on this GPU, derive a band that separates them, and write it
 * into the rubric as this GPU's section.
 */
#ifndef GRADER_CALIBRATE_H
#define GRADER_CALIBRATE_H

#include "steps/device.h"
#include "cli/options.h"
#include "steps/rubric.h"

/* Returns the exit status (0 written, 1 the fixtures cannot be separated, 4 no GPU). */
int calibrate_run(const struct options *o, const struct lab *lab, const struct rubric *r,
		  const struct device_info *dev);

/* The band from measured percentages of copy: full points at the reference
 * over margin (and at every 'full' fixture), none at or under the 'zero'
 * fixtures. Returns 0, or -1 with why. Pure, for tests. */
int calibrate_band(double reference_pct, const double *zero, int n_zero, const double *full,
		   int n_full, const double *partial, int n_partial, double margin,
		   struct band *out, char *why, size_t len);

#endif
