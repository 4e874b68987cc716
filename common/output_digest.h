/*
 * A correctness size's output comes back to the grader whole (MSG_OUTPUT:
 * guard, output, guard) or, on a GPU, as its digest (MSG_OUTPUT_DIGEST):
 * the guards whole and the output's hash, made on the device
 * (bench_output_hash, common/bench_plan.h).
 *
 * Why: a lab 3 student's sizes are about 1.2 GB of output. Sent whole,
 * each gigabyte is copied from the GPU, written into the child's channel,
 * read and compared by the grader; a class's workers doing that at once
 * share the host's memory. The hash of a gigabyte takes the GPU about a
 * millisecond, and the grader hashes the reference it computes anyway.
 *
 * A hash says only "right" or "wrong", and a student who is wrong needs
 * the first wrong element. So a digest that differs does not stand as the
 * size's verdict: the size runs again first in a new process, and a size
 * that runs first in its process always comes back whole
 * (grader/steps/correctness_plan.h); unless a smaller size has already
 * shown the student a wrong element, where the digest's verdict stands.
 * A passing class moves its large outputs as digests; a size wrong only
 * at large sizes costs one more process (a CUDA context).
 *
 * The emulator always sends the whole output: its device memory is the
 * host's, and running a size again costs its emulation.
 */
#ifndef COMMON_OUTPUT_DIGEST_H
#define COMMON_OUTPUT_DIGEST_H

#include <stddef.h>
#include <stdint.h>

#include "guard.h"

/* Outputs smaller than this come back whole anyway: 16 MiB. */
#define OUTPUT_DIGEST_MIN_WORDS ((size_t)1 << 22)

/* MSG_OUTPUT_DIGEST's payload. */
struct output_digest {
	uint32_t guard_before[GUARD_WORDS];
	uint32_t guard_after[GUARD_WORDS];
	uint64_t words;		/* the output's words, the guards not counted */
	uint64_t hash;		/* bench_output_hash() of them */
};

/* Whether an output of out_words comes back as its digest: on a GPU
 * (emulated 0), in a size that is not the first of its process. */
static inline int output_sent_as_digest(size_t out_words, int first_in_process, int emulated)
{
	return !emulated && !first_in_process && out_words >= OUTPUT_DIGEST_MIN_WORDS;
}

#endif
