/* The emulator's intrinsics with a rounding mode in their name (_rn, _rz, _rd, _ru)
 * that cuemu_intrinsics.h lacks, and the bit-level double and 16x8 dot product ones. */
#pragma once

/* Part of cuemu_device.h, through cuemu_intrinsics.h (CUEMU_PURE, cuemu_bits_). */
#ifndef CUEMU_PURE
#error "cuemu_rounding.h is included by cuemu_device.h, not on its own"
#endif

/*
 * The host's rounding mode is never changed (fesetround would need
 * <cfenv>, whose macros a file could test, and g++ may move arithmetic
 * across the call): each result is rounded to nearest, then moved one step
 * by the sign of its exact error, which the error-free transformations
 * give exactly (TwoSum for a sum, fma for a product, a quotient's or a
 * square root's remainder). Exact except where the result or its error is
 * subnormal. mode: 0 nearest, 1 toward zero, 2 down, 3 up.
 */
template <class T> CUEMU_PURE T cuemu_round_dir_(T r, T err, int mode)
{
	if (err == 0 || r != r || r - r != 0)	/* exact, NaN or infinite */
		return r;
	if ((mode == 2 && err < 0) || (mode == 1 && r > 0 && err < 0))
		return std::nextafter(r, (T)-__builtin_inf());
	if ((mode == 3 && err > 0) || (mode == 1 && r < 0 && err > 0))
		return std::nextafter(r, (T)__builtin_inf());
	return r;
}
/* The error of a + b rounded to nearest (Knuth's TwoSum). */
template <class T> CUEMU_PURE T cuemu_sum_err_(T a, T b, T s)
{
	T bb = s - a;
	return (a - (s - bb)) + (b - bb);
}
/* The sign of q's error as a / b: the remainder a - q b (exact by fma), over b. */
template <class T> CUEMU_PURE T cuemu_div_err_(T a, T b, T q)
{
	T rem = std::fma(-q, b, a);
	return (rem < 0) == (b < 0) ? (rem == 0 ? 0 : 1) : -1;
}

#define CUEMU_ROUND_ARITH(T, add, sub, mul, div, rcp, sqr, m)                                     \
	CUEMU_PURE T add(T a, T b) { T s = a + b; return cuemu_round_dir_(s, cuemu_sum_err_(a, b, s), m); } \
	CUEMU_PURE T sub(T a, T b) { T s = a - b; return cuemu_round_dir_(s, cuemu_sum_err_(a, -b, s), m); } \
	CUEMU_PURE T mul(T a, T b) { T p = a * b; return cuemu_round_dir_(p, std::fma(a, b, -p), m); } \
	CUEMU_PURE T div(T a, T b) { T q = a / b; return cuemu_round_dir_(q, cuemu_div_err_(a, b, q), m); } \
	CUEMU_PURE T rcp(T a) { return div((T)1, a); }                                              \
	CUEMU_PURE T sqr(T a)                                                                        \
	{                                                                                            \
		T s = std::sqrt(a);                                                                  \
		return cuemu_round_dir_(s, std::fma(-s, s, a), m);                                   \
	}
CUEMU_ROUND_ARITH(float, __fadd_rz, __fsub_rz, __fmul_rz, __fdiv_rz, __frcp_rz, __fsqrt_rz, 1)
CUEMU_ROUND_ARITH(float, __fadd_rd, __fsub_rd, __fmul_rd, __fdiv_rd, __frcp_rd, __fsqrt_rd, 2)
CUEMU_ROUND_ARITH(float, __fadd_ru, __fsub_ru, __fmul_ru, __fdiv_ru, __frcp_ru, __fsqrt_ru, 3)
CUEMU_ROUND_ARITH(double, __dadd_rz, __dsub_rz, __dmul_rz, __ddiv_rz, __drcp_rz, __dsqrt_rz, 1)
CUEMU_ROUND_ARITH(double, __dadd_rd, __dsub_rd, __dmul_rd, __ddiv_rd, __drcp_rd, __dsqrt_rd, 2)
CUEMU_ROUND_ARITH(double, __dadd_ru, __dsub_ru, __dmul_ru, __ddiv_ru, __drcp_ru, __dsqrt_ru, 3)
#undef CUEMU_ROUND_ARITH
CUEMU_PURE double __dsub_rn(double a, double b) { return a - b; }
CUEMU_PURE double __ddiv_rn(double a, double b) { return a / b; }
CUEMU_PURE double __drcp_rn(double a) { return 1.0 / a; }
CUEMU_PURE double __dsqrt_rn(double a) { return std::sqrt(a); }

/*
 * Fused multiply-add: r = fma(a, b, c) rounded to nearest; the sign of its
 * error from a type W of at least twice T's precision, where a * b is
 * exact and a * b + c is exact as a sum and its TwoSum error (double for
 * float, __float128 for double). A sum beyond T's range is the largest
 * finite value toward zero (rz, and rd or ru away from the overflow).
 */
template <class T, class W> CUEMU_PURE T cuemu_fma_dir_(T a, T b, T c, int mode)
{
	T r = std::fma(a, b, c);
	W p = (W)a * (W)b, s = p + (W)c, e = cuemu_sum_err_(p, (W)c, s);
	if (r - r != 0 && r == r && s - s == 0) {	/* overflowed in T, finite in W */
		T big = sizeof(T) == sizeof(float) ? (T)__FLT_MAX__ : (T)__DBL_MAX__;
		if (mode == 1 || (mode == 2 && r > 0) || (mode == 3 && r < 0))
			return r > 0 ? big : -big;
		return r;
	}
	W d = s - (W)r;		/* exact: s and r are within a factor of two */
	W err = d != 0 ? d : e;
	return cuemu_round_dir_(r, (T)(err > 0 ? 1 : err < 0 ? -1 : 0), mode);
}
CUEMU_PURE float __fmaf_rz(float a, float b, float c) { return cuemu_fma_dir_<float, double>(a, b, c, 1); }
CUEMU_PURE float __fmaf_rd(float a, float b, float c) { return cuemu_fma_dir_<float, double>(a, b, c, 2); }
CUEMU_PURE float __fmaf_ru(float a, float b, float c) { return cuemu_fma_dir_<float, double>(a, b, c, 3); }
CUEMU_PURE double __fma_rz(double a, double b, double c) { return cuemu_fma_dir_<double, __float128>(a, b, c, 1); }
CUEMU_PURE double __fma_rd(double a, double b, double c) { return cuemu_fma_dir_<double, __float128>(a, b, c, 2); }
CUEMU_PURE double __fma_ru(double a, double b, double c) { return cuemu_fma_dir_<double, __float128>(a, b, c, 3); }
/* The _ieee forms differ on a GPU only under -ftz=true, which the
 * emulator does not model (subnormals are kept). */
CUEMU_PURE float __fmaf_ieee_rn(float a, float b, float c) { return std::fma(a, b, c); }
CUEMU_PURE float __fmaf_ieee_rz(float a, float b, float c) { return __fmaf_rz(a, b, c); }
CUEMU_PURE float __fmaf_ieee_rd(float a, float b, float c) { return __fmaf_rd(a, b, c); }
CUEMU_PURE float __fmaf_ieee_ru(float a, float b, float c) { return __fmaf_ru(a, b, c); }
/* Pairs of floats (CUDA 12.8, sm_100 and later; here whatever -arch says):
 * each element as the scalar form. */
#define CUEMU_PAIR(m)                                                                               \
	CUEMU_PURE float2 __fadd2_##m(float2 x, float2 y) { return float2{__fadd_##m(x.x, y.x), __fadd_##m(x.y, y.y)}; } \
	CUEMU_PURE float2 __fmul2_##m(float2 x, float2 y) { return float2{__fmul_##m(x.x, y.x), __fmul_##m(x.y, y.y)}; } \
	CUEMU_PURE float2 __ffma2_##m(float2 x, float2 y, float2 z)                                \
	{                                                                                           \
		return float2{__fmaf_##m(x.x, y.x, z.x), __fmaf_##m(x.y, y.y, z.y)};               \
	}
CUEMU_PAIR(rn)
CUEMU_PAIR(rz)
CUEMU_PAIR(rd)
CUEMU_PAIR(ru)
#undef CUEMU_PAIR

/* Integer and double to float, integer to double: a long double holds every
 * 64-bit integer and double exactly, so the error is that of one rounding. */
template <class T> CUEMU_PURE T cuemu_convert_(long double exact, int mode)
{
	T r = (T)exact;
	return cuemu_round_dir_(r, (T)(exact > (long double)r ? 1 : exact < (long double)r ? -1 : 0), mode);
}
#define CUEMU_CONVERT(F, T, rn, rz, rd, ru)                                                   \
	CUEMU_PURE T rn(F x) { return cuemu_convert_<T>((long double)x, 0); }                 \
	CUEMU_PURE T rz(F x) { return cuemu_convert_<T>((long double)x, 1); }                 \
	CUEMU_PURE T rd(F x) { return cuemu_convert_<T>((long double)x, 2); }                 \
	CUEMU_PURE T ru(F x) { return cuemu_convert_<T>((long double)x, 3); }
CUEMU_CONVERT(long long, float, __ll2float_rn, __ll2float_rz, __ll2float_rd, __ll2float_ru)
CUEMU_CONVERT(unsigned long long, float, __ull2float_rn, __ull2float_rz, __ull2float_rd, __ull2float_ru)
CUEMU_CONVERT(unsigned long long, double, __ull2double_rn, __ull2double_rz, __ull2double_rd, __ull2double_ru)
#undef CUEMU_CONVERT
#define CUEMU_CONVERT3(F, T, rz, rd, ru)                                                      \
	CUEMU_PURE T rz(F x) { return cuemu_convert_<T>((long double)x, 1); }                 \
	CUEMU_PURE T rd(F x) { return cuemu_convert_<T>((long double)x, 2); }                 \
	CUEMU_PURE T ru(F x) { return cuemu_convert_<T>((long double)x, 3); }
CUEMU_CONVERT3(int, float, __int2float_rz, __int2float_rd, __int2float_ru)
CUEMU_CONVERT3(unsigned, float, __uint2float_rz, __uint2float_rd, __uint2float_ru)
CUEMU_CONVERT3(long long, double, __ll2double_rz, __ll2double_rd, __ll2double_ru)
CUEMU_CONVERT3(double, float, __double2float_rz, __double2float_rd, __double2float_ru)
#undef CUEMU_CONVERT3

/* Float and double to integers: the cast truncates; floor, ceil and
 * nearbyint (the host's mode, to nearest even) do the other three. */
#define CUEMU_TO_INT(F, T, rn, rz, rd, ru)                                                    \
	CUEMU_PURE T rn(F x) { return (T)std::nearbyint(x); }                                 \
	CUEMU_PURE T rz(F x) { return (T)x; }                                                 \
	CUEMU_PURE T rd(F x) { return (T)std::floor(x); }                                     \
	CUEMU_PURE T ru(F x) { return (T)std::ceil(x); }
CUEMU_TO_INT(float, long long, __float2ll_rn, __float2ll_rz, __float2ll_rd, __float2ll_ru)
CUEMU_TO_INT(float, unsigned long long, __float2ull_rn, __float2ull_rz, __float2ull_rd, __float2ull_ru)
CUEMU_TO_INT(double, unsigned long long, __double2ull_rn, __double2ull_rz, __double2ull_rd, __double2ull_ru)
#undef CUEMU_TO_INT
CUEMU_PURE unsigned __float2uint_rd(float x) { return (unsigned)std::floor(x); }
CUEMU_PURE unsigned __float2uint_ru(float x) { return (unsigned)std::ceil(x); }
CUEMU_PURE int __double2int_rd(double x) { return (int)std::floor(x); }
CUEMU_PURE int __double2int_ru(double x) { return (int)std::ceil(x); }
CUEMU_PURE unsigned __double2uint_rz(double x) { return (unsigned)x; }
CUEMU_PURE unsigned __double2uint_rd(double x) { return (unsigned)std::floor(x); }
CUEMU_PURE unsigned __double2uint_ru(double x) { return (unsigned)std::ceil(x); }
CUEMU_PURE long long __double2ll_rz(double x) { return (long long)x; }
CUEMU_PURE long long __double2ll_rd(double x) { return (long long)std::floor(x); }
CUEMU_PURE long long __double2ll_ru(double x) { return (long long)std::ceil(x); }

/* A double's two 32-bit halves, and a double made of two. */
CUEMU_PURE int __double2hiint(double x) { return (int)(cuemu_bits_(x) >> 32); }
CUEMU_PURE int __double2loint(double x) { return (int)(unsigned)cuemu_bits_(x); }
CUEMU_PURE double __hiloint2double(int hi, int lo)
{
	return cuemu_from_bits_<double>((unsigned long long)(unsigned)hi << 32 | (unsigned)lo);
}

/* Two 16-bit halves of a times two bytes of b (the low two, or the high
 * two), summed into c: signed and unsigned. */
CUEMU_PURE int cuemu_dp2a_(int a, int b, int c, int shift)
{
	return c + (int)(short)a * (int)(signed char)(b >> shift) +
	       (int)(short)(a >> 16) * (int)(signed char)(b >> (shift + 8));
}
CUEMU_PURE unsigned cuemu_dp2a_(unsigned a, unsigned b, unsigned c, int shift)
{
	return c + (a & 0xffffu) * ((b >> shift) & 0xffu) + (a >> 16) * ((b >> (shift + 8)) & 0xffu);
}
CUEMU_PURE int __dp2a_lo(int a, int b, int c) { return cuemu_dp2a_(a, b, c, 0); }
CUEMU_PURE int __dp2a_hi(int a, int b, int c) { return cuemu_dp2a_(a, b, c, 16); }
CUEMU_PURE unsigned __dp2a_lo(unsigned a, unsigned b, unsigned c) { return cuemu_dp2a_(a, b, c, 0); }
CUEMU_PURE unsigned __dp2a_hi(unsigned a, unsigned b, unsigned c) { return cuemu_dp2a_(a, b, c, 16); }
