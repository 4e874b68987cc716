/* The functions of CUDA's math API that the C and C++ libraries lack, and
 * the classification functions without std:: as nvcc's headers declare them. */
#pragma once

/* Part of cuemu_device.h (CUEMU_PURE); computed in long double where one
 * rounding of a double's result would lose the last bit. */
#ifndef CUEMU_PURE
#error "cuemu_math.h is included by cuemu_device.h, not on its own"
#endif

/* nvcc's math_functions.h declares these in the global namespace, so CUDA
 * code calls isnan(x) without std:: or <math.h>. */
using std::isfinite;
using std::isinf;
using std::isnan;
using std::signbit;

/* sin(pi x) and cos(pi x): exact zeros and ones at integers and halves. */
template <class T> CUEMU_PURE T cuemu_sinpi_(T x)
{
	T r = std::fmod(x, (T)2);	/* exact */
	if (r == std::trunc(r))
		return std::copysign((T)0, x);
	return (T)std::sin(3.14159265358979323846264338327950288L * (long double)r);
}
template <class T> CUEMU_PURE T cuemu_cospi_(T x)
{
	T r = std::fabs(std::fmod(x, (T)2));
	if (r == (T)0.5 || r == (T)1.5)
		return 0;
	return (T)std::cos(3.14159265358979323846264338327950288L * (long double)r);
}
/* The inverse of erf, given y and 1 - y (exact: erfcinv passes its argument
 * there, so that tiny ones keep their digits): a first guess (Giles'
 * rational approximation; far in the tail, the asymptote of erfc), then
 * Newton's method on the side of erf or erfc that has the digits. */
CUEMU_PURE long double cuemu_erfinv_(long double y, long double one_minus_y)
{
	long double one_plus_y = 2 - one_minus_y;
	if (y != y || one_minus_y < 0 || one_plus_y < 0)
		return __builtin_nanl("");
	if (one_minus_y == 0 || one_plus_y == 0)
		return one_minus_y == 0 ? __builtin_infl() : -__builtin_infl();
	long double w = -std::log(one_minus_y * one_plus_y), x;
	if (w < 5) {
		w -= 2.5L;
		x = 2.81022636e-08L;
		x = 3.43273939e-07L + x * w;
		x = -3.5233877e-06L + x * w;
		x = -4.39150654e-06L + x * w;
		x = 0.00021858087L + x * w;
		x = -0.00125372503L + x * w;
		x = -0.00417768164L + x * w;
		x = 0.246640727L + x * w;
		x = 1.50140941L + x * w;
		x *= y;
	} else {	/* erfc(x) ~ exp(-x^2) / (x sqrt(pi)) */
		long double tail = one_minus_y < one_plus_y ? one_minus_y : one_plus_y;
		long double t = -std::log(tail * 1.77245385090551602729816748334114518L);
		x = std::sqrt(t);
		for (int i = 0; i < 4; i++)
			x = std::sqrt(t - std::log(x));
		x = y < 0 ? -x : x;
	}
	const long double two_over_sqrt_pi = 1.12837916709551257389615890312154517L;
	for (int i = 0; i < 8; i++) {	/* erf(x) - y, without cancellation */
		long double f = y > 0.5L ? one_minus_y - std::erfc(x)
			      : y < -0.5L ? std::erfc(-x) - one_plus_y : std::erf(x) - y;
		long double d = two_over_sqrt_pi * std::exp(-x * x);
		if (f == 0 || d == 0)
			break;
		x -= f / d;
	}
	return x;
}
/* exp(x^2) erfc(x) without its overflow: the asymptotic series far out. */
CUEMU_PURE long double cuemu_erfcx_(long double x)
{
	if (x < 100)
		return std::exp(x * x) * std::erfc(x);
	long double t = 1 / (2 * x * x);
	return (1 - t * (1 - 3 * t * (1 - 5 * t))) / (x * 1.77245385090551602729816748334114518L);
}
/* The modified Bessel functions of order 0 and 1: their power series. */
CUEMU_PURE long double cuemu_bessel_i_(long double x, int order)
{
	long double q = x * x / 4, term = order ? x / 2 : 1, sum = term;
	for (int k = 1; k < 2000 && term > sum * 1e-21L; k++) {
		term *= q / ((long double)k * (k + order));
		sum += term;
	}
	return sum;
}

#define CUEMU_MATH(T, f)                                                                        \
	CUEMU_PURE T sinpi##f(T x) { return cuemu_sinpi_(x); }                                  \
	CUEMU_PURE T cospi##f(T x) { return cuemu_cospi_(x); }                                  \
	CUEMU_PURE void sincospi##f(T x, T *s, T *c) { *s = cuemu_sinpi_(x), *c = cuemu_cospi_(x); } \
	CUEMU_PURE T rcbrt##f(T x) { return (T)(1 / std::cbrt((long double)x)); }               \
	CUEMU_PURE T rhypot##f(T x, T y) { return (T)(1 / std::hypot((long double)x, (long double)y)); } \
	CUEMU_PURE T norm3d##f(T a, T b, T c)                                                   \
	{                                                                                       \
		return (T)std::sqrt((long double)a * a + (long double)b * b + (long double)c * c); \
	}                                                                                       \
	CUEMU_PURE T norm4d##f(T a, T b, T c, T d)                                              \
	{                                                                                       \
		return (T)std::sqrt((long double)a * a + (long double)b * b + (long double)c * c + \
				    (long double)d * d);                                        \
	}                                                                                       \
	CUEMU_PURE T rnorm3d##f(T a, T b, T c) { return (T)(1 / (long double)norm3d##f(a, b, c)); } \
	CUEMU_PURE T rnorm4d##f(T a, T b, T c, T d) { return (T)(1 / (long double)norm4d##f(a, b, c, d)); } \
	CUEMU_PURE T norm##f(int dim, const T *p)                                               \
	{                                                                                       \
		long double s = 0;                                                              \
		for (int i = 0; i < dim; i++)                                                   \
			s += (long double)p[i] * p[i];                                          \
		return (T)std::sqrt(s);                                                         \
	}                                                                                       \
	CUEMU_PURE T rnorm##f(int dim, const T *p) { return (T)(1 / (long double)norm##f(dim, p)); } \
	CUEMU_PURE T normcdf##f(T x)                                                            \
	{                                                                                       \
		return (T)(std::erfc(-(long double)x * 0.707106781186547524400844362104849039L) / 2); \
	}                                                                                       \
	CUEMU_PURE T erfinv##f(T y) { return (T)cuemu_erfinv_(y, 1 - (long double)y); }         \
	CUEMU_PURE T erfcinv##f(T y) { return (T)cuemu_erfinv_(1 - (long double)y, y); }        \
	CUEMU_PURE T normcdfinv##f(T p)                                                         \
	{                                                                                       \
		return (T)(-1.41421356237309504880168872420969808L * cuemu_erfinv_(1 - 2 * (long double)p, 2 * (long double)p)); \
	}                                                                                       \
	CUEMU_PURE T erfcx##f(T x) { return (T)cuemu_erfcx_(x); }                               \
	CUEMU_PURE T cyl_bessel_i0##f(T x) { return (T)cuemu_bessel_i_(x, 0); }                 \
	CUEMU_PURE T cyl_bessel_i1##f(T x) { return (T)cuemu_bessel_i_(x, 1); }
CUEMU_MATH(float, f)
CUEMU_MATH(double, )
#undef CUEMU_MATH

/* The space of a generic address (runtime/access.c). The emulator's
 * __constant__ variables are global memory, so __isConstant is never true;
 * the other address spaces are the generic one, so the conversions keep
 * the address. */
extern "C" int cuemu_space_of_(const void *p);
CUEMU_PURE unsigned int __isGlobal(const void *p) { return cuemu_space_of_(p) == 1; }
CUEMU_PURE unsigned int __isShared(const void *p) { return cuemu_space_of_(p) == 2; }
CUEMU_PURE unsigned int __isLocal(const void *p) { return cuemu_space_of_(p) == 3; }
CUEMU_PURE unsigned int __isConstant(const void *p) { return (void)p, 0u; }
#define CUEMU_CVTA(space)                                                                       \
	CUEMU_PURE size_t __cvta_generic_to_##space(const void *p) { return (size_t)p; }        \
	CUEMU_PURE void *__cvta_##space##_to_generic(size_t a) { return (void *)a; }
CUEMU_CVTA(global)
CUEMU_CVTA(shared)
CUEMU_CVTA(constant)
CUEMU_CVTA(local)
#undef CUEMU_CVTA
/* A trap ends the kernel as a failed device-side assert does (runtime/fault.c). */
CUEMU_PURE void __trap(void) { std::abort(); }
CUEMU_PURE void __brkpt(void) { std::abort(); }
