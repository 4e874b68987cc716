#include <criterion/criterion.h>
#include <math.h>

#include "../common/rng.h"

Test(rng, same_seed_same_stream_in_any_order)
{
	uint32_t a[1000], b[1000];
	rng_fill_u32(a, 1000, 42);
	rng_fill_u32(b, 1000, 42);
	cr_assert_arr_eq(a, b, sizeof(a));
	/* Counter-based: element i does not depend on how many came before. */
	uint32_t tail[10];
	rng_fill_u32(tail, 10, 42);
	cr_assert_arr_eq(tail, a, sizeof(tail));
}

Test(rng, seeds_and_tests_differ)
{
	uint32_t a[64], b[64];
	rng_fill_u32(a, 64, 1);
	rng_fill_u32(b, 64, 2);
	cr_expect_neq(memcmp(a, b, sizeof(a)), 0);
	cr_expect_neq(rng_test_seed(7, 0, 0), rng_test_seed(7, 0, 1));
	cr_expect_neq(rng_test_seed(7, 0, 0), rng_test_seed(7, 99, 0), "the salt changes the inputs");
}

Test(rng, full_range_words)
{
	static uint32_t w[1 << 16];
	rng_fill_u32(w, 1 << 16, 3);
	uint32_t hi = 0, lo = UINT32_MAX;
	for (int i = 0; i < 1 << 16; i++) {
		hi = w[i] > hi ? w[i] : hi;
		lo = w[i] < lo ? w[i] : lo;
	}
	cr_expect_gt(hi, 0xff000000u, "values should reach the top of the range");
	cr_expect_lt(lo, 0x01000000u, "values should reach the bottom of the range");
}

Test(rng, floats_are_finite_and_distinct_enough)
{
	static float f[1 << 16];
	rng_fill_f32(f, 1 << 16, 5);
	int distinct_neighbours = 0;
	for (int i = 0; i < 1 << 16; i++) {
		cr_assert(isfinite(f[i]) && f[i] >= -1.0f && f[i] < 1.0f, "f[%d] = %g", i, (double)f[i]);
		cr_assert(f[i] == 0.0f || fabsf(f[i]) >= 1e-7f, "subnormal-ish value %g", (double)f[i]);
		distinct_neighbours += i > 0 && f[i] != f[i - 1];
	}
	cr_expect_gt(distinct_neighbours, (1 << 16) - 10);
}

Test(rng, fresh_seeds_are_short)
{
	cr_expect_lt(rng_fresh_seed(), 1000000000ull);
}

/* The harness's secrets: no two alike (a seed could be typed back in). */
Test(rng, secrets_differ)
{
	uint64_t a = rng_secret(), b = rng_secret(), c = rng_secret();
	cr_expect(a != b && b != c && a != c, "%llx %llx %llx", (unsigned long long)a, (unsigned long long)b,
		  (unsigned long long)c);
}
