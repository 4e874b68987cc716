/*
 * What the lab's reference solution takes for each correctness size on
 * this GPU (or in the emulator): the base of each size's time limit
 * (time_limit.h). Measured by running the reference's correctness child
 * once, all sizes in one process, its stages read from its channel as it
 * runs (sys/channel_watch.h); kept in build/reference-times/ for this lab,
 * backend and GPU model while the grader, the harness and the solution are
 * the files they were (a kit rebuilt or changed measures again).
 */
#ifndef GRADER_REFERENCE_TIMES_H
#define GRADER_REFERENCE_TIMES_H

#include "steps/device.h"
#include "steps/grade.h"
#include "steps/run_context.h"
#include "steps/time_limit.h"

struct reference_times {
	int known;			/* 1: size_s holds a measurement */
	int n;				/* the backend's sizes, the rubric's order */
	double size_s[RUBRIC_MAX_SHAPES];
	const char *where;		/* "on this GPU", "in the emulator, on one core" */
};

/* The sizes a backend's correctness step runs (the rubric's shapes or
 * emu_shapes), and how many. */
const struct shape *reference_times_shapes(const struct rubric *r, enum backend backend, int *n);

/* The times for ctx's lab and rubric on backend and dev: from the cache,
 * else measured and cached. The solution measured is ref_harness, its
 * build for this backend, or with may_build, one built into
 * ctx->work_dir/reference-times for the measurement (never next to a
 * batch's students: a batch measures before its workers start). Never
 * fails: t->known is 0 when there is no solution or it could not be run,
 * and every limit is then the rubric's. */
void reference_times_get(const struct run_context *ctx, enum backend backend,
			 const struct device_info *dev, const char *ref_harness, int may_build,
			 struct reference_times *t);

/* Size i's limit under the rubric's rule. */
struct time_limit reference_times_limit(const struct rubric *r, const struct reference_times *t, int i);

/* The rubric's rule for a correctness size: the same on a GPU a batch's
 * workers share as on a grade's own. What grows with them -- a CUDA
 * context's making and teardown, the frees and set-up between sizes, the
 * waits for a timed run -- is outside a size's own time
 * (sys/channel_watch.h). */
struct time_rule reference_times_rule(const struct rubric *r);

#endif
