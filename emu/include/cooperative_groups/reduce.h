/*
 * cg::reduce and its operators for the CPU emulator (cooperative_groups.h):
 * a butterfly of shfl_xor over a tile, and for a coalesced group a sum in
 * rank order; every thread of the group gets the result.
 */
#pragma once

#include "../cooperative_groups.h"

#define CUEMU_CG inline __attribute__((always_inline))	/* as cooperative_groups.h */

namespace cooperative_groups {

template <class T> struct plus { CUEMU_CG T operator()(T a, T b) const { return a + b; } };
template <class T> struct less { CUEMU_CG T operator()(T a, T b) const { return b < a ? b : a; } };
template <class T> struct greater { CUEMU_CG T operator()(T a, T b) const { return a < b ? b : a; } };
template <class T> struct bit_and { CUEMU_CG T operator()(T a, T b) const { return a & b; } };
template <class T> struct bit_or { CUEMU_CG T operator()(T a, T b) const { return a | b; } };
template <class T> struct bit_xor { CUEMU_CG T operator()(T a, T b) const { return a ^ b; } };

template <unsigned N, class T, class Op> CUEMU_CG T reduce(const thread_block_tile<N> &g, T v, Op op)
{
	for (unsigned o = N / 2; o > 0; o /= 2)
		v = op(v, g.shfl_xor(v, (int)o));
	return v;
}

template <class T, class Op> CUEMU_CG T reduce(const coalesced_group &g, T v, Op op)
{
	T acc = g.shfl(v, 0);
	for (unsigned r = 1; r < g.size(); r++)
		acc = op(acc, g.shfl(v, r));
	return acc;
}

}	/* namespace cooperative_groups */

#undef CUEMU_CG
