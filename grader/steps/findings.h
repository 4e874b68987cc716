/*
 * What the emulator found that explains a failure: its races and reads of
 * shared memory nothing wrote, named by file and line. The analysis step
 * grades them; these say them wherever else they matter.
 */
#ifndef GRADER_FINDINGS_H
#define GRADER_FINDINGS_H

#include <jansson.h>
#include <stddef.h>

#include "steps/grade.h"

/* One sentence on metrics' races and uninitialised shared reads ("the
 * emulator saw 3968 races; the first, RAW between warps in shared memory,
 * between transpose.cu:125 and transpose.cu:130 with no barrier between"),
 * or "" when it saw none. Returns how many races it saw. */
long long findings_describe(json_t *metrics, char *buf, size_t len);

/* Appends to each correctness test of g that failed on wrong output that
 * its result may depend on the race g->analysis found: the same file can
 * pass on one machine and fail on another. */
void findings_explain_correctness(struct grade *g);

/* Why the traced blocks of metrics do not stand for the others, in buf, or
 * NULL when they do: some line ran only in the traced blocks and another
 * only in the untraced ones ("in kernel k, line 43 ran only in the blocks
 * the emulator traced and line 50 only in the others"). A file that behaves
 * one way where it is watched and another where it is not is not believed;
 * an honest kernel's edge code, run by some untraced blocks alone, is. */
const char *findings_unrepresentative(json_t *metrics, char *buf, size_t len);

#endif
