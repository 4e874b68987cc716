/*
 * The CPU emulator's cuComplex.h: the complex types and functions of the
 * toolkit's header, on the emulator's float2 and double2 (the toolkit's
 * copy includes its own vector_types.h, which clashes with them).
 *
 * Each function computes with the same operations in the same order as
 * NVIDIA's, so results are bit for bit the same: cuCdivf scales both
 * operands by 1 / (|re| + |im|) of the divisor, and cuCabsf divides the
 * smaller part by the larger, so neither overflows where the result is in
 * range. nvcc contracts a * b + c into one fused multiply-add in device
 * code, which g++ on x86-64 does not: cuCfmaf and cuCfma, whose names
 * promise it, use fma; the others are exact here and on the GPU wherever
 * their products are (as for any float expression in the emulator).
 */
#pragma once

#if !defined(__cplusplus) || !defined(__CUDACC__)
#error "<cuComplex.h>: the CPU emulator provides it to .cu files (built by cuemu-cc), whose float2 and double2 it uses"
#else

typedef float2 cuFloatComplex;
typedef double2 cuDoubleComplex;
typedef cuFloatComplex cuComplex;

static inline float cuCrealf(cuFloatComplex x) { return x.x; }
static inline float cuCimagf(cuFloatComplex x) { return x.y; }
static inline cuFloatComplex make_cuFloatComplex(float r, float i)
{
	cuFloatComplex c;
	c.x = r;
	c.y = i;
	return c;
}
static inline cuComplex make_cuComplex(float r, float i) { return make_cuFloatComplex(r, i); }
static inline cuFloatComplex cuConjf(cuFloatComplex x) { return make_cuFloatComplex(x.x, -x.y); }
static inline cuFloatComplex cuCaddf(cuFloatComplex x, cuFloatComplex y)
{
	return make_cuFloatComplex(x.x + y.x, x.y + y.y);
}
static inline cuFloatComplex cuCsubf(cuFloatComplex x, cuFloatComplex y)
{
	return make_cuFloatComplex(x.x - y.x, x.y - y.y);
}
/* Unguarded, as NVIDIA's: the products may overflow where the result would not. */
static inline cuFloatComplex cuCmulf(cuFloatComplex x, cuFloatComplex y)
{
	return make_cuFloatComplex(x.x * y.x - x.y * y.y, x.x * y.y + x.y * y.x);
}
static inline cuFloatComplex cuCdivf(cuFloatComplex x, cuFloatComplex y)
{
	float scale = 1.0f / (fabsf(y.x) + fabsf(y.y));
	float xr = x.x * scale, xi = x.y * scale, yr = y.x * scale, yi = y.y * scale;
	float inv = 1.0f / (yr * yr + yi * yi);
	return make_cuFloatComplex((xr * yr + xi * yi) * inv, (xi * yr - xr * yi) * inv);
}
/* |x|: v sqrt(1 + (w / v)^2) for the larger part v and the smaller w; v + w
 * where that is 0 / 0 or an infinity (the constant is FLT_MAX, as NVIDIA's). */
static inline float cuCabsf(cuFloatComplex x)
{
	float a = fabsf(x.x), b = fabsf(x.y);
	float v = a > b ? a : b, w = a > b ? b : a;
	float t = w / v;
	t = v * sqrtf(1.0f + t * t);
	if (v == 0.0f || v > 3.402823466e38f || w > 3.402823466e38f)
		t = v + w;
	return t;
}
static inline cuComplex cuCfmaf(cuComplex x, cuComplex y, cuComplex d)
{
	float re = fmaf(x.x, y.x, d.x), im = fmaf(x.x, y.y, d.y);
	re = fmaf(-x.y, y.y, re);
	im = fmaf(x.y, y.x, im);
	return make_cuComplex(re, im);
}

static inline double cuCreal(cuDoubleComplex x) { return x.x; }
static inline double cuCimag(cuDoubleComplex x) { return x.y; }
static inline cuDoubleComplex make_cuDoubleComplex(double r, double i)
{
	cuDoubleComplex c;
	c.x = r;
	c.y = i;
	return c;
}
static inline cuDoubleComplex cuConj(cuDoubleComplex x) { return make_cuDoubleComplex(x.x, -x.y); }
static inline cuDoubleComplex cuCadd(cuDoubleComplex x, cuDoubleComplex y)
{
	return make_cuDoubleComplex(x.x + y.x, x.y + y.y);
}
static inline cuDoubleComplex cuCsub(cuDoubleComplex x, cuDoubleComplex y)
{
	return make_cuDoubleComplex(x.x - y.x, x.y - y.y);
}
static inline cuDoubleComplex cuCmul(cuDoubleComplex x, cuDoubleComplex y)
{
	return make_cuDoubleComplex(x.x * y.x - x.y * y.y, x.x * y.y + x.y * y.x);
}
static inline cuDoubleComplex cuCdiv(cuDoubleComplex x, cuDoubleComplex y)
{
	double scale = 1.0 / (fabs(y.x) + fabs(y.y));
	double xr = x.x * scale, xi = x.y * scale, yr = y.x * scale, yi = y.y * scale;
	double inv = 1.0 / (yr * yr + yi * yi);
	return make_cuDoubleComplex((xr * yr + xi * yi) * inv, (xi * yr - xr * yi) * inv);
}
static inline double cuCabs(cuDoubleComplex x)
{
	double a = fabs(x.x), b = fabs(x.y);
	double v = a > b ? a : b, w = a > b ? b : a;
	double t = w / v;
	t = v * sqrt(1.0 + t * t);
	if (v == 0.0 || v > 1.79769313486231570e+308 || w > 1.79769313486231570e+308)
		t = v + w;
	return t;
}
static inline cuDoubleComplex cuCfma(cuDoubleComplex x, cuDoubleComplex y, cuDoubleComplex d)
{
	double re = fma(x.x, y.x, d.x), im = fma(x.x, y.y, d.y);
	re = fma(-x.y, y.y, re);
	im = fma(x.y, y.x, im);
	return make_cuDoubleComplex(re, im);
}

static inline cuDoubleComplex cuComplexFloatToDouble(cuFloatComplex c)
{
	return make_cuDoubleComplex((double)c.x, (double)c.y);
}
static inline cuFloatComplex cuComplexDoubleToFloat(cuDoubleComplex c)
{
	return make_cuFloatComplex((float)c.x, (float)c.y);
}

#endif
