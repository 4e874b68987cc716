/*
 * Half precision for the emulator: __half holds an IEEE binary16 (the
 * compiler's _Float16), and every operation computes in float and rounds to
 * half, as the GPU's half arithmetic does. Enough for code that stores,
 * converts and adds halves; the labs themselves use float and unsigned int.
 */
#pragma once
#include "cuda_runtime_api.h"
#ifdef __cplusplus

struct __half {
	_Float16 v;
	__half() = default;
	__half(float f) : v((_Float16)f) {}
	operator float() const { return (float)v; }
};
struct __align__(4) __half2 {
	__half x, y;
};
typedef __half half;
typedef __half2 half2;

static inline __half __float2half(float f) { return __half(f); }
static inline __half __float2half_rn(float f) { return __half(f); }
static inline float __half2float(__half h) { return (float)h; }
static inline __half2 __floats2half2_rn(float a, float b) { return __half2{ __half(a), __half(b) }; }
static inline __half2 __float2half2_rn(float a) { return __half2{ __half(a), __half(a) }; }
static inline __half2 __halves2half2(__half a, __half b) { return __half2{ a, b }; }
static inline float __low2float(__half2 h) { return (float)h.x; }
static inline float __high2float(__half2 h) { return (float)h.y; }
static inline __half __low2half(__half2 h) { return h.x; }
static inline __half __high2half(__half2 h) { return h.y; }
static inline __half __hadd(__half a, __half b) { return __half((float)a + (float)b); }
static inline __half __hsub(__half a, __half b) { return __half((float)a - (float)b); }
static inline __half __hmul(__half a, __half b) { return __half((float)a * (float)b); }
static inline __half __hdiv(__half a, __half b) { return __half((float)a / (float)b); }
static inline __half __hfma(__half a, __half b, __half c) { return __half((float)a * (float)b + (float)c); }
static inline __half2 __hadd2(__half2 a, __half2 b) { return __half2{ __hadd(a.x, b.x), __hadd(a.y, b.y) }; }
static inline __half2 __hmul2(__half2 a, __half2 b) { return __half2{ __hmul(a.x, b.x), __hmul(a.y, b.y) }; }

#endif
