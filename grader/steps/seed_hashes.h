/*
 * The expected hashes of a rubric's correctness sizes for one run seed,
 * computed once where many grades share the seed: a batch's students. The
 * host makes lab 3's largest size from the seed at about a CPU-second
 * (output_hash.h), which each student would otherwise spend again while
 * its child runs.
 */
#ifndef GRADER_SEED_HASHES_H
#define GRADER_SEED_HASHES_H

#include <stdint.h>

#include "labs/lab.h"
#include "steps/grade.h"
#include "steps/rubric.h"

struct seed_hashes {
	int n;			/* the correctness sizes; 0: none computed */
	struct shape shapes[RUBRIC_MAX_SHAPES];
	uint64_t test_seed[RUBRIC_MAX_SHAPES];	/* rng_test_seed of the run's seed and salt */
	int hashed[RUBRIC_MAX_SHAPES];
	uint64_t hash[RUBRIC_MAX_SHAPES];
};

/* Fills h for the run seed and salt: the hash of each correctness size of
 * r on backend whose output can come back as a digest (output_digest.h);
 * none on the emulator, where outputs come back whole. A size left out
 * (out of memory) is computed by the grade that needs it. */
void seed_hashes_compute(struct seed_hashes *h, const struct lab *lab, const struct rubric *r,
			 enum backend backend, uint64_t seed, uint64_t salt);

/* Whether h (NULL: none) holds the hash of correctness size index, made
 * for test_seed and shape s; sets *hash if so. */
int seed_hashes_find(const struct seed_hashes *h, int index, uint64_t test_seed, const struct shape *s,
		     uint64_t *hash);

#endif
