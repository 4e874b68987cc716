/* Data-parallel loops, and the scans and inputs built on them: the same
 * results as one core, on sizes split into several pieces (the transpose's
 * are in test_reference.c). */
#include <criterion/criterion.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "../common/parallel.h"
#include "../common/reference.h"
#include "../common/rng.h"

struct coverage {
	atomic_uchar *seen;
	atomic_int calls;
};

static void mark(size_t begin, size_t end, void *arg)
{
	struct coverage *c = arg;
	atomic_fetch_add(&c->calls, 1);
	for (size_t i = begin; i < end; i++)
		atomic_fetch_add(&c->seen[i], 1);
}

Test(parallel, covers_every_item_once)
{
	size_t sizes[] = { 1, 2, 3, 63, 64, 65, 1000, 100003 };
	size_t grains[] = { 1, 7, 1000, 1 << 20 };
	for (size_t a = 0; a < sizeof(sizes) / sizeof(sizes[0]); a++)
		for (size_t b = 0; b < sizeof(grains) / sizeof(grains[0]); b++) {
			struct coverage c = { calloc(sizes[a], 1), 0 };
			int pieces = parallel_for(sizes[a], grains[b], mark, &c);
			cr_assert_eq(atomic_load(&c.calls), pieces);
			cr_assert(pieces >= 1 && pieces <= parallel_threads());
			for (size_t i = 0; i < sizes[a]; i++)
				cr_assert_eq(atomic_load(&c.seen[i]), 1, "n %zu grain %zu: item %zu seen %d times",
					     sizes[a], grains[b], i, atomic_load(&c.seen[i]));
			free((void *)c.seen);
		}
	cr_expect_eq(parallel_for(0, 1, mark, NULL), 0);
}

/* Large enough to be split on any machine with two cores or more. */
#define BIG (((size_t)5 << 20) + 7)

Test(parallel, scans_match_one_core)
{
	uint32_t *in = malloc(BIG * 4), *out = malloc(BIG * 4);
	cr_assert(in && out);
	rng_fill_u32(in, BIG, 42);
	ref_scan_exclusive(in, out, BIG);
	uint32_t sum = 0;
	for (size_t i = 0; i < BIG; i++) {
		cr_assert_eq(out[i], sum, "exclusive scan wrong at %zu", i);
		sum += in[i];
	}
	ref_scan_inclusive(in, out, BIG);
	sum = 0;
	for (size_t i = 0; i < BIG; i++) {
		sum += in[i];
		cr_assert_eq(out[i], sum, "inclusive scan wrong at %zu", i);
	}
	free(in);
	free(out);
}

Test(parallel, inputs_do_not_depend_on_the_split)
{
	uint32_t *w = malloc(BIG * 4);
	float *f = malloc(BIG * 4);
	cr_assert(w && f);
	rng_fill_u32(w, BIG, 7);
	rng_fill_f32(f, BIG, 7);
	/* Word i is a function of the seed and i alone, whichever piece made it. */
	for (size_t i = 0; i < BIG; i += 4099) {
		uint64_t bits = rng_at(7, i);
		cr_assert_eq(w[i], (uint32_t)(bits >> 32), "word %zu", i);
		cr_assert_eq(f[i], (float)(uint32_t)(bits >> 40) * (2.0f / 16777216.0f) - 1.0f, "float %zu", i);
	}
	free(w);
	free(f);
}
