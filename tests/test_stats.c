#include <criterion/criterion.h>

#include "../common/stats.h"

Test(stats, median_odd_even)
{
	double odd[] = { 5, 1, 3 };
	double even[] = { 4, 1, 3, 2 };
	cr_expect_float_eq(stats_median(odd, 3), 3.0, 1e-12);
	cr_expect_float_eq(stats_median(even, 4), 2.5, 1e-12);
	cr_expect_float_eq(odd[0], 5.0, 0, "the input must not be reordered");
}

Test(stats, summary)
{
	double x[] = { 10, 1, 2, 3, 4, 5, 6, 7, 8, 9, 100 };
	struct stats s = stats_of(x, 11);
	cr_expect_eq(s.n, 11);
	cr_expect_float_eq(s.min, 1, 1e-12);
	cr_expect_float_eq(s.max, 100, 1e-12);
	cr_expect_float_eq(s.median, 6, 1e-12, "one outlier must not move the median");
	cr_expect_float_eq(s.q1, 3.5, 1e-12);
	cr_expect_float_eq(s.q3, 8.5, 1e-12);
	cr_expect_float_eq(s.spread, 5.0 / 6.0, 1e-12);
	cr_expect_float_eq(s.mean, 155.0 / 11.0, 1e-12);
}

Test(stats, empty_and_single)
{
	struct stats s = stats_of(NULL, 0);
	cr_expect_eq(s.n, 0);
	double one = 7;
	s = stats_of(&one, 1);
	cr_expect_float_eq(s.median, 7, 0);
	cr_expect_float_eq(s.spread, 0, 0);
}
