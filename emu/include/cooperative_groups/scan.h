/*
 * cg::inclusive_scan and cg::exclusive_scan over a tile for the CPU
 * emulator (cooperative_groups.h): Hillis-Steele steps of shfl_up.
 */
#pragma once

#include "reduce.h"

#define CUEMU_CG inline __attribute__((always_inline))	/* as cooperative_groups.h */

namespace cooperative_groups {

template <unsigned N, class T, class Op = plus<T>>
CUEMU_CG T inclusive_scan(const thread_block_tile<N> &g, T v, Op op = Op())
{
	for (unsigned d = 1; d < N; d *= 2) {
		T up = g.shfl_up(v, d);
		if (g.thread_rank() >= d)
			v = op(v, up);
	}
	return v;
}

template <unsigned N, class T, class Op = plus<T>>
CUEMU_CG T exclusive_scan(const thread_block_tile<N> &g, T v, Op op = Op())
{
	T in = inclusive_scan(g, v, op);
	T prev = g.shfl_up(in, 1);
	return g.thread_rank() == 0 ? T() : prev;
}

}	/* namespace cooperative_groups */

#undef CUEMU_CG
