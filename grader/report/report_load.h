/*
 * Reading a JSON report back, for --chart-from: the charts of a grade made
 * on another machine (a headless GPU box, a batch) drawn again here.
 */
#ifndef GRADER_REPORT_LOAD_H
#define GRADER_REPORT_LOAD_H

#include <stddef.h>

#include "steps/grade.h"

/* Fills g (grade_init'ed by the caller) with the lab, device, bench points
 * and analysis of the report at path. Returns 0, or -1 with why in err. */
int report_load(const char *path, struct grade *g, char *err, size_t errlen);

#endif
