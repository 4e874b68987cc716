/*
 * What the emulator found that explains a failure: its races, reads of
 * shared memory nothing wrote and accesses outside a buffer, named by file
 * and line. The analysis step grades them; these say them wherever else
 * they matter, and make a result that depends on a race, or was computed
 * with an access outside a buffer, fail on every backend.
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

/* The races with a read in them (RAW, WAR), counted over metrics'
 * launches into its "totals" under this key, beside the emulator's own
 * count of every race: the analysis check of races grades this one. */
#define FINDINGS_READ_RACES "races_with_a_read"
void findings_add_read_races(json_t *metrics);

/* Whether one of metrics' races has a read in it (RAW, WAR). */
int findings_is_read_race(json_t *race);

/* The race with a read in it that the emulator saw most often, for the
 * analysis check's message (", most often (8000 times) a write at
 * scan.cu:57 and a read at scan.cu:57 of the same shared word by two
 * threads of different warps, ..."), or "" when there is none. */
void findings_worst_race(json_t *metrics, char *buf, size_t len);

/* The race a kernel's result depends on, from metrics, in *race: the
 * one the emulator saw most often of those with a read in it (RAW, WAR)
 * between threads of different warps, whose order decides the value a
 * thread reads. Left out: a write-write race alone, since the emulator does
 * not see the values written, and threads that all store the same value (a
 * flag, a size) are legal and common; and a race inside one warp, since the
 * emulator's race detector does not take __syncwarp() as ordering a warp's
 * threads, which legal warp-level code relies on. found is 0 when there is
 * none, or metrics are not of that form. */
void findings_race(json_t *metrics, struct race_dependence *race);

/* The rule for a result that depends on a race, the same on both backends
 * whatever the run's timing gave: every size test of g says so, and one
 * that passed fails (FAILURE_DEPENDS_ON_RACE); one that failed keeps its
 * failure. Sets race->sizes_failed and returns it. Nothing happens when
 * race->found is 0. */
int findings_apply_race(struct race_dependence *race, struct grade *g);

/* The emulator run's access outside a buffer, from its harness's last
 * report (done: the "bounds" of a CUDA error's MSG_DONE, which only an
 * emulator build sends), at shape, in *b; found is 0 when there is none. */
void findings_bounds(const json_t *done, const char *shape, struct bounds_fault *b);

/* A correctness size's own sign of an access outside a buffer, from its
 * failure f and its harness's last report (done: the emulator's "bounds",
 * or NULL): the emulator stopped at one, the output's guard words changed,
 * or the GPU made an illegal memory access. Sets *b (at_size) where it is
 * one; leaves it alone where not. The caller keeps to the sizes both
 * backends check, so that the rule below holds on either for the same file. */
void findings_bounds_at_size(const json_t *done, const char *shape, const struct failure *f,
			     struct bounds_fault *b);

/* The rule for a result computed with an access outside a buffer, as for
 * a race (findings_apply_race): every size test that passed fails
 * (FAILURE_OUTSIDE_BUFFER), one that failed says so. Sets b->sizes_failed
 * and returns it. Nothing happens when b->found is 0. A size that came out
 * right beside one that wrote past its output fails too: which sizes were
 * drawn, and where the analysis ran, must not decide the grade. */
int findings_apply_bounds(struct bounds_fault *b, struct grade *g);

/* Why the traced blocks of metrics do not stand for the others, in buf, or
 * NULL when they do: some line ran only in the traced blocks and another
 * only in the untraced ones ("in kernel k, line 43 ran only in the blocks
 * the emulator traced and line 50 only in the others"). A file that behaves
 * one way where it is watched and another where it is not is not believed;
 * an honest kernel's edge code, run by some untraced blocks alone, is. */
const char *findings_unrepresentative(json_t *metrics, char *buf, size_t len);

#endif
