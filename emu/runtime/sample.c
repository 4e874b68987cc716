/*
 * Which blocks of a launch run traced (in warp lockstep, feeding the
 * metrics): with k traced blocks per launch and a grid of G blocks, the grid
 * is cut into k equal strata of consecutive blocks and one block of each is
 * traced: block 0 for the first stratum (so that the per-block figures of
 * the first traced block, which the analysis reads, are those of block 0),
 * a seeded choice in each of the others. A sample spread over the grid sees
 * its middle and its tail, not only its first few blocks; the same seed picks
 * the same blocks.
 *
 * In a prediction run (the untraced blocks do not run) a launch whose traced
 * blocks have already issued PREDICT_BUDGET requests traces no more: its
 * blocks are long loops over the data (a grid-stride kernel), the figures of
 * one are those of the others, and each costs a fraction of a second.
 */
#include "internal.h"

#define PREDICT_BUDGET 20000

static uint64_t mix(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ull;
	return x ^ (x >> 33);
}

int sample_block_traced(const struct launch *L)
{
	uint64_t g = (uint64_t)L->grid.x * L->grid.y * L->grid.z, b = L->block_linear;
	if (!L->rec)
		return 0;
	if (rt.skip_untraced && L->traced_blocks > 0 &&
	    perf_requests(metrics_perf(L->rec)) > PREDICT_BUDGET)
		return 0;
	if (rt.trace_blocks < 0 || g <= (uint64_t)rt.trace_blocks)
		return 1;
	uint64_t k = (uint64_t)rt.trace_blocks;
	if (k == 0)
		return 0;
	/* Stratum j holds blocks [ceil(j g / k), ceil((j + 1) g / k)). */
	unsigned __int128 jb = (unsigned __int128)b * k;
	uint64_t j = (uint64_t)(jb / g);
	uint64_t lo = (uint64_t)(((unsigned __int128)j * g + k - 1) / k);
	uint64_t hi = (uint64_t)(((unsigned __int128)(j + 1) * g + k - 1) / k);
	if (b < lo) {	/* b sits in the stratum before (rounding) */
		j--;
		hi = lo;
		lo = (uint64_t)(((unsigned __int128)j * g + k - 1) / k);
	}
	uint64_t pick = j == 0 ? 0 : lo + mix(rt.sample_seed ^ mix(j ^ (g << 20))) % (hi - lo);
	return b == pick;
}
