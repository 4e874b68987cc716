/* The SIMD intrinsics of the CUDA Math API: two halfwords or four bytes of a
 * 32-bit word at once (__vadd2, __vabsdiffu4, __vcmpgts2...), and the DPX
 * ones of CUDA 12 (__vimax3_s32, __viaddmax_s16x2, __vibmax_u32...). */
#pragma once

/* Part of cuemu_device.h, through cuemu_intrinsics.h (CUEMU_PURE). */
#ifndef CUEMU_PURE
#error "cuemu_simd.h is included by cuemu_device.h, not on its own"
#endif

/*
 * Each is computed part by part in 64-bit integers, from NVIDIA's
 * documented per-part result, rather than with the bit tricks of the
 * toolkit's old software versions: the saturations, the signed rounded
 * average (half away from zero, as PTX's vavrg) and the wrapping of the
 * plain forms then read off the code. w is the part's width (8 or 16);
 * s whether the parts are signed.
 */
CUEMU_PURE unsigned cuemu_mask_(int w) { return w == 32 ? 0xffffffffu : (1u << w) - 1; }
CUEMU_PURE long long cuemu_part_(unsigned x, int w, int k, int s)
{
	unsigned long long u = (x >> (w * k)) & cuemu_mask_(w);
	return s && (u >> (w - 1)) ? (long long)u - (1ll << w) : (long long)u;
}
CUEMU_PURE long long cuemu_sat_(long long v, int w, int s)
{
	long long lo = s ? -(1ll << (w - 1)) : 0, hi = s ? (1ll << (w - 1)) - 1 : (1ll << w) - 1;
	return v < lo ? lo : v > hi ? hi : v;
}
CUEMU_PURE long long cuemu_abs_(long long v) { return v < 0 ? -v : v; }
/* The signed rounded average: (a + b) / 2 rounded half away from zero. */
CUEMU_PURE long long cuemu_avgs_(long long a, long long b)
{
	long long t = a + b;
	return t < 0 ? -((-t + 1) / 2) : (t + 1) / 2;
}

/* name2 on halfwords and name4 on bytes; a and b are the parts of x and y,
 * the result is cut to the part's width. */
#define CUEMU_SIMD_FN(name, s, expr)                                                           \
	CUEMU_PURE unsigned cuemu_##name##_(unsigned x, unsigned y, int w)                    \
	{                                                                                      \
		unsigned r = 0;                                                                \
		for (int k = 0; k < 32 / w; k++) {                                             \
			long long a = cuemu_part_(x, w, k, s), b = cuemu_part_(y, w, k, s);    \
			(void)b;                                                               \
			r |= ((unsigned)(unsigned long long)(expr) & cuemu_mask_(w)) << (w * k); \
		}                                                                              \
		return r;                                                                      \
	}
#define CUEMU_SIMD(name, s, expr)                                                              \
	CUEMU_SIMD_FN(name, s, expr)                                                           \
	CUEMU_PURE unsigned __##name##2(unsigned x, unsigned y) { return cuemu_##name##_(x, y, 16); } \
	CUEMU_PURE unsigned __##name##4(unsigned x, unsigned y) { return cuemu_##name##_(x, y, 8); }
CUEMU_SIMD(vadd, 0, a + b)
CUEMU_SIMD(vaddss, 1, cuemu_sat_(a + b, w, 1))
CUEMU_SIMD(vaddus, 0, cuemu_sat_(a + b, w, 0))
CUEMU_SIMD(vsub, 0, a - b)
CUEMU_SIMD(vsubss, 1, cuemu_sat_(a - b, w, 1))
CUEMU_SIMD(vsubus, 0, cuemu_sat_(a - b, w, 0))
CUEMU_SIMD(vabsdiffs, 1, cuemu_abs_(a - b))
CUEMU_SIMD(vabsdiffu, 0, cuemu_abs_(a - b))
CUEMU_SIMD(vavgs, 1, cuemu_avgs_(a, b))
CUEMU_SIMD(vavgu, 0, (a + b + 1) >> 1)
CUEMU_SIMD(vhaddu, 0, (a + b) >> 1)
CUEMU_SIMD(vmaxs, 1, a > b ? a : b)
CUEMU_SIMD(vmaxu, 0, a > b ? a : b)
CUEMU_SIMD(vmins, 1, a < b ? a : b)
CUEMU_SIMD(vminu, 0, a < b ? a : b)
/* __vcmp*: all ones where true; __vset*: 1 where true. */
CUEMU_SIMD(vcmpeq, 0, a == b ? -1 : 0)
CUEMU_SIMD(vcmpne, 0, a != b ? -1 : 0)
CUEMU_SIMD(vcmpges, 1, a >= b ? -1 : 0)
CUEMU_SIMD(vcmpgeu, 0, a >= b ? -1 : 0)
CUEMU_SIMD(vcmpgts, 1, a > b ? -1 : 0)
CUEMU_SIMD(vcmpgtu, 0, a > b ? -1 : 0)
CUEMU_SIMD(vcmples, 1, a <= b ? -1 : 0)
CUEMU_SIMD(vcmpleu, 0, a <= b ? -1 : 0)
CUEMU_SIMD(vcmplts, 1, a < b ? -1 : 0)
CUEMU_SIMD(vcmpltu, 0, a < b ? -1 : 0)
CUEMU_SIMD(vseteq, 0, a == b)
CUEMU_SIMD(vsetne, 0, a != b)
CUEMU_SIMD(vsetges, 1, a >= b)
CUEMU_SIMD(vsetgeu, 0, a >= b)
CUEMU_SIMD(vsetgts, 1, a > b)
CUEMU_SIMD(vsetgtu, 0, a > b)
CUEMU_SIMD(vsetles, 1, a <= b)
CUEMU_SIMD(vsetleu, 0, a <= b)
CUEMU_SIMD(vsetlts, 1, a < b)
CUEMU_SIMD(vsetltu, 0, a < b)
/* The one-operand forms: the second operand is ignored. */
CUEMU_SIMD_FN(vabs_, 1, cuemu_abs_(a))
CUEMU_SIMD_FN(vabsss_, 1, cuemu_sat_(cuemu_abs_(a), w, 1))
CUEMU_SIMD_FN(vneg_, 1, -a)
CUEMU_SIMD_FN(vnegss_, 1, cuemu_sat_(-a, w, 1))
#undef CUEMU_SIMD
#undef CUEMU_SIMD_FN
CUEMU_PURE unsigned __vabs2(unsigned x) { return cuemu_vabs__(x, 0, 16); }
CUEMU_PURE unsigned __vabs4(unsigned x) { return cuemu_vabs__(x, 0, 8); }
CUEMU_PURE unsigned __vabsss2(unsigned x) { return cuemu_vabsss__(x, 0, 16); }
CUEMU_PURE unsigned __vabsss4(unsigned x) { return cuemu_vabsss__(x, 0, 8); }
CUEMU_PURE unsigned __vneg2(unsigned x) { return cuemu_vneg__(x, 0, 16); }
CUEMU_PURE unsigned __vneg4(unsigned x) { return cuemu_vneg__(x, 0, 8); }
CUEMU_PURE unsigned __vnegss2(unsigned x) { return cuemu_vnegss__(x, 0, 16); }
CUEMU_PURE unsigned __vnegss4(unsigned x) { return cuemu_vnegss__(x, 0, 8); }

/* Sums of absolute differences: one number, the parts' |a - b| added. */
CUEMU_PURE unsigned cuemu_sad_(unsigned x, unsigned y, int w, int s)
{
	long long t = 0;
	for (int k = 0; k < 32 / w; k++)
		t += cuemu_abs_(cuemu_part_(x, w, k, s) - cuemu_part_(y, w, k, s));
	return (unsigned)t;
}
CUEMU_PURE unsigned __vsads2(unsigned x, unsigned y) { return cuemu_sad_(x, y, 16, 1); }
CUEMU_PURE unsigned __vsads4(unsigned x, unsigned y) { return cuemu_sad_(x, y, 8, 1); }
CUEMU_PURE unsigned __vsadu2(unsigned x, unsigned y) { return cuemu_sad_(x, y, 16, 0); }
CUEMU_PURE unsigned __vsadu4(unsigned x, unsigned y) { return cuemu_sad_(x, y, 8, 0); }

/* ---- DPX (CUDA 12): three-way min and max, add then min or max, ReLU -------------- */
/* op: 0 max3, 1 min3, 2 max(a + b, c), 3 min(a + b, c); the sum wraps in
 * the part's width (add.s16x2, add.s32); relu: the result is at least 0. */
CUEMU_PURE long long cuemu_dpx_part_(long long a, long long b, long long c, int op, int w, int s)
{
	if (op >= 2) {
		a = cuemu_part_((unsigned)(a + b), w, 0, s);
		b = a;
	}
	long long m = (op & 1) ? (a < b ? a : b) : (a > b ? a : b);
	return (op & 1) ? (m < c ? m : c) : (m > c ? m : c);
}
CUEMU_PURE unsigned cuemu_dpx_(unsigned x, unsigned y, unsigned z, int op, int w, int s, int relu)
{
	unsigned r = 0;
	for (int k = 0; k < 32 / w; k++) {
		long long v = cuemu_dpx_part_(cuemu_part_(x, w, k, s), cuemu_part_(y, w, k, s),
					      cuemu_part_(z, w, k, s), op, w, s);
		if (relu && v < 0)
			v = 0;
		r |= (unsigned)((unsigned long long)v & cuemu_mask_(w)) << (w * k);
	}
	return r;
}
#define CUEMU_DPX3(name, op)                                                                          \
	CUEMU_PURE int name##_s32(int a, int b, int c) { return (int)cuemu_dpx_(a, b, c, op, 32, 1, 0); } \
	CUEMU_PURE unsigned name##_u32(unsigned a, unsigned b, unsigned c) { return cuemu_dpx_(a, b, c, op, 32, 0, 0); } \
	CUEMU_PURE unsigned name##_s16x2(unsigned a, unsigned b, unsigned c) { return cuemu_dpx_(a, b, c, op, 16, 1, 0); } \
	CUEMU_PURE unsigned name##_u16x2(unsigned a, unsigned b, unsigned c) { return cuemu_dpx_(a, b, c, op, 16, 0, 0); } \
	CUEMU_PURE int name##_s32_relu(int a, int b, int c) { return (int)cuemu_dpx_(a, b, c, op, 32, 1, 1); } \
	CUEMU_PURE unsigned name##_s16x2_relu(unsigned a, unsigned b, unsigned c) { return cuemu_dpx_(a, b, c, op, 16, 1, 1); }
CUEMU_DPX3(__vimax3, 0)
CUEMU_DPX3(__vimin3, 1)
CUEMU_DPX3(__viaddmax, 2)
CUEMU_DPX3(__viaddmin, 3)
#undef CUEMU_DPX3
/* max(a, b, 0) and max(min(a, b), 0): the three-way forms with c = a. */
CUEMU_PURE int __vimax_s32_relu(int a, int b) { return (int)cuemu_dpx_(a, b, a, 0, 32, 1, 1); }
CUEMU_PURE unsigned __vimax_s16x2_relu(unsigned a, unsigned b) { return cuemu_dpx_(a, b, a, 0, 16, 1, 1); }
CUEMU_PURE int __vimin_s32_relu(int a, int b) { return (int)cuemu_dpx_(a, b, a, 1, 32, 1, 1); }
CUEMU_PURE unsigned __vimin_s16x2_relu(unsigned a, unsigned b) { return cuemu_dpx_(a, b, a, 1, 16, 1, 1); }

/* max or min, and whether a won (a >= b for max, a <= b for min), a part at a time. */
CUEMU_PURE unsigned cuemu_vib_(unsigned x, unsigned y, int w, int s, int min, bool *hi, bool *lo)
{
	unsigned r = 0;
	for (int k = 0; k < 32 / w; k++) {
		long long a = cuemu_part_(x, w, k, s), b = cuemu_part_(y, w, k, s);
		bool first = min ? a <= b : a >= b;
		r |= (unsigned)((unsigned long long)(first ? a : b) & cuemu_mask_(w)) << (w * k);
		*(k ? hi : lo) = first;
	}
	return r;
}
CUEMU_PURE int __vibmax_s32(int a, int b, bool *p) { return (int)cuemu_vib_(a, b, 32, 1, 0, p, p); }
CUEMU_PURE unsigned __vibmax_u32(unsigned a, unsigned b, bool *p) { return cuemu_vib_(a, b, 32, 0, 0, p, p); }
CUEMU_PURE int __vibmin_s32(int a, int b, bool *p) { return (int)cuemu_vib_(a, b, 32, 1, 1, p, p); }
CUEMU_PURE unsigned __vibmin_u32(unsigned a, unsigned b, bool *p) { return cuemu_vib_(a, b, 32, 0, 1, p, p); }
CUEMU_PURE unsigned __vibmax_s16x2(unsigned a, unsigned b, bool *hi, bool *lo) { return cuemu_vib_(a, b, 16, 1, 0, hi, lo); }
CUEMU_PURE unsigned __vibmax_u16x2(unsigned a, unsigned b, bool *hi, bool *lo) { return cuemu_vib_(a, b, 16, 0, 0, hi, lo); }
CUEMU_PURE unsigned __vibmin_s16x2(unsigned a, unsigned b, bool *hi, bool *lo) { return cuemu_vib_(a, b, 16, 1, 1, hi, lo); }
CUEMU_PURE unsigned __vibmin_u16x2(unsigned a, unsigned b, bool *hi, bool *lo) { return cuemu_vib_(a, b, 16, 0, 1, hi, lo); }
