/*
 * The requests of traced blocks. When a warp issues, the lanes parked at
 * one call site are one request: this file measures it (sectors for global
 * memory, bank wavefronts for shared), hands the figures to metrics.c and
 * each lane's access to the race detector.
 *
 *   sectors     the distinct 32-byte aligned segments the lanes touch
 *   wavefronts  the most distinct 4-byte words that fall in one of the 32
 *               banks (lanes reading one word share it: a broadcast)
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

static uint64_t sectors(struct thr **lanes, int n)
{
	uintptr_t seg[MAX_UNITS];
	return (uint64_t)units(lanes, n, 5, seg);
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
	uint64_t units = space == SP_GLOBAL ? sectors(lanes, n) : wavefronts(lanes, n);
	metrics_request(r, t0->site, t0->kind, space, units, lanes, n, 1u << (t0->id / WARP % 32));
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
	if (rt.first_traced)
		metrics_interval_end(rt.launch->rec);
}
