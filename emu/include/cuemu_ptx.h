/*
 * What the rewriter's translation of inline PTX calls (emu/rewrite/ptx.c):
 * the special registers, the bit-field and logic instructions, a register
 * move that keeps the bits, and the vector of a vector load or store.
 * Loads, stores, shuffles and barriers are no calls of this header: the
 * rewriter writes them as the C++ access or the intrinsic in the student's
 * function, so that the access is traced at the student's line and the
 * collective has the student's call site. Part of cuemu_device.h.
 */
#pragma once

#ifndef CUEMU_PURE
#error "cuemu_ptx.h is included by cuemu_device.h, not on its own"
#endif

/* %laneid, %warpid: from the thread's linear index in its block. */
CUEMU_PURE unsigned int cuemu_ptx_tid_(void)
{
	return (threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x;
}
CUEMU_PURE unsigned int cuemu_ptx_laneid_(void) { return cuemu_ptx_tid_() & 31u; }
CUEMU_PURE unsigned int cuemu_ptx_warpid_(void) { return cuemu_ptx_tid_() >> 5; }
/* Blocks run one at a time on one emulated SM. */
CUEMU_PURE unsigned int cuemu_ptx_smid_(void) { return 0; }
CUEMU_PURE unsigned int cuemu_ptx_nsmid_(void) { return 1; }
/* The warps an SM of compute capability 9.0 holds. */
CUEMU_PURE unsigned int cuemu_ptx_nwarpid_(void) { return 64; }
CUEMU_PURE unsigned int cuemu_ptx_lanemask_le_(void)
{
	return (unsigned int)((2ull << cuemu_ptx_laneid_()) - 1);
}
CUEMU_PURE unsigned int cuemu_ptx_lanemask_lt_(void) { return (1u << cuemu_ptx_laneid_()) - 1; }
CUEMU_PURE unsigned int cuemu_ptx_lanemask_eq_(void) { return 1u << cuemu_ptx_laneid_(); }
CUEMU_PURE unsigned int cuemu_ptx_lanemask_gt_(void) { return ~cuemu_ptx_lanemask_le_(); }
CUEMU_PURE unsigned int cuemu_ptx_lanemask_ge_(void) { return ~cuemu_ptx_lanemask_lt_(); }

/* A result as its output operand's type: the bits where a .b move crosses
 * between integer and float registers, the value otherwise. The caller
 * assigns it (in the student's function: an output may be memory). */
template <class D, class S> CUEMU_PURE D cuemu_ptx_as_(S s)
{
	if constexpr (sizeof(D) == sizeof(S) &&
		      std::is_floating_point<D>::value != std::is_floating_point<S>::value) {
		D d;
		__builtin_memcpy(&d, &s, sizeof d);
		return d;
	} else {
		return static_cast<D>(s);
	}
}

/* bfe, as PTX defines it: bit i of the result is bit pos + i of a for
 * i < len (and pos + i inside a), else the field's sign bit for a signed
 * type (0 for an unsigned one); pos and len are their low 8 bits. */
template <class T> CUEMU_PURE T cuemu_ptx_bfe_(T a, unsigned int pos, unsigned int len)
{
	constexpr unsigned int bits = sizeof(T) * 8;
	typedef typename std::make_unsigned<T>::type U;
	U u = (U)a, r = 0;
	pos &= 0xff;
	len &= 0xff;
	unsigned int msb = pos + len - 1 < bits - 1 ? pos + len - 1 : bits - 1;
	U sbit = std::is_signed<T>::value && len ? (u >> msb) & 1 : 0;
	for (unsigned int i = 0; i < bits; i++)
		r |= (i < len && pos + i < bits ? (u >> (pos + i)) & 1 : sbit) << i;
	return (T)r;
}

/* bfi: the low len bits of a into b from pos. */
template <class T> CUEMU_PURE T cuemu_ptx_bfi_(T a, T b, unsigned int pos, unsigned int len)
{
	constexpr unsigned int bits = sizeof(T) * 8;
	pos &= 0xff;
	len &= 0xff;
	if (len == 0 || pos >= bits)
		return b;
	if (len > bits - pos)
		len = bits - pos;
	T mask = len >= bits ? (T)~(T)0 : (T)((((T)1 << len) - 1) << pos);
	return (T)((b & ~mask) | (((T)(a << pos)) & mask));
}

/* lop3: any function of three inputs, by its truth table (a: 0xf0, b: 0xcc, c: 0xaa). */
CUEMU_PURE unsigned int cuemu_ptx_lop3_(unsigned int a, unsigned int b, unsigned int c, unsigned int lut)
{
	unsigned int r = 0;
	for (unsigned int i = 0; i < 8; i++)
		if (lut >> i & 1)
			r |= ((i & 4) ? a : ~a) & ((i & 2) ? b : ~b) & ((i & 1) ? c : ~c);
	return r;
}

/* shfl.sync's predicate output, as PTX defines it: whether the source lane
 * (of mode 0 up, 1 down, 2 bfly, 3 idx) lies inside the lane's segment. */
CUEMU_PURE unsigned int cuemu_ptx_shfl_in_range_(int mode, unsigned int b, unsigned int c)
{
	int lane = (int)cuemu_ptx_laneid_(), seg = (int)((c >> 8) & 31);
	int max_lane = (lane & seg) | (int)(c & 31), min_lane = lane & seg;
	switch (mode) {
	case 0:
		return lane - (int)b >= max_lane;
	case 1:
		return lane + (int)b <= max_lane;
	case 2:
		return (lane ^ (int)b) <= max_lane;
	default:
		return (min_lane | ((int)b & ~seg & 31)) <= max_lane;
	}
}

/* The N elements of a vector load or store, moved as one access. */
template <class T, int N> struct alignas(sizeof(T) * N) cuemu_ptx_vec_ {
	T v[N];
};
