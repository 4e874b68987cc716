/* The emulator's analysis metrics turned into graded checks. */
#ifndef GRADER_ANALYSIS_H
#define GRADER_ANALYSIS_H

#include <jansson.h>

#include "steps/grade.h"
#include "steps/rubric.h"

/* How many of the checks (analysis_check.h) the rubric names. */
int analysis_checks_present(const struct rubric *r);

/* Adds one GROUP_ANALYSIS test per check the rubric names; analysed: the
 * shape the analysis run had (per-element figures are of its input). */
void analysis_grade(const struct rubric *r, const struct shape *analysed, json_t *metrics,
		    struct grade *g);

#endif
