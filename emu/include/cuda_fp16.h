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
/* More of NVIDIA's cuda_fp16.h, as course code calls it: pairs to and from
 * float2, the rest of the pairwise arithmetic, comparisons, conversions to
 * and from integers and bits. */
static inline __half2 __half2half2(__half a) { return __half2{ a, a }; }
static inline __half2 __low2half2(__half2 h) { return __half2{ h.x, h.x }; }
static inline __half2 __high2half2(__half2 h) { return __half2{ h.y, h.y }; }
static inline __half2 __lowhigh2highlow(__half2 h) { return __half2{ h.y, h.x }; }
static inline __half2 __lows2half2(__half2 a, __half2 b) { return __half2{ a.x, b.x }; }
static inline __half2 __highs2half2(__half2 a, __half2 b) { return __half2{ a.y, b.y }; }
static inline __half __hneg(__half a) { return __half(-(float)a); }
static inline __half __habs(__half a) { return __half(__builtin_fabsf((float)a)); }
static inline __half __hmax(__half a, __half b) { return (float)a > (float)b ? a : b; }
static inline __half __hmin(__half a, __half b) { return (float)a < (float)b ? a : b; }
static inline bool __heq(__half a, __half b) { return (float)a == (float)b; }
static inline bool __hne(__half a, __half b) { return (float)a != (float)b; }
static inline bool __hlt(__half a, __half b) { return (float)a < (float)b; }
static inline bool __hle(__half a, __half b) { return (float)a <= (float)b; }
static inline bool __hgt(__half a, __half b) { return (float)a > (float)b; }
static inline bool __hge(__half a, __half b) { return (float)a >= (float)b; }
static inline bool __hisnan(__half a) { return (float)a != (float)a; }
static inline __half2 __hsub2(__half2 a, __half2 b) { return __half2{ __hsub(a.x, b.x), __hsub(a.y, b.y) }; }
static inline __half2 __h2div(__half2 a, __half2 b) { return __half2{ __hdiv(a.x, b.x), __hdiv(a.y, b.y) }; }
static inline __half2 __hfma2(__half2 a, __half2 b, __half2 c)
{
	return __half2{ __hfma(a.x, b.x, c.x), __hfma(a.y, b.y, c.y) };
}
static inline __half2 __hneg2(__half2 a) { return __half2{ __hneg(a.x), __hneg(a.y) }; }
static inline __half2 __habs2(__half2 a) { return __half2{ __habs(a.x), __habs(a.y) }; }
static inline __half2 __hmax2(__half2 a, __half2 b) { return __half2{ __hmax(a.x, b.x), __hmax(a.y, b.y) }; }
static inline __half2 __hmin2(__half2 a, __half2 b) { return __half2{ __hmin(a.x, b.x), __hmin(a.y, b.y) }; }
static inline __half hsqrt(__half a) { return __half(__builtin_sqrtf((float)a)); }
static inline __half hexp(__half a) { return __half(__builtin_expf((float)a)); }
static inline __half hlog(__half a) { return __half(__builtin_logf((float)a)); }
static inline __half __int2half_rn(int i) { return __half((float)i); }
static inline __half __uint2half_rn(unsigned i) { return __half((float)i); }
static inline __half __short2half_rn(short i) { return __half((float)i); }
static inline int __half2int_rz(__half h) { return (int)(float)h; }
static inline int __half2int_rn(__half h) { return (int)__builtin_nearbyintf((float)h); }
static inline short __half_as_short(__half h) { return (short)__builtin_bit_cast(unsigned short, h.v); }
static inline unsigned short __half_as_ushort(__half h) { return __builtin_bit_cast(unsigned short, h.v); }
static inline __half __short_as_half(short i)
{
	__half h;
	h.v = __builtin_bit_cast(_Float16, i);
	return h;
}
static inline __half __ushort_as_half(unsigned short i)
{
	__half h;
	h.v = __builtin_bit_cast(_Float16, i);
	return h;
}

#ifdef __CUDACC__	/* float2 and atomicCAS are cuemu_device.h's, which a .cu file has */
/* Half-precision atomic additions, as a compare-and-swap loop on the bits. */
static inline __half atomicAdd(__half *p, __half v)
{
	unsigned short *w = (unsigned short *)(void *)p, seen = *w, old;
	do {
		old = seen;
		__half sum = __hadd(__ushort_as_half(old), v);
		seen = atomicCAS(w, old, __half_as_ushort(sum));
	} while (seen != old);
	return __ushort_as_half(old);
}
static inline __half2 atomicAdd(__half2 *p, __half2 v)
{
	return __half2{ atomicAdd(&p->x, v.x), atomicAdd(&p->y, v.y) };
}
static inline float2 __half22float2(__half2 h) { return float2{ (float)h.x, (float)h.y }; }
static inline __half2 __float22half2_rn(float2 f) { return __half2{ __half(f.x), __half(f.y) }; }
#endif

#endif
