/*
 * What each timed run of the harness's bench and sweep verbs looks like,
 * a pure function of the seed, so that the harness and the grader agree
 * on it without the grader trusting the harness:
 *
 *  - the output sits at a seeded offset inside a larger buffer, and is
 *    poisoned before every call: a call that skips work (because it
 *    recognises a repeated call by its pointers) leaves poison behind;
 *  - one seeded chunk of the input is overwritten before every call, so
 *    a result kept from an earlier call (and copied back) is wrong there;
 *  - a few runs, chosen by the stream and indistinguishable from the others,
 *    are checked: the harness hashes their whole output, and the grader
 *    compares the hash with that of its own reference on the same input.
 *
 * The base input of a size is one for the whole process (the entry point's
 * timing and every point of lab 4's sweep), so that neither the harness nor
 * the grader generates a gigabyte again for each point.
 */
#ifndef COMMON_BENCH_PLAN_H
#define COMMON_BENCH_PLAN_H

#include <stddef.h>
#include <stdint.h>

#include "shape.h"

/* Offsets move in steps of 64 words (256 bytes: cudaMalloc's alignment, so
 * a kernel's speed does not depend on them) within this many words. */
#define BENCH_OFFSET_STEP_WORDS 64u
#define BENCH_SLACK_WORDS (64u * 1024u)
/* The input words overwritten before each call (fewer in a smaller input). */
#define BENCH_CHUNK_WORDS 64u
/* How many timed runs of each size are checked: the entry point's, and each
 * point of lab 4's sweep (ungraded: a chart of ten points, one check each). */
#define BENCH_CHECKED_RUNS 2
#define BENCH_SWEEP_CHECKED_RUNS 1

struct bench_run_plan {
	size_t out_offset;	/* words from the output buffer's start */
	size_t chunk_at;	/* the overwritten input words: [chunk_at, chunk_at + chunk_words) */
	size_t chunk_words;
	unsigned char chunk_byte;	/* each byte of them */
	int checked;		/* the output of this run is hashed and checked */
};

/* The stream of one timed size: the run's seed, the size, lab 4's extra
 * shared memory (-1 for the entry point), and a secret the harness draws
 * (rng_secret) and reports with the timings, so that the plan is the
 * seed's and yet no file can work it out beforehand from its command line. */
uint64_t bench_seed(uint64_t seed, const struct shape *s, long extra, uint64_t secret);

/* The stream the base input of shape s is filled with (lab_fill_input), for
 * every timed call of that shape in the process. */
uint64_t bench_input_seed(uint64_t seed, const struct shape *s, uint64_t secret);

/* Timed run `run` of `runs` (run >= runs: a warm-up, never checked), for an
 * input of n_in words, with bench_seed's stream; `checks` of the runs are
 * checked (BENCH_CHECKED_RUNS or BENCH_SWEEP_CHECKED_RUNS). */
void bench_plan_run(uint64_t stream, size_t n_in, int run, int runs, int checks,
		    struct bench_run_plan *p);

/* The input of a run: the base input (bench_input_seed's) with the plan's
 * chunk written into it. */
void bench_apply_chunk(uint32_t *in, const struct bench_run_plan *p);

/* A hash of n output words (position-dependent, computed in parallel). */
uint64_t bench_output_hash(const uint32_t *w, size_t n);

/* The terms of that hash for n words that sit at positions first,
 * first + 1, ...: a hash changes by these terms when those words change,
 * so a few changed words need not cost the whole output again. */
uint64_t bench_output_hash_at(const uint32_t *w, size_t n, size_t first);

#endif
