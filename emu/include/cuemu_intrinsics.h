/* The emulator's pure device builtins: integer and float intrinsics, min/max, vector types. */
#pragma once

/* Part of cuemu_device.h, which includes it after the helpers it uses
 * (CUEMU_PURE, cuemu_bits_, cuemu_from_bits_). */
#ifndef CUEMU_PURE
#error "cuemu_intrinsics.h is included by cuemu_device.h, not on its own"
#endif

/* ---- integer and float intrinsics --------------------------------------------------- */
CUEMU_PURE int __popc(unsigned int x) { return __builtin_popcount(x); }
CUEMU_PURE int __popcll(unsigned long long x) { return __builtin_popcountll(x); }
CUEMU_PURE int __clz(int x) { return x == 0 ? 32 : __builtin_clz((unsigned)x); }
CUEMU_PURE int __clzll(long long x) { return x == 0 ? 64 : __builtin_clzll((unsigned long long)x); }
CUEMU_PURE int __ffs(int x) { return __builtin_ffs(x); }
CUEMU_PURE int __ffsll(long long x) { return __builtin_ffsll(x); }
CUEMU_PURE unsigned int __brev(unsigned int x)
{
	x = ((x >> 1) & 0x55555555u) | ((x & 0x55555555u) << 1);
	x = ((x >> 2) & 0x33333333u) | ((x & 0x33333333u) << 2);
	x = ((x >> 4) & 0x0f0f0f0fu) | ((x & 0x0f0f0f0fu) << 4);
	return __builtin_bswap32(x);
}
CUEMU_PURE unsigned long long __brevll(unsigned long long x)
{
	return ((unsigned long long)__brev((unsigned)x) << 32) | __brev((unsigned)(x >> 32));
}
CUEMU_PURE int __mul24(int a, int b) { return (int)(((long long)(a << 8 >> 8)) * (b << 8 >> 8)); }
CUEMU_PURE unsigned int __umul24(unsigned int a, unsigned int b) { return (a & 0xffffffu) * (b & 0xffffffu); }
CUEMU_PURE int __mulhi(int a, int b) { return (int)(((long long)a * b) >> 32); }
CUEMU_PURE unsigned int __umulhi(unsigned int a, unsigned int b)
{
	return (unsigned)(((unsigned long long)a * b) >> 32);
}
CUEMU_PURE long long __mul64hi(long long a, long long b) { return (long long)(((__int128)a * b) >> 64); }
CUEMU_PURE unsigned long long __umul64hi(unsigned long long a, unsigned long long b)
{
	return (unsigned long long)(((unsigned __int128)a * b) >> 64);
}
CUEMU_PURE unsigned int __sad(int x, int y, unsigned int z) { return z + (unsigned)(x > y ? x - y : y - x); }
CUEMU_PURE unsigned int __usad(unsigned x, unsigned y, unsigned z) { return z + (x > y ? x - y : y - x); }
CUEMU_PURE int __hadd(int a, int b) { return (int)(((long long)a + b) >> 1); }
CUEMU_PURE int __rhadd(int a, int b) { return (int)(((long long)a + b + 1) >> 1); }
CUEMU_PURE unsigned __uhadd(unsigned a, unsigned b) { return (unsigned)(((unsigned long long)a + b) >> 1); }
CUEMU_PURE unsigned __urhadd(unsigned a, unsigned b)
{
	return (unsigned)(((unsigned long long)a + b + 1) >> 1);
}
CUEMU_PURE unsigned int __byte_perm(unsigned int x, unsigned int y, unsigned int s)
{
	unsigned long long v = ((unsigned long long)y << 32) | x;
	unsigned int r = 0;
	for (int i = 0; i < 4; i++)
		r |= (unsigned)((v >> (((s >> (4 * i)) & 7) * 8)) & 0xff) << (8 * i);
	return r;
}
CUEMU_PURE unsigned int __funnelshift_l(unsigned lo, unsigned hi, unsigned s)
{
	unsigned long long v = ((unsigned long long)hi << 32) | lo;
	return (unsigned)((v << (s & 31)) >> 32);
}
CUEMU_PURE unsigned int __funnelshift_r(unsigned lo, unsigned hi, unsigned s)
{
	unsigned long long v = ((unsigned long long)hi << 32) | lo;
	return (unsigned)(v >> (s & 31));
}
CUEMU_PURE unsigned int __funnelshift_lc(unsigned lo, unsigned hi, unsigned s)
{
	unsigned long long v = ((unsigned long long)hi << 32) | lo;
	return (unsigned)((v << (s > 32 ? 32 : s)) >> 32);
}
CUEMU_PURE unsigned int __funnelshift_rc(unsigned lo, unsigned hi, unsigned s)
{
	unsigned long long v = ((unsigned long long)hi << 32) | lo;
	return (unsigned)(v >> (s > 32 ? 32 : s));
}
CUEMU_PURE float __int_as_float(int x) { return cuemu_from_bits_<float>((unsigned)x); }
/* The offset-th set bit of mask counted from bit base, upward for a
 * positive offset, downward for a negative one; offset 0: base itself if
 * set. 0xffffffff where there is none (PTX's fns). */
CUEMU_PURE unsigned __fns(unsigned mask, unsigned base, int offset)
{
	int pos = (int)base, count = offset < 0 ? -offset - 1 : offset - 1, inc = offset < 0 ? -1 : 1;
	if (offset == 0)
		return base < 32 && (mask >> base & 1) ? base : 0xffffffffu;
	for (; pos >= 0 && pos < 32; pos += inc)
		if (mask >> pos & 1) {
			if (count == 0)
				return (unsigned)pos;
			count--;
		}
	return 0xffffffffu;
}
CUEMU_PURE int __float_as_int(float x) { return (int)cuemu_bits_(x); }
CUEMU_PURE float __uint_as_float(unsigned x) { return cuemu_from_bits_<float>(x); }
CUEMU_PURE unsigned __float_as_uint(float x) { return (unsigned)cuemu_bits_(x); }
CUEMU_PURE double __longlong_as_double(long long x) { return cuemu_from_bits_<double>((unsigned long long)x); }
CUEMU_PURE long long __double_as_longlong(double x) { return (long long)cuemu_bits_(x); }
CUEMU_PURE int __float2int_rn(float x) { return (int)nearbyintf(x); }
CUEMU_PURE int __float2int_rz(float x) { return (int)x; }
CUEMU_PURE int __float2int_rd(float x) { return (int)floorf(x); }
CUEMU_PURE int __float2int_ru(float x) { return (int)ceilf(x); }
CUEMU_PURE unsigned __float2uint_rn(float x) { return (unsigned)nearbyintf(x); }
CUEMU_PURE unsigned __float2uint_rz(float x) { return (unsigned)x; }
CUEMU_PURE float __int2float_rn(int x) { return (float)x; }
CUEMU_PURE float __uint2float_rn(unsigned x) { return (float)x; }
CUEMU_PURE float __double2float_rn(double x) { return (float)x; }
CUEMU_PURE int __double2int_rn(double x) { return (int)nearbyint(x); }
CUEMU_PURE int __double2int_rz(double x) { return (int)x; }
CUEMU_PURE unsigned __double2uint_rn(double x) { return (unsigned)nearbyint(x); }
CUEMU_PURE long long __double2ll_rn(double x) { return (long long)nearbyint(x); }
CUEMU_PURE double __int2double_rn(int x) { return (double)x; }
CUEMU_PURE double __uint2double_rn(unsigned x) { return (double)x; }
CUEMU_PURE double __ll2double_rn(long long x) { return (double)x; }
/* Four byte products summed into c: signed and unsigned bytes. */
CUEMU_PURE int __dp4a(int a, int b, int c)
{
	for (int k = 0; k < 32; k += 8)
		c += (int)(signed char)(a >> k) * (int)(signed char)(b >> k);
	return c;
}
CUEMU_PURE unsigned __dp4a(unsigned a, unsigned b, unsigned c)
{
	for (int k = 0; k < 32; k += 8)
		c += ((a >> k) & 0xffu) * ((b >> k) & 0xffu);
	return c;
}
CUEMU_PURE float __fdividef(float a, float b) { return a / b; }
CUEMU_PURE float __fdiv_rn(float a, float b) { return a / b; }
CUEMU_PURE float __fadd_rn(float a, float b) { return a + b; }
CUEMU_PURE float __fsub_rn(float a, float b) { return a - b; }
CUEMU_PURE float __fmul_rn(float a, float b) { return a * b; }
CUEMU_PURE float __fmaf_rn(float a, float b, float c) { return fmaf(a, b, c); }
CUEMU_PURE double __dadd_rn(double a, double b) { return a + b; }
CUEMU_PURE double __dmul_rn(double a, double b) { return a * b; }
CUEMU_PURE double __fma_rn(double a, double b, double c) { return fma(a, b, c); }
CUEMU_PURE float __frcp_rn(float x) { return 1.0f / x; }
CUEMU_PURE float __fsqrt_rn(float x) { return sqrtf(x); }
CUEMU_PURE float __frsqrt_rn(float x) { return 1.0f / sqrtf(x); }
CUEMU_PURE float rsqrtf(float x) { return 1.0f / sqrtf(x); }
CUEMU_PURE double rsqrt(double x) { return 1.0 / sqrt(x); }
CUEMU_PURE float __saturatef(float x) { return x < 0.0f ? 0.0f : (x > 1.0f ? 1.0f : x); }
/* __expf and the other fast math intrinsics: glibc declares these names
 * (without defining them), so the rewriter renames them (rewrite/rename.c). */

/* ---- min and max, as CUDA overloads them --------------------------------------------- */
#define CUEMU_MINMAX(T)                                              \
	CUEMU_PURE T min(T a, T b) { return a < b ? a : b; }         \
	CUEMU_PURE T max(T a, T b) { return a > b ? a : b; }
CUEMU_MINMAX(int)
CUEMU_MINMAX(unsigned int)
CUEMU_MINMAX(long)
CUEMU_MINMAX(unsigned long)
CUEMU_MINMAX(long long)
CUEMU_MINMAX(unsigned long long)
CUEMU_MINMAX(float)
CUEMU_MINMAX(double)
#undef CUEMU_MINMAX
CUEMU_PURE unsigned int min(int a, unsigned int b) { return min((unsigned)a, b); }
CUEMU_PURE unsigned int min(unsigned int a, int b) { return min(a, (unsigned)b); }
CUEMU_PURE unsigned int max(int a, unsigned int b) { return max((unsigned)a, b); }
CUEMU_PURE unsigned int max(unsigned int a, int b) { return max(a, (unsigned)b); }
CUEMU_PURE float min(float a, double b) { return min(a, (float)b); }
CUEMU_PURE float max(float a, double b) { return max(a, (float)b); }
CUEMU_PURE double min(double a, float b) { return min(a, (double)b); }
CUEMU_PURE double max(double a, float b) { return max(a, (double)b); }
CUEMU_PURE unsigned int umin(unsigned int a, unsigned int b) { return a < b ? a : b; }
CUEMU_PURE unsigned int umax(unsigned int a, unsigned int b) { return a > b ? a : b; }
CUEMU_PURE long long llmin(long long a, long long b) { return a < b ? a : b; }
CUEMU_PURE long long llmax(long long a, long long b) { return a > b ? a : b; }
CUEMU_PURE unsigned long long ullmin(unsigned long long a, unsigned long long b) { return a < b ? a : b; }
CUEMU_PURE unsigned long long ullmax(unsigned long long a, unsigned long long b) { return a > b ? a : b; }

/* ---- vector types ------------------------------------------------------------------- */
#define CUEMU_VEC2(T, N, A)                                                     \
	struct __attribute__((aligned(A))) N##2 { T x, y; };                   \
	CUEMU_PURE N##2 make_##N##2(T x, T y) { return N##2{x, y}; }
#define CUEMU_VEC3(T, N)                                                        \
	struct N##3 { T x, y, z; };                                             \
	CUEMU_PURE N##3 make_##N##3(T x, T y, T z) { return N##3{x, y, z}; }
#define CUEMU_VEC4(T, N, A)                                                     \
	struct __attribute__((aligned(A))) N##4 { T x, y, z, w; };             \
	CUEMU_PURE N##4 make_##N##4(T x, T y, T z, T w) { return N##4{x, y, z, w}; }
CUEMU_VEC2(int, int, 8)
CUEMU_VEC3(int, int)
CUEMU_VEC4(int, int, 16)
CUEMU_VEC2(unsigned int, uint, 8)
CUEMU_VEC4(unsigned int, uint, 16)
CUEMU_VEC2(float, float, 8)
CUEMU_VEC3(float, float)
CUEMU_VEC4(float, float, 16)
CUEMU_VEC2(double, double, 16)
CUEMU_VEC2(long long, longlong, 16)
CUEMU_VEC2(unsigned long long, ulonglong, 16)
CUEMU_VEC2(unsigned char, uchar, 2)
CUEMU_VEC4(unsigned char, uchar, 4)
CUEMU_VEC2(signed char, char, 2)
CUEMU_VEC4(signed char, char, 4)
CUEMU_VEC2(short, short, 4)
CUEMU_VEC4(short, short, 8)
CUEMU_VEC2(unsigned short, ushort, 4)
CUEMU_VEC4(unsigned short, ushort, 8)
CUEMU_VEC3(double, double)
CUEMU_VEC4(double, double, 16)
CUEMU_VEC4(long long, longlong, 16)
CUEMU_VEC4(unsigned long long, ulonglong, 16)
/* The rest of CUDA's vector types: the one-element ones, the three-element
 * ones of every type (no alignment beyond the element's, as in CUDA) and
 * long/ulong (as wide as long long on a 64-bit host). */
#define CUEMU_VEC1(T, N)                                                        \
	struct N##1 { T x; };                                                   \
	CUEMU_PURE N##1 make_##N##1(T x) { return N##1{x}; }
CUEMU_VEC1(signed char, char)
CUEMU_VEC1(unsigned char, uchar)
CUEMU_VEC1(short, short)
CUEMU_VEC1(unsigned short, ushort)
CUEMU_VEC1(int, int)
CUEMU_VEC1(unsigned int, uint)
CUEMU_VEC1(long, long)
CUEMU_VEC1(unsigned long, ulong)
CUEMU_VEC1(long long, longlong)
CUEMU_VEC1(unsigned long long, ulonglong)
CUEMU_VEC1(float, float)
CUEMU_VEC1(double, double)
#undef CUEMU_VEC1
CUEMU_VEC3(signed char, char)
CUEMU_VEC3(unsigned char, uchar)
CUEMU_VEC3(short, short)
CUEMU_VEC3(unsigned short, ushort)
CUEMU_VEC2(long, long, 2 * sizeof(long))
CUEMU_VEC3(long, long)
CUEMU_VEC4(long, long, 16)
CUEMU_VEC2(unsigned long, ulong, 2 * sizeof(long))
CUEMU_VEC3(unsigned long, ulong)
CUEMU_VEC4(unsigned long, ulong, 16)
CUEMU_VEC3(long long, longlong)
CUEMU_VEC3(unsigned long long, ulonglong)
#undef CUEMU_VEC2
#undef CUEMU_VEC3
#undef CUEMU_VEC4
CUEMU_PURE uint3 make_uint3(unsigned x, unsigned y, unsigned z) { return uint3{x, y, z}; }
