#include <criterion/criterion.h>

#include "../common/shape.h"

static struct shape parse_ok(const char *text)
{
	struct shape s;
	char err[256];
	cr_assert_eq(shape_parse(text, &s, err, sizeof(err)), 0, "%s: %s", text, err);
	return s;
}

Test(shape, plain_and_powers)
{
	cr_expect_eq(parse_ok("1025").dim[0], 1025);
	cr_expect_eq(parse_ok("2^24").dim[0], 1u << 24);
	cr_expect_eq(parse_ok("2^20+7").dim[0], (1u << 20) + 7);
	cr_expect_eq(parse_ok("2^10-1").dim[0], 1023);
	cr_expect_eq(parse_ok("1").rank, 1);
}

Test(shape, matrices)
{
	struct shape s = parse_ok("4097x1023");
	cr_expect_eq(s.rank, 2);
	cr_expect_eq(s.dim[0], 4097);
	cr_expect_eq(s.dim[1], 1023);
	cr_expect_eq(shape_elements(&s), 4097u * 1023u);
	s = parse_ok("2^14x2^14");
	cr_expect_eq(s.dim[1], 16384);
	char buf[64];
	cr_expect_str_eq(shape_format(&s, buf, sizeof(buf)), "16384x16384");
}

Test(shape, large_sizes_are_written_as_the_rubric_writes_them)
{
	const char *cases[][2] = { { "2^28", "2^28" }, { "268435456", "2^28" }, { "1048583", "2^20+7" },
				   { "2^24", "2^24" }, { "65535", "65535" }, { "1025", "1025" },
				   { "65536", "2^16" }, { "2^20+65", "1048641" }, { "1", "1" } };
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct shape s = parse_ok(cases[i][0]), back;
		char buf[64], err[128];
		cr_expect_str_eq(shape_format(&s, buf, sizeof(buf)), cases[i][1], "%s", cases[i][0]);
		cr_assert_eq(shape_parse(buf, &back, err, sizeof(err)), 0, "%s does not parse back", buf);
		cr_expect_eq(back.dim[0], s.dim[0], "%s round trip", cases[i][0]);
	}
}

Test(shape, refuses_nonsense)
{
	const char *bad[] = { "", "0", "-5", "x", "12x", "3^4", "2^-1", "2^4-16", "1e6", "10 x 10",
			      "2^41", "99999999999999999999", "65536x65536" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct shape s;
		char err[256] = "";
		cr_expect_eq(shape_parse(bad[i], &s, err, sizeof(err)), -1, "'%s' was accepted", bad[i]);
		cr_expect(strstr(err, "is not a size") != NULL, "no reason for '%s'", bad[i]);
	}
}

/* One size, however it was made: a rank-1 shape's dim[1] is no part of it,
 * and the struct's padding is never compared. */
Test(shape, equal_sizes_are_the_same_rank_and_dimensions)
{
	struct shape a, b;
	char err[128];
	cr_assert_eq(shape_parse("2^20+7", &a, err, sizeof(err)), 0);
	b = (struct shape){ .rank = 1, .dim = { 1048583, 99 } };
	cr_expect(shape_equal(&a, &b), "a rank-1 shape's dim[1] counted");
	b.dim[0]++;
	cr_expect_not(shape_equal(&a, &b));
	cr_assert_eq(shape_parse("1025x1", &a, err, sizeof(err)), 0);
	cr_assert_eq(shape_parse("1025", &b, err, sizeof(err)), 0);
	cr_expect_not(shape_equal(&a, &b), "a matrix of one column is not a vector");
	cr_assert_eq(shape_parse("31x33", &a, err, sizeof(err)), 0);
	cr_assert_eq(shape_parse("33x31", &b, err, sizeof(err)), 0);
	cr_expect_not(shape_equal(&a, &b), "rows and columns swapped");
	b = (struct shape){ .rank = 2, .dim = { 31, 33 } };
	cr_expect(shape_equal(&a, &b));
}
