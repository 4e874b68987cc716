/*
 * One size's report judged against the grader's own reference
 * (correctness_judge in correctness.h), with the reference computed ahead
 * where the caller could (correctness.c computes every size's while its
 * child runs).
 */
#ifndef GRADER_CORRECTNESS_JUDGE_H
#define GRADER_CORRECTNESS_JUDGE_H

#include <stddef.h>
#include <stdint.h>

#include "steps/grade.h"
#include "steps/harness_door.h"

/* The grader's expected output of one size: its own input, its own
 * reference; or, for an output that comes back as a digest, only the
 * reference's hash (output_hash.h). */
struct expected {
	uint32_t *want;	/* NULL: not computed */
	size_t words;
	int hashed;	/* hash is the reference's bench_output_hash */
	uint64_t hash;
};

/* Computes e for (s, seed); -1 (e->want NULL) when out of memory. */
int expected_compute(const struct lab *lab, const struct shape *s, uint64_t seed, struct expected *e);
/* Computes e's hash alone; -1 (e->hashed 0) when out of memory. */
int expected_compute_hash(const struct lab *lab, const struct shape *s, uint64_t seed, struct expected *e);
void expected_free(struct expected *e);

/* correctness_judge, against given when it holds the reference (NULL, or
 * given->want NULL: computed here). digest_allowed: the output may come
 * back as its digest (output_sent_as_digest, output_digest.h); otherwise
 * only whole is believed. */
int correctness_judge_against(const struct lab *lab, const struct shape *s, uint64_t seed,
			      const struct harness_report *rep, const struct expected *given,
			      int digest_allowed, struct failure *f, char *msg, size_t len);

/* Whether a size that failed this way left its process running, sound for
 * the next size: its output was judged (wrong words, a canary, the input
 * written, a digest that differs), or the harness caught its exit() and
 * went on. Not a crash, a time limit, an exit that ended the process, a
 * CUDA error, nor a report that was not believed. */
int failure_leaves_process_running(const struct failure *f);

/* Whether a size's failure f is its verdict (correctness_plan.h): any where
 * the size ran first in its process, and after another size one that left
 * the process running, except a digest that differs: that stands only
 * where a smaller size already showed the student wrong words
 * (wrong_words_shown), since otherwise the size runs again first in a new
 * process to come back whole and name its first wrong element. */
int failure_stands(const struct failure *f, int first_in_process, int wrong_words_shown);

/* How a failure that ended its process ended (or its size's process,
 * where the sizes run one a process), as a key that the same ending at
 * another size shares (correctness_plan.h's size_run.ending): a crash by
 * its signal, a CUDA error by its name, the channel written into, an
 * exit() in the entry point, the emulator's stop. 0 for the endings that
 * say nothing of other sizes: a time limit (its own rule), memory, the
 * harness's trouble before or after the call, a wrong output. */
unsigned failure_ending_key(const struct failure *f);

#endif
