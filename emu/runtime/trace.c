/*
 * The requests of traced blocks. When a warp issues, the lanes parked at
 * one call site are one request: this file measures it (sectors for global
 * memory, bank wavefronts for shared), hands the figures to metrics.c and
 * each lane's access to the race detector.
 *
 *   sectors     the distinct 32-byte aligned segments the lanes touch
 *   wavefronts  the most distinct 4-byte words that fall in one of the 32
 *               banks (lanes reading one word share it: a broadcast)
 *
 * The same figures, with the sectors themselves, go to perf.c for the
 * performance model.
 */
#include "internal.h"

#define MAX_UNITS 512

/* Sorts v[0..n) and drops repeats; returns the count left. The lanes'
 * addresses mostly rise with the lane, so insertion sort runs in about n. */
static int sort_unique(uintptr_t *v, int n)
{
	for (int i = 1; i < n; i++) {
		uintptr_t x = v[i];
		int j = i;
		for (; j > 0 && v[j - 1] > x; j--)
			v[j] = v[j - 1];
		v[j] = x;
	}
	int m = 0;
	for (int i = 0; i < n; i++)
		if (m == 0 || v[m - 1] != v[i])
			v[m++] = v[i];
	return m;
}

/* The distinct units (1 << shift bytes) the lanes touch, into u. */
static int units(struct thr **lanes, int n, int shift, uintptr_t *u)
{
	int m = 0;
	for (int i = 0; i < n; i++) {
		uintptr_t a = lanes[i]->addr, last = (a + lanes[i]->size - 1) >> shift;
		for (uintptr_t x = a >> shift; x <= last && m < MAX_UNITS; x++)
			u[m++] = x;
	}
	return sort_unique(u, m);
}

static uint64_t wavefronts(struct thr **lanes, int n)
{
	uintptr_t word[MAX_UNITS];
	int m = units(lanes, n, 2, word), per_bank[32] = { 0 }, most = 0;
	for (int i = 0; i < m; i++)
		if (++per_bank[word[i] & 31] > most)
			most = per_bank[word[i] & 31];
	return (uint64_t)most;
}

static void issue(struct thr **lanes, int n, int space)
{
	struct launch_rec *r = rt.launch->rec;
	struct thr *t0 = lanes[0];
	uint64_t count;
	if (space == SP_GLOBAL) {
		uintptr_t seg[MAX_UNITS];
		int m = units(lanes, n, 5, seg);
		uint64_t bytes = 0;
		for (int i = 0; i < n; i++)
			bytes += lanes[i]->size;
		perf_global(metrics_perf(r), t0->kind, t0->id / WARP, seg, m, bytes);
		count = (uint64_t)m;
	} else {
		uintptr_t lo = UINTPTR_MAX, hi = 0;
		for (int i = 0; i < n; i++) {
			lo = lanes[i]->addr < lo ? lanes[i]->addr : lo;
			hi = lanes[i]->addr + lanes[i]->size > hi ? lanes[i]->addr + lanes[i]->size : hi;
		}
		count = wavefronts(lanes, n);
		perf_shared(metrics_perf(r), count, lo, hi);
	}
	metrics_request(r, t0->site, t0->kind, space, count, lanes, n, 1u << (t0->id / WARP % 32));
	work_request(lanes, n);
	if (rt.skip_untraced)
		return;	/* a prediction run: the blocks between the sampled ones never ran */
	for (int i = 0; i < n; i++)
		race_check(lanes[i], lanes[i]->addr, lanes[i]->size, lanes[i]->kind, space, lanes[i]->site);
}

/* One instruction whose lanes may point into different spaces (a generic
 * pointer): one request per space, as the hardware splits it. */
void trace_request(struct thr **lanes, int n)
{
	struct thr *part[WARP];
	for (int space = SP_GLOBAL; space <= SP_SHARED; space++) {
		int m = 0;
		for (int i = 0; i < n; i++)
			if (lanes[i]->space == space)
				part[m++] = lanes[i];
		if (m)
			issue(part, m, space);
	}
}

void trace_interval_end(void)
{
	perf_interval_end(metrics_perf(rt.launch->rec));
	work_interval_end();
	if (rt.first_traced)
		metrics_interval_end(rt.launch->rec);
}
