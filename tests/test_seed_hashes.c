/*
 * A batch's expected hashes, made once for the seed its students share
 * (grader/steps/seed_hashes.h): each must be the hash a grade would
 * compute itself, only for the sizes that come back as digests, and never
 * found for another seed, size or shape.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "../common/output_digest.h"
#include "../common/rng.h"
#include "steps/output_hash.h"
#include "steps/seed_hashes.h"

extern const struct lab lab1_naive_scan, lab3_transpose;

/* Lab 3's rubric cut to three sizes: one small, two that may come as digests. */
static struct rubric three_sizes(void)
{
	struct rubric r;
	memset(&r, 0, sizeof r);
	r.n_shapes = 3;
	r.shapes[0] = (struct shape){ 2, { 31, 33 } };
	r.shapes[1] = (struct shape){ 2, { 2048, 2048 } };
	r.shapes[2] = (struct shape){ 2, { 2049, 2051 } };
	r.n_emu_shapes = 1;
	r.emu_shapes[0] = r.shapes[1];
	return r;
}

Test(seed_hashes, each_is_the_hash_a_grade_computes_for_its_own_test_seed)
{
	struct rubric r = three_sizes();
	static struct seed_hashes h;
	seed_hashes_compute(&h, &lab3_transpose, &r, BACKEND_CUDA, 11, 5);
	cr_assert_eq(h.n, 3);
	cr_expect(!h.hashed[0], "31x33 always comes back whole: no hash to keep");
	for (int i = 1; i < 3; i++) {
		uint64_t own, found = 0, seed = rng_test_seed(11, 5, (unsigned)i);
		cr_assert(h.hashed[i]);
		cr_assert_eq(output_hash_of_seed(&lab3_transpose, &r.shapes[i], seed, &own), 0);
		cr_expect(seed_hashes_find(&h, i, seed, &r.shapes[i], &found));
		cr_expect_eq(found, own, "size %d: not the hash the grade would compute", i);
	}
	cr_expect_neq(h.hash[1], h.hash[2]);
}

Test(seed_hashes, none_is_found_for_another_seed_size_or_shape)
{
	struct rubric r = three_sizes();
	static struct seed_hashes h;
	uint64_t found = 0;
	seed_hashes_compute(&h, &lab3_transpose, &r, BACKEND_CUDA, 11, 5);
	uint64_t seed1 = rng_test_seed(11, 5, 1);
	cr_expect(!seed_hashes_find(&h, 1, rng_test_seed(12, 5, 1), &r.shapes[1], &found), "another run seed");
	cr_expect(!seed_hashes_find(&h, 1, rng_test_seed(11, 6, 1), &r.shapes[1], &found), "another salt");
	cr_expect(!seed_hashes_find(&h, 2, seed1, &r.shapes[2], &found), "size 1's seed for size 2");
	cr_expect(!seed_hashes_find(&h, 1, seed1, &r.shapes[2], &found), "another shape");
	cr_expect(!seed_hashes_find(&h, 0, rng_test_seed(11, 5, 0), &r.shapes[0], &found), "a size kept whole");
	cr_expect(!seed_hashes_find(&h, 3, seed1, &r.shapes[1], &found), "past the sizes");
	cr_expect(!seed_hashes_find(NULL, 1, seed1, &r.shapes[1], &found), "no batch");
	cr_expect_eq(found, 0, "nothing written when nothing is found");
}

Test(seed_hashes, the_emulator_keeps_none_its_outputs_come_back_whole)
{
	struct rubric r = three_sizes();
	static struct seed_hashes h;
	seed_hashes_compute(&h, &lab3_transpose, &r, BACKEND_EMU, 11, 5);
	cr_assert_eq(h.n, 1);
	cr_expect(!h.hashed[0]);
}

Test(seed_hashes, a_lab_that_computes_is_hashed_through_its_reference)
{
	struct rubric r;
	memset(&r, 0, sizeof r);
	r.n_shapes = 1;
	r.shapes[0] = (struct shape){ 1, { OUTPUT_DIGEST_MIN_WORDS + 5 } };
	static struct seed_hashes h;
	uint64_t own, found = 0, seed = rng_test_seed(3, 0, 0);
	seed_hashes_compute(&h, &lab1_naive_scan, &r, BACKEND_CUDA, 3, 0);
	cr_assert_eq(output_hash_of_seed(&lab1_naive_scan, &r.shapes[0], seed, &own), 0);
	cr_assert(seed_hashes_find(&h, 0, seed, &r.shapes[0], &found));
	cr_expect_eq(found, own);
}
