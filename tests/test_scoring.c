#include <criterion/criterion.h>

#include "cli/calibrate.h"
#include "steps/performance.h"

Test(scoring, band_is_linear_between_edges)
{
	struct band b = { 20, 75 };
	cr_expect_float_eq(band_points(&b, 13.8, 40), 0, 1e-12, "below the band: nothing");
	cr_expect_float_eq(band_points(&b, 20, 40), 0, 1e-12);
	cr_expect_float_eq(band_points(&b, 47.5, 40), 20, 1e-9, "half way: half the points");
	cr_expect_float_eq(band_points(&b, 75, 40), 40, 1e-12);
	cr_expect_float_eq(band_points(&b, 92.7, 40), 40, 1e-12, "above: full, never more");
}

/* An H100's figures for the fixtures give a band that separates them. */
Test(scoring, calibration_separates_fixtures)
{
	double zero[] = { 13.8 }, partial[] = { 58.3 }, full[] = { 92.0 };
	struct band b;
	char why[256];
	cr_assert_eq(calibrate_band(92.7, zero, 1, full, 1, partial, 1, 1.2, &b, why, sizeof(why)), 0, "%s", why);
	cr_expect_float_eq(band_points(&b, 13.8, 40), 0, 1e-12, "naive: no points");
	double p = band_points(&b, 58.3, 40);
	cr_expect(p > 0 && p < 40, "unpadded: partial (%g)", p);
	cr_expect_float_eq(band_points(&b, 92.0, 40), 40, 1e-12, "padded: full");
	cr_expect_geq(92.7 / b.upper_pct, 1.2 - 1e-9, "reference margin");
}

Test(scoring, calibration_refuses_overlap)
{
	double zero[] = { 50 }, full[] = { 52 };
	struct band b;
	char why[256] = "";
	cr_expect_eq(calibrate_band(60, zero, 1, full, 1, NULL, 0, 1.2, &b, why, sizeof(why)), -1);
	cr_expect(strstr(why, "too close") != NULL, "%s", why);
	double zero2[] = { 10 }, partial[] = { 95 };
	cr_expect_eq(calibrate_band(92, zero2, 1, NULL, 0, partial, 1, 1.2, &b, why, sizeof(why)), -1,
		     "a partial fixture above the band");
}
