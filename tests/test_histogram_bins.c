/*
 * The class histogram's bins (grader/chart/chart_histogram.c): a score of
 * 100 in bins of 10 is counted in 90-100, so no bar reaches past 100.
 */
#include <criterion/criterion.h>

#include "chart/chart.h"

Test(histogram_bins, the_top_on_an_edge_closes_the_last_bin)
{
	cr_assert_eq(chart_histogram_bin(100, 10, 100), 9, "a score of 100 drawn as a bar at 100-110");
	cr_assert_eq(chart_histogram_bin(95, 10, 100), 9);
	cr_assert_eq(chart_histogram_bin(90, 10, 100), 9);
	cr_assert_eq(chart_histogram_bin(89.9, 10, 100), 8);
	cr_assert_eq(chart_histogram_bin(0, 10, 100), 0);
	/* A class that all scored 100: one bar, 90-100. */
	cr_assert_eq(chart_histogram_bin(100, 10, 100), chart_histogram_bin(100, 10, 100));
}

Test(histogram_bins, a_top_inside_a_bin_keeps_the_half_open_bins)
{
	cr_assert_eq(chart_histogram_bin(100, 10, 104), 10);
	cr_assert_eq(chart_histogram_bin(104, 10, 104), 10);
	cr_assert_eq(chart_histogram_bin(37.5, 12.5, 90), 3);
	/* Every bin's bar ends at or before the largest value when it is an edge. */
	for (double top = 10; top <= 100; top += 10) {
		double last = chart_histogram_bin(top, 10, top);
		cr_assert_leq((last + 1) * 10, top, "top %g drawn in the bin from %g", top, last * 10);
	}
}

Test(histogram_bins, zero_and_below)
{
	cr_assert_eq(chart_histogram_bin(0, 10, 0), 0);
	cr_assert_eq(chart_histogram_bin(-5, 10, 0), -1);
}
