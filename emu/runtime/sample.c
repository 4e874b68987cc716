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
 * The grid's last block is not drawn when its stratum has others: a grid of
 * ceil(n / per_block) blocks leaves that one block partial or idle, and the
 * model counts each traced block for a whole stratum. Drawn, it made lab 4's
 * 257-block grid (the last idle) count a quarter of its traffic as missing
 * one draw in 64. Left out, the estimate is over by at most that one block's
 * shortfall: 1/G of the launch.
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

/* The traced block of stratum j of a grid of g blocks cut into k strata:
 * stratum j holds blocks [ceil(j g / k), ceil((j + 1) g / k)). */
static uint64_t pick(uint64_t j, uint64_t g, uint64_t k)
{
	uint64_t lo = (uint64_t)(((unsigned __int128)j * g + k - 1) / k);
	uint64_t hi = (uint64_t)(((unsigned __int128)(j + 1) * g + k - 1) / k);
	if (j == 0 || hi <= lo)
		return lo;
	if (hi == g && hi - lo >= 2)
		hi--;
	return lo + mix(rt.sample_seed ^ mix(j ^ (g << 20))) % (hi - lo);
}

/* Blocks run in order, so the launch's next traced block is all there is to
 * remember: one comparison per block, even for a grid of a million. */
static struct {
	const struct launch_rec *rec;
	uint64_t j, next;
} cursor;

int sample_block_traced(const struct launch *L)
{
	uint64_t g = (uint64_t)L->grid.x * L->grid.y * L->grid.z, b = L->block_linear;
	if (!L->rec)
		return 0;
	if (rt.trace_blocks < 0 || g <= (uint64_t)rt.trace_blocks)
		return 1;
	uint64_t k = (uint64_t)rt.trace_blocks;
	if (k == 0)
		return 0;
	if (cursor.rec != L->rec || b == 0) {
		cursor.rec = L->rec;
		cursor.j = 0;
		cursor.next = pick(0, g, k);
	}
	if (b != cursor.next)
		return 0;
	cursor.j++;
	cursor.next = cursor.j < k ? pick(cursor.j, g, k) : UINT64_MAX;
	if (rt.skip_untraced && L->traced_blocks > 0 && perf_requests(metrics_perf(L->rec)) > PREDICT_BUDGET)
		return 0;
	return 1;
}
