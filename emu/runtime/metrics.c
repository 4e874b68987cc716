/*
 * The metrics of traced launches, recorded while they run (docs/emu-metrics.md);
 * metrics_json.c writes them out.
 *
 * While a launch runs, figures are kept per call site (an instruction).
 * Barrier intervals are kept for the first traced block of each launch
 * only, as the schema says.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuemu.h"
#include "internal.h"
#include "metrics.h"

#define MAX_LAUNCHES 10000
#define MAX_INTERVALS 4096

static struct launch_rec *launches[MAX_LAUNCHES];
static int n_launches, dropped;

int metrics_grow(void **arr, int *cap, int n, size_t sz)
{
	if (n < *cap)
		return 0;
	int c = *cap ? 2 * *cap : 16;
	void *p = realloc(*arr, (size_t)c * sz);
	if (!p)
		return -1;
	*arr = p;
	*cap = c;
	return 0;
}

int metrics_recorded(struct launch_rec *const **out, int *n_dropped)
{
	*out = launches;
	*n_dropped = dropped;
	return n_launches;
}

/* ---- recording ------------------------------------------------------------------ */

struct launch_rec *metrics_launch_begin(struct launch *L)
{
	if (n_launches == MAX_LAUNCHES) {
		dropped++;
		return NULL;
	}
	struct launch_rec *r = calloc(1, sizeof *r);
	if (!r)
		return NULL;
	snprintf(r->name, sizeof r->name, "%s", L->name);
	r->grid = L->grid;
	r->block = L->block;
	r->smem = L->smem;
	r->perf = perf_begin();
	r->cov = coverage_begin();
	memset(rt.launch_global_bytes, 0, sizeof rt.launch_global_bytes);
	launches[n_launches++] = r;
	return r;
}

struct perf_rec *metrics_perf(struct launch_rec *r)
{
	return r ? r->perf : NULL;
}

void metrics_launch_end(struct launch *L)
{
	L->rec->traced_blocks = L->traced_blocks;
	L->rec->combines = L->combines;
	perf_grid_bytes(L->rec->perf, rt.launch_global_bytes);
}

static size_t site_hash(uintptr_t site, int kind, int space)
{
	return (size_t)(((site * 0x9e3779b97f4a7c15ull) >> 16) ^ (unsigned)(kind * 7 + space));
}

static int sites_grow(struct launch_rec *r)
{
	int cap = r->cap_sites ? 2 * r->cap_sites : 64;
	struct site_stat *t = calloc((size_t)cap, sizeof *t);
	if (!t)
		return -1;
	for (int i = 0; i < r->cap_sites; i++) {
		struct site_stat *s = &r->sites[i];
		if (!s->site)
			continue;
		size_t j = site_hash(s->site, s->kind, s->space) & (size_t)(cap - 1);
		while (t[j].site)
			j = (j + 1) & (size_t)(cap - 1);
		t[j] = *s;
	}
	free(r->sites);
	r->sites = t;
	r->cap_sites = cap;
	return 0;
}

static struct site_stat *site_get(struct launch_rec *r, uintptr_t site, int kind, int space)
{
	if ((r->n_sites + 1) * 2 > r->cap_sites && sites_grow(r) < 0)
		return NULL;
	size_t mask = (size_t)r->cap_sites - 1, j = site_hash(site, kind, space) & mask;
	for (; r->sites[j].site; j = (j + 1) & mask) {
		struct site_stat *s = &r->sites[j];
		if (s->site == site && s->kind == kind && s->space == space)
			return s;
	}
	struct site_stat *s = &r->sites[j];
	s->site = site;
	s->kind = (uint8_t)kind;
	s->space = (uint8_t)space;
	s->first_seq = r->seq;
	r->n_sites++;
	return s;
}

static void interval_note(struct interval *iv, uintptr_t site, int kind, int space, uint32_t warp)
{
	iv->warps_any |= warp;
	if (space == SP_SHARED && kind != AK_LOAD)
		iv->warps_shared_store |= warp;
	for (int i = 0; i < iv->n; i++)
		if (iv->sites[i].site == site) {
			iv->sites[i].warps |= warp;
			return;
		}
	if (metrics_grow((void **)&iv->sites, &iv->cap, iv->n, sizeof *iv->sites) == 0)
		iv->sites[iv->n++] = (struct site_warps){ site, warp, (uint8_t)space, (uint8_t)kind };
}

/* A request of width bytes a lane, counted in 4-byte terms: a float4 request
 * moves what four float requests move, so it may touch four times their
 * sectors. Narrower accesses count one, as before. */
static uint64_t word_requests(uint32_t width)
{
	return width > 4 ? width / 4 : 1;
}

/* Returns the request's sequence number, for metrics_widen. */
uint64_t metrics_request(struct launch_rec *r, uintptr_t site, int kind, int space, uint64_t units,
			 struct thr **lanes, int n, uint32_t warp_bit)
{
	struct site_stat *s = site_get(r, site, kind, space);
	if (s) {
		if (s->requests == 0) {
			s->ex_bytes = lanes[0]->size;
			for (int i = 0; i < n; i++) {
				int lane = lanes[i]->id % WARP;
				s->ex_mask |= 1u << lane;
				s->ex_addr[lane] = lanes[i]->addr;
			}
		}
		s->requests++;
		s->units += units;
		s->word_requests += word_requests(lanes[0]->size);
	}
	if (rt.first_traced)
		interval_note(&r->cur, site, kind, space, warp_bit);
	return r->seq++;
}

/* Request seq at site, from bytes a lane wide, is now to bytes wide: the
 * next piece of an access the compiler split (trace.c). Its sectors are
 * the same; lane_lo: each lane's first byte now, by lane. */
void metrics_widen(struct launch_rec *r, uintptr_t site, int kind, uint64_t seq, uint32_t from,
		   uint32_t to, const uintptr_t *lane_lo)
{
	struct site_stat *s = site_get(r, site, kind, SP_GLOBAL);
	if (!s)
		return;
	s->word_requests += word_requests(to) - word_requests(from);
	if (s->first_seq != seq)
		return;
	s->ex_bytes = to;	/* the example is this request */
	for (int lane = 0; lane < WARP; lane++)
		if (s->ex_mask >> lane & 1)
			s->ex_addr[lane] = lane_lo[lane];
}

/* The shared wide access whose first piece is at site has `wavefronts`
 * more (or fewer: a completed vector) than charged so far (trace.c); the
 * site's sum never falls below what its accesses cost. */
void metrics_shared_widen(struct launch_rec *r, uintptr_t site, int kind, int64_t wavefronts)
{
	struct site_stat *s = site_get(r, site, kind, SP_SHARED);
	if (s)
		s->units += (uint64_t)wavefronts;
}

void metrics_interval_end(struct launch_rec *r)
{
	if (r->n_ivals >= MAX_INTERVALS ||
	    metrics_grow((void **)&r->ivals, &r->cap_ivals, r->n_ivals, sizeof *r->ivals) < 0) {
		free(r->cur.sites);
	} else {
		r->ivals[r->n_ivals++] = r->cur;
	}
	memset(&r->cur, 0, sizeof r->cur);
}

void metrics_race(struct launch_rec *r, int kind, int intra, int space, uintptr_t first,
		  uintptr_t second)
{
	for (int i = 0; i < r->n_races; i++) {
		struct race_stat *x = &r->races[i];
		if (x->kind == kind && x->intra == intra && x->space == space && x->first == first &&
		    x->second == second) {
			x->count++;
			return;
		}
	}
	if (metrics_grow((void **)&r->races, &r->cap_races, r->n_races, sizeof *r->races) == 0)
		r->races[r->n_races++] = (struct race_stat){ (uint8_t)kind, (uint8_t)intra,
							     (uint8_t)space, first, second, 1 };
}

void metrics_uninit(struct launch_rec *r, uintptr_t site)
{
	for (int i = 0; i < r->n_uninit; i++)
		if (r->uninit[i].site == site) {
			r->uninit[i].count++;
			return;
		}
	if (metrics_grow((void **)&r->uninit, &r->cap_uninit, r->n_uninit, sizeof *r->uninit) == 0)
		r->uninit[r->n_uninit++] = (struct uninit_stat){ site, 1 };
}

static void launch_free(struct launch_rec *r)
{
	for (int i = 0; i < r->n_ivals; i++)
		free(r->ivals[i].sites);
	free(r->cur.sites);
	free(r->ivals);
	free(r->sites);
	free(r->races);
	free(r->uninit);
	perf_free(r->perf);
	coverage_free(r->cov);
	free(r);
}

void cuemu_metrics_reset(void)
{
	for (int i = 0; i < n_launches; i++)
		launch_free(launches[i]);
	n_launches = dropped = 0;
	warn_reset();
}
