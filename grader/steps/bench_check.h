/*
 * The grader's side of the timed runs' checks (common/bench_plan.h): the
 * hashes the harness sent for the runs the seed picked, compared with the
 * hash of the grader's own reference on the same input. A timing whose
 * checks are missing or do not match is not believed.
 *
 * A checker holds one shape's input and reference output (a gigabyte each
 * at the largest sizes, on huge pages), so that the checks of several
 * timings of that shape (lab 4's sweep) generate the base input once. A
 * lab that rearranges its input (lab 3) needs neither: its hashes are made
 * from the input's seed (output_hash.h).
 */
#ifndef GRADER_STEPS_BENCH_CHECK_H
#define GRADER_STEPS_BENCH_CHECK_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "../labs/lab.h"

struct bench_checker {
	const struct lab *lab;
	struct shape shape;
	size_t n_in, n_out;
	uint32_t *in, *out;	/* NULL for a rearranging lab */
	int filled;		/* input_seed is the base input's (and in holds it) */
	uint64_t input_seed;
	/* An elementwise lab's: out is the base input's reference, and
	 * base_hash its hash; a rearranging lab's: base_hash alone. */
	int base_hashed;
	uint64_t base_hash;
};

/* Returns 0, or -1 with a message when the grader has no memory for it. */
int bench_checker_open(struct bench_checker *c, const struct lab *lab, const struct shape *s,
		       char *msg, size_t len);
void bench_checker_close(struct bench_checker *c);

/* timing: one MSG_TIMING of the checker's shape (its "extra_shared",
 * "secret" and "checked"), of `runs` timed runs, `checks` of them checked
 * (bench_plan_run), with the run's seed. Returns 0 when every checked run's
 * output was the reference's; BENCH_WRONG_RESULT with a message (naming the
 * run) when one was not; BENCH_NOT_BELIEVED when the checks are not those
 * the seed picks. */
#define BENCH_WRONG_RESULT (-1)
#define BENCH_NOT_BELIEVED (-2)
int bench_check_outputs(struct bench_checker *c, uint64_t seed, json_t *timing, int runs, int checks,
			char *msg, size_t len);

#endif
