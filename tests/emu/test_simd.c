/*
 * The SIMD and DPX intrinsics, cuComplex.h, fma's directed roundings and
 * __fns in device code (kernels/simd.cu), each result checked against a
 * reference written here: the intrinsics a part (byte, halfword, word) at a
 * time in plain C from NVIDIA's documented semantics, on every pair of the
 * edge values where saturation and wrapping show (0x7f + 1, 0x80 - 1,
 * 0xff + 1 and the halfword ones) and on random words.
 */
#include <criterion/criterion.h>
#include <float.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emu_test.h"
#include "simd_ops.h"

struct row {
	const char *name;
	char args;
	int width;
	enum simd_op op;
	enum simd_kind kind;
};
#define ARGS_1 '1'
#define ARGS_2 '2'
#define ARGS_3 '3'
#define ARGS_B 'B'
#define ARGS_P 'P'
#define X(name, args, w, op, kind) { #name, ARGS_##args, w, op, kind },
static const struct row rows[] = { SIMD_OPS(X) };
#undef X
#define ROWS ((int)(sizeof rows / sizeof rows[0]))

static bool is_signed(enum simd_op op)
{
	switch (op) {
	case SIMD_ADDSS: case SIMD_SUBSS: case SIMD_ABSDIFFS: case SIMD_AVGS: case SIMD_MAXS:
	case SIMD_MINS: case SIMD_SADS: case SIMD_GES: case SIMD_GTS: case SIMD_LES: case SIMD_LTS:
	case SIMD_ABS: case SIMD_ABSSS: case SIMD_NEG: case SIMD_NEGSS: case SIMD_MAX3S:
	case SIMD_MIN3S: case SIMD_ADDMAXS: case SIMD_ADDMINS: case SIMD_BMAXS: case SIMD_BMINS:
		return true;
	default:
		return false;
	}
}

/* Part k of x, width w, as a signed or unsigned number. */
static int64_t part(uint32_t x, int w, int k, bool s)
{
	if (w == 32)
		return s ? (int64_t)(int32_t)x : (int64_t)x;
	if (w == 16)
		return s ? (int64_t)(int16_t)(x >> (16 * k)) : (int64_t)(uint16_t)(x >> (16 * k));
	return s ? (int64_t)(int8_t)(x >> (8 * k)) : (int64_t)(uint8_t)(x >> (8 * k));
}

static int64_t clamp(int64_t v, int w, bool s)
{
	int64_t lo = s ? (w == 8 ? INT8_MIN : INT16_MIN) : 0;
	int64_t hi = s ? (w == 8 ? INT8_MAX : INT16_MAX) : (w == 8 ? UINT8_MAX : UINT16_MAX);
	return v < lo ? lo : v > hi ? hi : v;
}

static int64_t max64(int64_t a, int64_t b) { return a > b ? a : b; }
static int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }

/* One part's result (for a comparison: 1 or 0). */
static int64_t part_ref(enum simd_op op, int w, int64_t a, int64_t b, int64_t c)
{
	switch (op) {
	case SIMD_ADD: return a + b;
	case SIMD_ADDSS: case SIMD_ADDUS: return clamp(a + b, w, op == SIMD_ADDSS);
	case SIMD_SUB: return a - b;
	case SIMD_SUBSS: case SIMD_SUBUS: return clamp(a - b, w, op == SIMD_SUBSS);
	case SIMD_ABSDIFFS: case SIMD_ABSDIFFU: case SIMD_SADS: case SIMD_SADU: return llabs(a - b);
	/* half away from zero: C's division truncates toward zero */
	case SIMD_AVGS: return a + b >= 0 ? (a + b + 1) / 2 : (a + b - 1) / 2;
	case SIMD_AVGU: return (a + b + 1) / 2;
	case SIMD_HADDU: return (a + b) / 2;
	case SIMD_MAXS: case SIMD_MAXU: return max64(a, b);
	case SIMD_MINS: case SIMD_MINU: return min64(a, b);
	case SIMD_EQ: return a == b;
	case SIMD_NE: return a != b;
	case SIMD_GES: case SIMD_GEU: return a >= b;
	case SIMD_GTS: case SIMD_GTU: return a > b;
	case SIMD_LES: case SIMD_LEU: return a <= b;
	case SIMD_LTS: case SIMD_LTU: return a < b;
	case SIMD_ABS: return llabs(a);
	case SIMD_ABSSS: return clamp(llabs(a), w, true);
	case SIMD_NEG: return -a;
	case SIMD_NEGSS: return clamp(-a, w, true);
	case SIMD_MAX3S: case SIMD_MAX3U: return max64(max64(a, b), c);
	case SIMD_MIN3S: case SIMD_MIN3U: return min64(min64(a, b), c);
	case SIMD_ADDMAXS: case SIMD_ADDMAXU: return max64(a + b, c);
	case SIMD_ADDMINS: case SIMD_ADDMINU: return min64(a + b, c);
	case SIMD_BMAXS: case SIMD_BMAXU: return max64(a, b);
	case SIMD_BMINS: case SIMD_BMINU: return min64(a, b);
	}
	return 0;
}

/* The row's result for x, y, z and its predicates (bit 0: the low or only
 * part's, bit 1: the high halfword's). */
static uint32_t row_ref(const struct row *r, uint32_t x, uint32_t y, uint32_t z, uint32_t *pred)
{
	int w = r->width, n = 32 / w;
	bool s = is_signed(r->op);
	uint32_t mask = w == 32 ? 0xffffffffu : (1u << w) - 1, out = 0;
	int64_t sum = 0;
	*pred = 0;
	for (int k = 0; k < n; k++) {
		int64_t a = part(x, w, k, s), b = part(y, w, k, s), c = part(z, w, k, s);
		/* the DPX additions wrap in the part's width (add.s16x2, add.s32) */
		if (r->op >= SIMD_ADDMAXS && r->op <= SIMD_ADDMINU) {
			a = part((uint32_t)(a + b), w, 0, s);
			b = 0;
		}
		/* __vimax_s32_relu and the like: two operands, max(a, b, 0) */
		if (r->args == '2' && r->kind == SIMD_RELU)
			c = a;
		int64_t v = part_ref(r->op, w, a, b, c);
		if (r->op == SIMD_BMAXS || r->op == SIMD_BMAXU)
			*pred |= (uint32_t)(a >= b) << k;
		if (r->op == SIMD_BMINS || r->op == SIMD_BMINU)
			*pred |= (uint32_t)(a <= b) << k;
		if (r->kind == SIMD_MASK)
			v = v ? -1 : 0;
		if (r->kind == SIMD_RELU && v < 0)
			v = 0;
		sum += v;
		out |= ((uint32_t)v & mask) << (w * k);
	}
	if (r->op == SIMD_SADS || r->op == SIMD_SADU)
		return (uint32_t)sum;
	return out;
}

/* Edge values of a byte and of a halfword: where saturation, wrapping and
 * sign show. */
static const uint32_t edge8[8] = { 0x00, 0x01, 0x7f, 0x80, 0x81, 0xfe, 0xff, 0x40 };
static const uint32_t edge16[8] = { 0x0000, 0x0001, 0x7fff, 0x8000, 0x8001, 0xfffe, 0xffff, 0x4000 };

/* Word i of operand j (0, 1, 2): the first 512 words put every pair of
 * byte edges (a, b) in each byte; the next 512 every pair of halfword edges
 * in each halfword (and of word edges, in the words' own high parts); the
 * rest are random. */
static uint32_t operand(int i, int j, uint64_t *rng)
{
	int a = i & 7, b = (i >> 3) & 7, c = (i >> 6) & 7, sel = j == 0 ? a : j == 1 ? b : c;
	if (i < 512)
		return edge8[sel] | edge8[(sel + 1) & 7] << 8 | edge8[(sel + 3) & 7] << 16 | edge8[(sel + 5) & 7] << 24;
	if (i < 1024)
		return edge16[sel] | edge16[(sel + (i >> 9)) & 7] << 16;
	*rng = *rng * 6364136223846793005ull + 1442695040888963407ull;
	return (uint32_t)(*rng >> 32);
}

Test(simd, every_simd_and_dpx_intrinsic_matches_a_per_part_reference)
{
	enum { N = 1536 };
	static uint32_t a[N], b[N], c[N], out[N * ROWS * 2];
	uint64_t rng = 20261129;
	for (int i = 0; i < N; i++) {
		a[i] = operand(i, 0, &rng);
		b[i] = operand(i, 1, &rng);
		c[i] = operand(i, 2, &rng);
	}
	cr_assert_eq(sx_simd(a, b, c, N, out, ROWS), 0, "a CUDA call failed");
	int wrong = 0, covered[ROWS] = { 0 };
	for (int i = 0; i < N; i++)
		for (int r = 0; r < ROWS; r++) {
			uint32_t pred, want = row_ref(&rows[r], a[i], b[i], c[i], &pred);
			const uint32_t *got = out + ((size_t)i * ROWS + r) * 2;
			covered[r] += want != 0;
			if ((got[0] != want || got[1] != pred) && wrong++ < 12)
				cr_log_error("%s(0x%08x, 0x%08x, 0x%08x) = 0x%08x (pred %u), want 0x%08x (pred %u)",
					     rows[r].name, a[i], b[i], c[i], got[0], got[1], want, pred);
		}
	cr_expect_eq(wrong, 0, "%d wrong results", wrong);
	for (int r = 0; r < ROWS; r++)
		cr_expect_gt(covered[r], 0, "%s was never nonzero: a weak check", rows[r].name);
}

/* A few results written out, so that the reference itself is checked. */
Test(simd, the_saturation_edges_by_hand)
{
	static const uint32_t a[4] = { 0x7f80ff01u, 0x7fff8000u, 0x00008000u, 0x80fe7f01u };
	static const uint32_t b[4] = { 0x01ff0101u, 0x0001ffffu, 0x00000001u, 0x80ff0002u };
	static uint32_t out[4 * ROWS * 2];
	cr_assert_eq(sx_simd(a, b, a, 4, out, ROWS), 0);
	static const struct {
		const char *name;
		int i;
		uint32_t want;
	} cases[] = {
		{ "__vadd4", 0, 0x807f0002u },	 /* 0x7f + 1 and 0xff + 1 wrap */
		{ "__vaddss4", 0, 0x7f800002u }, /* 0x7f + 1 stays 0x7f, 0x80 - 1 stays 0x80 */
		{ "__vaddus4", 0, 0x80ffff02u }, /* 0xff + 1 stays 0xff */
		{ "__vsubus4", 0, 0x7e00fe00u }, /* 0x80 - 0xff stays 0 */
		{ "__vsadu4", 0, 507 },		 /* 0 + 254 + 127 + 126 */
		{ "__vaddss2", 1, 0x7fff8000u }, /* 0x7fff + 1, 0x8000 - 1 */
		{ "__vsubss2", 1, 0x7ffe8001u },
		{ "__vabsss2", 2, 0x00007fffu }, /* |-32768| saturates */
		{ "__vabs2", 2, 0x00008000u },	 /* and wraps */
		{ "__vnegss2", 2, 0x00007fffu },
		{ "__vavgs4", 3, 0x80fe4002u },	 /* 3 -> 2, 127 -> 64, -3 -> -2, -256 -> -128 */
		{ "__vavgu4", 3, 0x80ff4002u },
		{ "__vhaddu4", 3, 0x80fe3f01u },
	};
	for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
		int r = 0;
		while (r < ROWS && strcmp(rows[r].name, cases[k].name) != 0)
			r++;
		cr_assert_lt(r, ROWS, "%s is no row", cases[k].name);
		cr_expect_eq(out[((size_t)cases[k].i * ROWS + r) * 2], cases[k].want, "%s: 0x%08x, want 0x%08x",
			     cases[k].name, out[((size_t)cases[k].i * ROWS + r) * 2], cases[k].want);
	}
}

/* NVIDIA's cuComplex.h formulas, written out here in C (C11 neither fuses
 * nor widens float arithmetic on x86-64): the scaled division and modulus. */
static void cdivf_ref(const float *x, const float *y, float *q)
{
	float s = fabsf(y[0]) + fabsf(y[1]), oos = 1.0f / s;
	float ars = x[0] * oos, ais = x[1] * oos, brs = y[0] * oos, bis = y[1] * oos;
	s = brs * brs + bis * bis;
	oos = 1.0f / s;
	q[0] = (ars * brs + ais * bis) * oos;
	q[1] = (ais * brs - ars * bis) * oos;
}

static float cabsf_ref(const float *x)
{
	float a = fabsf(x[0]), b = fabsf(x[1]), v = a > b ? a : b, w = a > b ? b : a;
	float t = v * sqrtf(1.0f + (w / v) * (w / v));
	return v == 0.0f || v > FLT_MAX || w > FLT_MAX ? v + w : t;
}

static void cdiv_ref(const double *x, const double *y, double *q)
{
	double s = fabs(y[0]) + fabs(y[1]), oos = 1.0 / s;
	double ars = x[0] * oos, ais = x[1] * oos, brs = y[0] * oos, bis = y[1] * oos;
	s = brs * brs + bis * bis;
	oos = 1.0 / s;
	q[0] = (ars * brs + ais * bis) * oos;
	q[1] = (ais * brs - ars * bis) * oos;
}

static double cabs_ref(const double *x)
{
	double a = fabs(x[0]), b = fabs(x[1]), v = a > b ? a : b, w = a > b ? b : a;
	double t = v * sqrt(1.0 + (w / v) * (w / v));
	return v == 0.0 || v > DBL_MAX || w > DBL_MAX ? v + w : t;
}

/* Bit for bit, NaN equal to NaN. */
static bool same_f(float a, float b) { return memcmp(&a, &b, sizeof a) == 0 || (a != a && b != b); }
static bool same_d(double a, double b) { return memcmp(&a, &b, sizeof a) == 0 || (a != a && b != b); }

Test(simd, cucomplex_as_nvidias_formulas_where_the_scaling_matters)
{
	enum { N = 7 };
	/* x, y, z of each input; where a naive division or modulus would
	 * overflow or underflow (3e38, 1e-30), zero, infinity, and a product
	 * that only a fused multiply-add keeps (1 + 2^-20 squared). */
	static const float f[N][6] = {
		{ 3e38f, 1e38f, 1e38f, 1e38f, 0, 0 },
		{ 1.5f, -2.0f, 0.25f, 4.0f, 1.0f, -1.0f },
		{ 1e-30f, 3e-30f, 2e-30f, -1e-30f, 0, 0 },
		{ 3e38f, 0.0f, 0.0f, 0.0f, 0, 0 },
		{ INFINITY, 1.0f, 3e38f, 3e38f, 0, 0 },
		{ 1.0f + 0x1p-20f, 0.0f, 1.0f + 0x1p-20f, 0.0f, -(1.0f + 0x1p-19f), 0.0f },
		{ -7.0f, 3.0f, 2.0f, -5.0f, 0.5f, 0.5f },
	};
	static const double g[N][6] = {
		{ 1e308, 5e307, 5e307, 5e307, 0, 0 },
		{ 1.5, -2.0, 0.25, 4.0, 1.0, -1.0 },
		{ 1e-300, 3e-300, 2e-300, -1e-300, 0, 0 },
		{ 1.7e308, 0.0, 0.0, 0.0, 0, 0 },
		{ INFINITY, 1.0, 1e308, 1e308, 0, 0 },
		{ 1.0 + 0x1p-40, 0.0, 1.0 + 0x1p-40, 0.0, -(1.0 + 0x1p-39), 0.0 },
		{ 1.0 / 3, 2.0 / 3, 0.1, 0.7, 0.5, 0.5 },
	};
	static float fo[N][16];
	static double go[N][16];
	cr_assert_eq(sx_complex(&f[0][0], &g[0][0], N, &fo[0][0], &go[0][0]), 0);
	for (int i = 0; i < N; i++) {
		const float *x = f[i], *y = f[i] + 2, *z = f[i] + 4;
		float want[16] = { x[0] + y[0], x[1] + y[1], x[0] - y[0], x[1] - y[1],
				   x[0] * y[0] - x[1] * y[1], x[0] * y[1] + x[1] * y[0], 0, 0, x[0], -x[1],
				   fmaf(-x[1], y[1], fmaf(x[0], y[0], z[0])),
				   fmaf(x[1], y[0], fmaf(x[0], y[1], z[1])), x[0], x[1], cabsf_ref(x),
				   cabsf_ref(y) };
		cdivf_ref(x, y, want + 6);
		for (int k = 0; k < 16; k++)
			cr_expect(same_f(fo[i][k], want[k]), "float input %d, result %d: %a, want %a", i, k,
				  fo[i][k], want[k]);
		const double *u = g[i], *v = g[i] + 2, *w = g[i] + 4;
		double dwant[16] = { u[0] + v[0], u[1] + v[1], u[0] - v[0], u[1] - v[1],
				     u[0] * v[0] - u[1] * v[1], u[0] * v[1] + u[1] * v[0], 0, 0, u[0], -u[1],
				     fma(-u[1], v[1], fma(u[0], v[0], w[0])),
				     fma(u[1], v[0], fma(u[0], v[1], w[1])), (float)u[0], (float)u[1],
				     cabs_ref(u), cabs_ref(v) };
		cdiv_ref(u, v, dwant + 6);
		for (int k = 0; k < 16; k++)
			cr_expect(same_d(go[i][k], dwant[k]), "double input %d, result %d: %a, want %a", i, k,
				  go[i][k], dwant[k]);
	}
	/* What the scaling is for, in numbers: (3e38 + 1e38i) / (1e38 + 1e38i)
	 * is 2 - i, and |3e38 + 1e38i| = 3.1623e38, where a naive formula
	 * overflows ((1e308 + 5e307i) / (5e307 + 5e307i) is 1.5 - 0.5i); cuCfmaf keeps 2^-40 that a separate product would lose. */
	cr_expect(fabsf(fo[0][6] - 2.0f) < 1e-3f && fabsf(fo[0][7] + 1.0f) < 1e-3f, "%g %g", fo[0][6], fo[0][7]);
	cr_expect(fabsf(fo[0][14] / 3.1622777e38f - 1.0f) < 1e-6f, "%g", fo[0][14]);
	cr_expect(fo[3][14] == 3e38f && fo[3][15] == 0.0f && isinf(fo[4][14]));
	cr_expect(fo[5][10] == 0x1p-40f, "cuCfmaf: %a", fo[5][10]);
	cr_expect(fabs(go[0][6] - 1.5) < 1e-12 && fabs(go[0][7] + 0.5) < 1e-12, "%g %g", go[0][6], go[0][7]);
	cr_expect(go[5][10] == 0x1p-80, "cuCfma: %a", go[5][10]);
}

Test(simd, fma_in_each_rounding_mode)
{
	enum { N = 6 };
	/* a, b, c: an exact result, a tie below the last bit (rn goes to
	 * even), a tiny c on each side, and a product beyond the range. */
	static const float f[N][3] = {
		{ 2.0f, 3.0f, 1.0f },
		{ 1.0f + 0x1p-23f, 1.0f + 0x1p-23f, -1.0f },
		{ 1.0f, 1.0f, 0x1p-30f },
		{ -1.0f, 1.0f, -0x1p-30f },
		{ FLT_MAX, 2.0f, 0.0f },
		{ -FLT_MAX, 2.0f, 0.0f },
	};
	static const float want[N][4] = {
		{ 7.0f, 7.0f, 7.0f, 7.0f },
		{ 0x1p-22f, 0x1p-22f, 0x1p-22f, 0x1p-22f + 0x1p-45f },
		{ 1.0f, 1.0f, 1.0f, 1.0f + 0x1p-23f },
		{ -1.0f, -1.0f, -1.0f - 0x1p-23f, -1.0f },
		{ INFINITY, FLT_MAX, FLT_MAX, INFINITY },
		{ -INFINITY, -FLT_MAX, -INFINITY, -FLT_MAX },
	};
	static const double g[N][3] = {
		{ 2.0, 3.0, 1.0 },
		{ 1.0 + 0x1p-52, 1.0 + 0x1p-52, -1.0 },
		{ 1.0, 1.0, 0x1p-60 },
		{ -1.0, 1.0, -0x1p-60 },
		{ DBL_MAX, 2.0, 0.0 },
		{ -DBL_MAX, 2.0, 0.0 },
	};
	static const double dwant[N][4] = {
		{ 7.0, 7.0, 7.0, 7.0 },
		{ 0x1p-51, 0x1p-51, 0x1p-51, 0x1p-51 + 0x1p-103 },
		{ 1.0, 1.0, 1.0, 1.0 + 0x1p-52 },
		{ -1.0, -1.0, -1.0 - 0x1p-52, -1.0 },
		{ INFINITY, DBL_MAX, DBL_MAX, INFINITY },
		{ -INFINITY, -DBL_MAX, -INFINITY, -DBL_MAX },
	};
	static float fo[N][10];
	static double go[N][4];
	cr_assert_eq(sx_fma_modes(&f[0][0], &g[0][0], N, &fo[0][0], &go[0][0]), 0);
	for (int i = 0; i < N; i++) {
		for (int m = 0; m < 4; m++) {
			cr_expect(same_f(fo[i][m], want[i][m]), "__fmaf mode %d, input %d: %a, want %a", m, i,
				  fo[i][m], want[i][m]);
			cr_expect(same_f(fo[i][4 + m], want[i][m]), "__fmaf_ieee mode %d, input %d: %a", m, i,
				  fo[i][4 + m]);
			cr_expect(same_d(go[i][m], dwant[i][m]), "__fma mode %d, input %d: %a, want %a", m, i,
				  go[i][m], dwant[i][m]);
		}
		cr_expect(same_f(fo[i][8], want[i][3]), "__ffma2_ru, input %d: %a", i, fo[i][8]);
	}
	/* __fadd2_rd's second element: b + c rounded down. */
	cr_expect(fo[2][9] == 1.0f && fo[3][9] == 1.0f - 0x1p-24f, "__fadd2_rd: %a %a", fo[2][9], fo[3][9]);
}

Test(simd, fns_finds_the_nth_set_bit_both_ways)
{
	/* mask, base, offset, and the bit PTX's fns gives (its examples first) */
	static const uint32_t cases[][4] = {
		{ 0xaaaaaaaau, 3, 1, 3 },	  { 0xaaaaaaaau, 3, (uint32_t)-1, 3 },
		{ 0xaaaaaaaau, 2, 1, 3 },	  { 0xaaaaaaaau, 2, (uint32_t)-1, 1 },
		{ 0xaaaaaaaau, 0, 0, 0xffffffffu }, { 0xaaaaaaaau, 1, 0, 1 },
		{ 0x80000000u, 0, 1, 31 },	  { 0x80000000u, 0, 2, 0xffffffffu },
		{ 0x00000001u, 31, (uint32_t)-1, 0 }, { 0x000000f0u, 4, 3, 6 },
		{ 0x000000f0u, 31, (uint32_t)-2, 6 }, { 0xffffffffu, 31, 1, 31 },
		{ 0xffffffffu, 31, 2, 0xffffffffu }, { 0u, 5, 1, 0xffffffffu },
	};
	enum { N = sizeof cases / sizeof cases[0] };
	uint32_t in[N * 3], out[N];
	for (int i = 0; i < N; i++)
		memcpy(in + 3 * i, cases[i], 3 * sizeof *in);
	cr_assert_eq(sx_fns(in, N, out), 0);
	for (int i = 0; i < N; i++)
		cr_expect_eq(out[i], cases[i][3], "__fns(0x%08x, %u, %d) = 0x%x, want 0x%x", cases[i][0],
			     cases[i][1], (int)cases[i][2], out[i], cases[i][3]);
}
