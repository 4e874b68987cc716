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
 *
 * A wide access the compiler split is one request: g++ turns a float4 (or
 * int4, double2, a struct) copy into a 4-byte access per field, where the
 * GPU issues one 16-byte access a lane (LDG.128). A warp's global request
 * that takes up, lane by lane, where its previous request of the same line
 * and kind left off, within the lane's aligned 16 bytes, widens that
 * request (metrics_widen) instead of counting one of its own: the sectors
 * are the same, the bytes more. Anything else the warp issues in between
 * ends the wide access. perf.c sees every piece and merges them by its own
 * rule (the model's figures are unchanged by this).
 *
 * Shared memory the same way: ptxas merges a thread's adjacent accesses to
 * one aligned 8 or 16 bytes (a loop over a thread's items, unrolled) into
 * one LDS.64 or LDS.128 (STS too), which the GPU serves by half or quarter
 * warps, so stride-ITEMS reads that are an ITEMS-way conflict word by word
 * cost a quarter of that as one 16-byte access (SASS of the items-per-thread
 * scans: docs/results/model-shared-vectors-2026-11-28/). Each piece still counts as one
 * request (requests in 4-byte terms, so a conflict-free LDS.128 shows one
 * wavefront a request); the wide access's wavefronts are figured again as
 * it widens, on the request of its first piece.
 */
#include <string.h>

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

/* The warp's last request, which its next may widen. */
struct wide_access {
	const struct launch_rec *rec;
	uint32_t serial;	/* rt.block_serial of the block that issued it */
	uintptr_t site;		/* its first piece's call site; 0: none */
	uint64_t seq;		/* metrics_request's number for it */
	uint64_t wavefronts;	/* shared: what it is charged so far */
	uint32_t mask, width;	/* its lanes; bytes a lane so far */
	uint8_t kind, space;
	uintptr_t lo[WARP], hi[WARP];	/* each lane's bytes so far, by lane */
};

static struct wide_access wide[MAX_WARPS];

static int same_line(uintptr_t a, uintptr_t b)
{
	const char *fa, *fb;
	unsigned la, lb;
	return a == b || (lines_lookup(a - 1, &fa, &la) && lines_lookup(b - 1, &fb, &lb) && la == lb &&
			  strcmp(fa, fb) == 0);
}

/* Whether the request continues w, the warp's wide access: every lane's
 * bytes adjoin its bytes so far, all of them in one aligned 16 bytes, and
 * every lane as wide. Then w takes them in. */
static int widens(struct wide_access *w, struct thr **lanes, int n)
{
	struct thr *t0 = lanes[0];
	uintptr_t lo[WARP], hi[WARP];
	uint32_t mask = 0, width = 0;
	if (!w->site || w->rec != rt.launch->rec || w->serial != rt.block_serial || w->kind != t0->kind ||
	    w->space != t0->space)
		return 0;
	for (int i = 0; i < n; i++) {
		int lane = lanes[i]->id % WARP;
		uintptr_t a = lanes[i]->addr, e = a + lanes[i]->size;
		if (a != w->hi[lane] && e != w->lo[lane])
			return 0;
		lo[i] = a < w->lo[lane] ? a : w->lo[lane];
		hi[i] = e > w->hi[lane] ? e : w->hi[lane];
		if (lo[i] >> 4 != (hi[i] - 1) >> 4 || (i && hi[i] - lo[i] != width))
			return 0;
		width = (uint32_t)(hi[i] - lo[i]);
		mask |= 1u << lane;
	}
	if (mask != w->mask || !same_line(w->site, t0->site))
		return 0;
	for (int i = 0; i < n; i++) {
		w->lo[lanes[i]->id % WARP] = lo[i];
		w->hi[lanes[i]->id % WARP] = hi[i];
	}
	w->width = width;
	return 1;
}

/* w is now the request of lanes, the first piece of a wide access. */
static void wide_start(struct wide_access *w, struct launch_rec *r, struct thr **lanes, int n, int space)
{
	struct thr *t0 = lanes[0];
	*w = (struct wide_access){ .rec = r, .serial = rt.block_serial, .site = t0->site, .width = t0->size,
				   .kind = t0->kind, .space = (uint8_t)space };
	for (int i = 0; i < n; i++) {
		int lane = lanes[i]->id % WARP;
		w->mask |= 1u << lane;
		w->lo[lane] = lanes[i]->addr;
		w->hi[lane] = lanes[i]->addr + lanes[i]->size;
	}
}

/* Records a global request in metrics.c, as a request of its own or as the
 * next piece of the warp's wide access. */
static void global_metrics(struct launch_rec *r, struct thr **lanes, int n, uint64_t sectors)
{
	struct thr *t0 = lanes[0];
	struct wide_access *w = &wide[t0->id / WARP % MAX_WARPS];
	uint32_t from = w->width;
	if (widens(w, lanes, n)) {
		metrics_widen(r, w->site, w->kind, w->seq, from, w->width, w->lo);
		return;
	}
	wide_start(w, r, lanes, n, SP_GLOBAL);
	w->seq = metrics_request(r, t0->site, t0->kind, SP_GLOBAL, sectors, lanes, n,
				 1u << (t0->id / WARP % 32));
}

/* The wavefronts of w as one access of w->width bytes a lane (8 or 16, each
 * lane's bytes aligned to it): its lanes in phases of 128 / width by lane
 * number, each phase as many wavefronts as its busiest bank's words. */
static uint64_t vector_wavefronts(const struct wide_access *w)
{
	int per_phase = 128 / (int)w->width;
	uint64_t total = 0;
	for (int first = 0; first < WARP; first += per_phase) {
		uintptr_t word[MAX_UNITS];
		int m = 0, per_bank[32] = { 0 }, most = 0;
		for (int lane = first; lane < first + per_phase; lane++)
			for (uintptr_t x = w->lo[lane] >> 2; w->mask >> lane & 1 && x < w->hi[lane] >> 2; x++)
				word[m++] = x;
		m = sort_unique(word, m);
		for (int i = 0; i < m; i++)
			if (++per_bank[word[i] & 31] > most)
				most = per_bank[word[i] & 31];
		total += (uint64_t)most;
	}
	return total;
}

/* Records a shared request of `count` wavefronts word by word in metrics.c,
 * as a request of its own, or as the next piece of the warp's wide access:
 * a request with none of its own, and the change in that access's
 * wavefronts on its first piece's (a piece that completes an aligned
 * vector lowers them). Returns what it added to the wavefronts. */
static int64_t shared_metrics(struct launch_rec *r, struct thr **lanes, int n, uint64_t count)
{
	struct thr *t0 = lanes[0];
	struct wide_access *w = &wide[t0->id / WARP % MAX_WARPS];
	uint32_t warp_bit = 1u << (t0->id / WARP % 32);
	if (!widens(w, lanes, n)) {
		wide_start(w, r, lanes, n, SP_SHARED);
		w->wavefronts = count;
		w->seq = metrics_request(r, t0->site, t0->kind, SP_SHARED, count, lanes, n, warp_bit);
		return (int64_t)count;
	}
	int vector = w->width == 8 || w->width == 16;
	for (int lane = 0; lane < WARP && vector; lane++)
		vector = !(w->mask >> lane & 1) || w->lo[lane] % w->width == 0;
	uint64_t now = vector ? vector_wavefronts(w) : w->wavefronts + count;
	int64_t change = (int64_t)now - (int64_t)w->wavefronts;
	w->wavefronts = now;
	metrics_request(r, t0->site, t0->kind, SP_SHARED, 0, lanes, n, warp_bit);
	metrics_shared_widen(r, w->site, w->kind, change);
	return change;
}

static void issue(struct thr **lanes, int n, int space)
{
	struct launch_rec *r = rt.launch->rec;
	struct thr *t0 = lanes[0];
	if (space == SP_GLOBAL) {
		uintptr_t seg[MAX_UNITS];
		int m = units(lanes, n, 5, seg);
		uint64_t bytes = 0;
		for (int i = 0; i < n; i++)
			bytes += lanes[i]->size;
		perf_global(metrics_perf(r), t0->kind, t0->id / WARP, seg, m, bytes);
		global_metrics(r, lanes, n, (uint64_t)m);
	} else {
		uintptr_t lo = UINTPTR_MAX, hi = 0;
		for (int i = 0; i < n; i++) {
			lo = lanes[i]->addr < lo ? lanes[i]->addr : lo;
			hi = lanes[i]->addr + lanes[i]->size > hi ? lanes[i]->addr + lanes[i]->size : hi;
		}
		uint64_t count = wavefronts(lanes, n);
		perf_shared(metrics_perf(r), shared_metrics(r, lanes, n, count), lo, hi);
	}
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
	for (int w = 0; w < MAX_WARPS; w++)
		wide[w].site = 0;	/* a barrier ends every wide access */
	perf_interval_end(metrics_perf(rt.launch->rec));
	work_interval_end();
	if (rt.first_traced)
		metrics_interval_end(rt.launch->rec);
}
