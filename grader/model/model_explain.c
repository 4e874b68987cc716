/* What limits a predicted kernel, in a student's words (see model_explain.h). */
#include "model_explain.h"

#include <stdio.h>

void model_explain(const struct model_prediction *p, const struct model_launch *l, char *buf, size_t len)
{
	const struct model_terms *t = &p->worst_terms;
	const struct model_launch *w = &l[p->worst];
	double share = p->time_ns > 0 ? 100 * t->time_ns / p->time_ns : 0;
	char where[160] = "";
	if (p->launches > 1)
		snprintf(where, sizeof where, " (%s, the longest of %d launches, %.0f%% of the time)",
			 w->kernel, p->launches, share);
	switch (p->bound) {
	case BOUND_STORE_SECTORS:
		snprintf(buf, len, "stores touch %.0f sectors per request, %.0fx the bytes a coalesced store "
			 "needs%s", t->store_sectors_per_request,
			 t->store_sector_use > 0 ? 1 / t->store_sector_use : 0, where);
		break;
	case BOUND_LOAD_LINES:
		snprintf(buf, len, "loads touch %.0f cache lines per request where a coalesced load touches "
			 "one%s", w->load_requests > 0 ? w->load_lines / w->load_requests : 0, where);
		break;
	case BOUND_SHARED: {
		double per_request = w->shared_requests > 0 ? w->shared_wavefronts / w->shared_requests : 0;
		/* Conflict-free requests can still outnumber what DRAM costs: then
		 * the count of requests, not their conflicts, is what to cut. */
		if (per_request > 1.05)
			snprintf(buf, len, "shared-memory requests need %.2f wavefronts each on average where "
				 "a conflict-free one needs 1 (bank conflicts): they take longer than the DRAM "
				 "traffic%s", per_request, where);
		else
			snprintf(buf, len, "shared-memory requests (conflict-free, %.0f of them) take longer "
				 "than the DRAM traffic: fewer shared accesses per element, not fewer conflicts, "
				 "would help%s", w->shared_requests, where);
		break;
	}
	case BOUND_BLOCKS:
		snprintf(buf, len, "%.0f blocks of %.0f threads: starting them takes longer than their work%s",
			 w->grid_blocks, w->block_threads, where);
		break;
	case BOUND_LATENCY:
		if (w->intervals / (w->sampled_blocks > 0 ? w->sampled_blocks : 1) > 4)
			snprintf(buf, len, "each block waits through %.0f barriers, and %.0f warps per SM cannot "
				 "hide that wait%s", w->intervals / w->sampled_blocks - 1, t->warps_per_sm, where);
		else
			snprintf(buf, len, "%.0f warps per SM with %.1f loads in flight each cannot hide the "
				 "memory latency (Little's law: more warps or more independent loads per thread)%s",
				 t->warps_per_sm, t->loads_in_flight, where);
		break;
	case BOUND_LAUNCH:
		snprintf(buf, len, "%d launches: their overhead outweighs their work", p->launches);
		break;
	default:
		if (p->dram_bytes > 1.3 * p->min_bytes)
			snprintf(buf, len, "it moves %.2f GB through DRAM, %.1fx the %.2f GB it must move", p->dram_bytes / 1e9, p->dram_bytes / p->min_bytes, p->min_bytes / 1e9);
		else
			snprintf(buf, len, "limited by DRAM bandwidth, moving %.2f GB (the least it can move is "
				 "%.2f GB)", p->dram_bytes / 1e9, p->min_bytes / 1e9);
		break;
	}
}
