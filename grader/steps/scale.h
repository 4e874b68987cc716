/*
 * One scale (the JSON report's max_score): every grade of a lab
 * is out of the rubric's maximum, on every backend and for every
 * submission. A group the grade could not reach (the file did not build,
 * the integrity check refused it, the analysis could not run, there was no
 * file at all) is written down as a failed test worth the group's points
 * and scoring 0, with the reason; the maximum never shrinks.
 */
#ifndef GRADER_SCALE_H
#define GRADER_SCALE_H

#include "steps/grade.h"

/* Completes g to the rubric's maximum. why: the reason for the groups that
 * were never reached, or NULL to take it from g (build, integrity, grader
 * error). */
void scale_settle(const struct rubric *r, const char *why, struct grade *g);

#endif
