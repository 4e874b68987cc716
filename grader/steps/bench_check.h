/*
 * The grader's side of the timed runs' checks (common/bench_plan.h): the
 * hashes the harness sent for the runs the seed picked, compared with the
 * hash of the grader's own reference on the same input. A timing whose
 * checks are missing or do not match is not believed.
 */
#ifndef GRADER_STEPS_BENCH_CHECK_H
#define GRADER_STEPS_BENCH_CHECK_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "../labs/lab.h"

/* timing: one MSG_TIMING of shape s (its "extra_shared" and "checked"),
 * timed runs times with the run's seed. Returns 0 when every checked run's
 * output was the reference's; -1 with a message (naming the run) when one
 * was not, or the checks are not those the seed picks. */
int bench_check_outputs(const struct lab *lab, const struct shape *s, uint64_t seed, json_t *timing,
			int runs, char *msg, size_t len);

#endif
