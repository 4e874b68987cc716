/*
 * The metrics of traced launches, and their JSON (docs/emu-metrics.md).
 *
 * While a launch runs, figures are kept per call site (an instruction);
 * cuemu_metrics_json() maps the sites to source lines (lines.c) and sums
 * the sites of one line. Barrier intervals are kept for the first traced
 * block of each launch only, as the schema says.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuemu.h"
#include "internal.h"
#include "sb.h"

#define MAX_LAUNCHES 10000
#define MAX_INTERVALS 4096

struct site_stat {
	uintptr_t site;		/* 0: an empty slot of the table */
	uint8_t kind, space;
	uint64_t requests, units;
	uint64_t first_seq;
	uint32_t ex_bytes, ex_mask;	/* the first request, lane by lane */
	uintptr_t ex_addr[WARP];
};

struct site_warps {
	uintptr_t site;
	uint32_t warps;
	uint8_t space, kind;
};

struct interval {
	uint32_t warps_any, warps_shared_store;
	struct site_warps *sites;
	int n, cap;
};

struct race_stat {
	uint8_t kind, intra, space;
	uintptr_t first, second;
	uint64_t count;
};

struct uninit_stat {
	uintptr_t site;
	uint64_t count;
};

struct launch_rec {
	char name[128];
	dim3 grid, block;
	size_t smem;
	int traced_blocks;
	uint64_t combines;	/* work.c, over the traced blocks */
	struct site_stat *sites;	/* open addressing, cap a power of two */
	int n_sites, cap_sites;
	struct interval *ivals;
	int n_ivals, cap_ivals;
	struct interval cur;
	struct race_stat *races;
	int n_races, cap_races;
	struct uninit_stat *uninit;
	int n_uninit, cap_uninit;
	uint64_t seq;
	struct perf_rec *perf;	/* the performance model's figures (perf.c) */
};

static struct launch_rec *launches[MAX_LAUNCHES];
static int n_launches, dropped;

/* Grows *arr (of *cap elements of size sz) to hold one more; 0 or -1. */
static int grow(void **arr, int *cap, int n, size_t sz)
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
}

/* The combining operations of every block: the traced blocks' average
 * times the grid. */
static double combines_all_blocks(const struct launch_rec *r)
{
	double blocks = (double)r->grid.x * r->grid.y * r->grid.z;
	return r->traced_blocks ? (double)r->combines * blocks / r->traced_blocks : 0;
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
	if (grow((void **)&iv->sites, &iv->cap, iv->n, sizeof *iv->sites) == 0)
		iv->sites[iv->n++] = (struct site_warps){ site, warp, (uint8_t)space, (uint8_t)kind };
}

void metrics_request(struct launch_rec *r, uintptr_t site, int kind, int space, uint64_t units,
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
	}
	r->seq++;
	if (rt.first_traced)
		interval_note(&r->cur, site, kind, space, warp_bit);
}

void metrics_interval_end(struct launch_rec *r)
{
	if (r->n_ivals >= MAX_INTERVALS ||
	    grow((void **)&r->ivals, &r->cap_ivals, r->n_ivals, sizeof *r->ivals) < 0) {
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
	if (grow((void **)&r->races, &r->cap_races, r->n_races, sizeof *r->races) == 0)
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
	if (grow((void **)&r->uninit, &r->cap_uninit, r->n_uninit, sizeof *r->uninit) == 0)
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
	free(r);
}

void cuemu_metrics_reset(void)
{
	for (int i = 0; i < n_launches; i++)
		launch_free(launches[i]);
	n_launches = dropped = 0;
	warn_reset();
}

/* ---- JSON ---------------------------------------------------------------------------- */

static const char *space_name(int space)
{
	return space == SP_SHARED ? "shared" : "global";
}

static const char *kind_name(int kind)
{
	return kind == AK_LOAD ? "load" : kind == AK_STORE ? "store" : "atomic";
}

struct where {
	const char *file;
	unsigned line;
};

static struct where where_of(uintptr_t site)
{
	struct where w = { "?", 0 };
	if (site)
		lines_lookup(site - 1, &w.file, &w.line);
	return w;
}

static int same_line(struct where a, struct where b)
{
	return a.line == b.line && strcmp(a.file, b.file) == 0;
}

/* One row of "lines": a site's figures summed over the sites of its line. */
struct line_row {
	struct where w;
	int space, kind;
	uint64_t requests, units, first_seq;
	const struct site_stat *example;
};

static int row_cmp(const void *a, const void *b)
{
	const struct line_row *x = a, *y = b;
	int c = strcmp(x->w.file, y->w.file);
	if (c)
		return c;
	if (x->w.line != y->w.line)
		return x->w.line < y->w.line ? -1 : 1;
	if (x->space != y->space)
		return x->space - y->space;
	return x->kind - y->kind;
}

static int line_rows(const struct launch_rec *r, struct line_row **out)
{
	struct line_row *rows = calloc((size_t)r->n_sites + 1, sizeof *rows);
	int n = 0;
	if (!rows)
		return 0;
	for (int i = 0; i < r->cap_sites; i++) {
		const struct site_stat *s = &r->sites[i];
		if (!s->site)
			continue;
		struct where w = where_of(s->site);
		int j;
		for (j = 0; j < n; j++)
			if (same_line(rows[j].w, w) && rows[j].space == s->space && rows[j].kind == s->kind)
				break;
		if (j == n)
			rows[n++] = (struct line_row){ w, s->space, s->kind, 0, 0, s->first_seq, s };
		rows[j].requests += s->requests;
		rows[j].units += s->units;
		if (s->first_seq < rows[j].first_seq) {
			rows[j].first_seq = s->first_seq;
			rows[j].example = s;
		}
	}
	qsort(rows, (size_t)n, sizeof *rows, row_cmp);
	*out = rows;
	return n;
}

struct totals {
	uint64_t ld_req, ld_sec, st_req, st_sec, sh_req, sh_wf, races, uninit, warp_steps;
	double combines;
};

static double ratio(uint64_t a, uint64_t b)
{
	return b ? (double)a / (double)b : 0.0;
}

static void json_lines(struct sb *s, struct line_row *rows, int n, struct totals *t)
{
	sb_puts(s, "\"lines\":[");
	for (int i = 0; i < n; i++) {
		struct line_row *x = &rows[i];
		sb_printf(s, "%s{\"file\":", i ? "," : "");
		sb_json_string(s, x->w.file);
		sb_printf(s, ",\"line\":%u,\"space\":\"%s\",\"kind\":\"%s\",\"requests\":%llu,",
			  x->w.line, space_name(x->space), kind_name(x->kind),
			  (unsigned long long)x->requests);
		const char *unit = x->space == SP_GLOBAL ? "sectors" : "wavefronts";
		sb_printf(s, "\"%s\":%llu,\"%s_per_request\":%.4f}", unit, (unsigned long long)x->units,
			  unit, ratio(x->units, x->requests));
		if (x->space == SP_GLOBAL && x->kind == AK_LOAD) {
			t->ld_req += x->requests;
			t->ld_sec += x->units;
		} else if (x->space == SP_GLOBAL && x->kind == AK_STORE) {
			t->st_req += x->requests;
			t->st_sec += x->units;
		} else if (x->space == SP_SHARED) {
			t->sh_req += x->requests;
			t->sh_wf += x->units;
		}
	}
	sb_puts(s, "]");
}

/* The warps of interval iv that issued at line w, or 0. */
static uint32_t line_warps(const struct interval *iv, struct where w)
{
	uint32_t warps = 0;
	for (int i = 0; i < iv->n; i++)
		if (same_line(where_of(iv->sites[i].site), w))
			warps |= iv->sites[i].warps;
	return warps;
}

/* The distinct lines of the intervals, in order of first appearance. */
static int interval_lines(const struct launch_rec *r, struct where **out)
{
	int n = 0, cap = 0;
	struct where *w = NULL;
	for (int k = 0; k < r->n_ivals; k++)
		for (int i = 0; i < r->ivals[k].n; i++) {
			struct where x = where_of(r->ivals[k].sites[i].site);
			int j;
			for (j = 0; j < n && !same_line(w[j], x); j++)
				;
			if (j == n && grow((void **)&w, &cap, n, sizeof *w) == 0)
				w[n++] = x;
		}
	*out = w;
	return n;
}

static void json_intervals(struct sb *s, const struct launch_rec *r, struct where *lines, int n_lines,
			   struct totals *t)
{
	sb_puts(s, "\"intervals\":[");
	for (int k = 0; k < r->n_ivals; k++) {
		const struct interval *iv = &r->ivals[k];
		sb_printf(s, "%s{\"warps_any\":%d,\"warps_shared_store\":%d,\"lines\":[", k ? "," : "",
			  __builtin_popcount(iv->warps_any), __builtin_popcount(iv->warps_shared_store));
		t->warp_steps += (uint64_t)__builtin_popcount(iv->warps_shared_store);
		int first = 1;
		for (int j = 0; j < n_lines; j++) {
			uint32_t warps = line_warps(iv, lines[j]);
			if (!warps)
				continue;
			sb_printf(s, "%s{\"file\":", first ? "" : ",");
			sb_json_string(s, lines[j].file);
			sb_printf(s, ",\"line\":%u,\"warps\":%d}", lines[j].line, __builtin_popcount(warps));
			first = 0;
		}
		sb_puts(s, "]}");
	}
	sb_puts(s, "]");
}

/* The per-line rule: each line that runs in more than one interval, with
 * the warps issuing at it in each interval where it runs. */
static void json_active_warps(struct sb *s, const struct launch_rec *r, struct where *lines,
			      int n_lines)
{
	int first = 1;
	sb_puts(s, "\"active_warps_per_line\":[");
	for (int j = 0; j < n_lines; j++) {
		int steps = 0;
		for (int k = 0; k < r->n_ivals; k++)
			steps += line_warps(&r->ivals[k], lines[j]) != 0;
		if (steps < 2)
			continue;
		sb_printf(s, "%s{\"file\":", first ? "" : ",");
		sb_json_string(s, lines[j].file);
		sb_printf(s, ",\"line\":%u,\"steps\":[", lines[j].line);
		int total = 0, m = 0;
		for (int k = 0; k < r->n_ivals; k++) {
			int w = __builtin_popcount(line_warps(&r->ivals[k], lines[j]));
			if (!w)
				continue;
			sb_printf(s, "%s%d", m++ ? "," : "", w);
			total += w;
		}
		sb_printf(s, "],\"total\":%d}", total);
		first = 0;
	}
	sb_puts(s, "]");
}

static void json_where(struct sb *s, const char *key, uintptr_t site)
{
	struct where w = where_of(site);
	sb_printf(s, "\"%s\":{\"file\":", key);
	sb_json_string(s, w.file);
	sb_printf(s, ",\"line\":%u}", w.line);
}

static void json_races(struct sb *s, const struct launch_rec *r, struct totals *t)
{
	static const char *kinds[] = { "RAW", "WAR", "WAW" };
	int n = 0;
	sb_puts(s, "\"races\":[");
	/* Sites of one line pair are summed into one entry. */
	uint8_t *done = calloc((size_t)r->n_races + 1, 1);
	for (int i = 0; done && i < r->n_races; i++) {
		if (done[i])
			continue;
		const struct race_stat *x = &r->races[i];
		struct where f = where_of(x->first), g = where_of(x->second);
		uint64_t count = 0;
		for (int j = i; j < r->n_races; j++) {
			const struct race_stat *y = &r->races[j];
			if (done[j] || y->kind != x->kind || y->intra != x->intra || y->space != x->space ||
			    !same_line(where_of(y->first), f) || !same_line(where_of(y->second), g))
				continue;
			done[j] = 1;
			count += y->count;
		}
		sb_printf(s, "%s{\"kind\":\"%s\",\"scope\":\"%s\",\"space\":\"%s\",", n++ ? "," : "",
			  kinds[x->kind], x->intra ? "intra-warp" : "inter-warp", space_name(x->space));
		json_where(s, "first", x->first);
		sb_puts(s, ",");
		json_where(s, "second", x->second);
		sb_printf(s, ",\"count\":%llu}", (unsigned long long)count);
		t->races += count;
	}
	free(done);
	sb_puts(s, "]");
}

static void json_uninit(struct sb *s, const struct launch_rec *r, struct totals *t)
{
	int n = 0;
	sb_puts(s, "\"uninit_shared_reads\":[");
	uint8_t *done = calloc((size_t)r->n_uninit + 1, 1);
	for (int i = 0; done && i < r->n_uninit; i++) {
		if (done[i])
			continue;
		struct where w = where_of(r->uninit[i].site);
		uint64_t count = 0;
		for (int j = i; j < r->n_uninit; j++)
			if (!done[j] && same_line(where_of(r->uninit[j].site), w)) {
				done[j] = 1;
				count += r->uninit[j].count;
			}
		sb_printf(s, "%s{\"file\":", n++ ? "," : "");
		sb_json_string(s, w.file);
		sb_printf(s, ",\"line\":%u,\"count\":%llu}", w.line, (unsigned long long)count);
		t->uninit += count;
	}
	free(done);
	sb_puts(s, "]");
}

static void json_examples(struct sb *s, struct line_row *rows, int n)
{
	int m = 0;
	sb_puts(s, "\"example_requests\":[");
	for (int i = 0; i < n; i++) {
		const struct site_stat *x = rows[i].example;
		if (rows[i].space != SP_GLOBAL || !x)
			continue;
		uintptr_t base = UINTPTR_MAX;
		for (int l = 0; l < WARP; l++)
			if (x->ex_mask >> l & 1 && x->ex_addr[l] < base)
				base = x->ex_addr[l];
		sb_printf(s, "%s{\"file\":", m++ ? "," : "");
		sb_json_string(s, rows[i].w.file);
		sb_printf(s, ",\"line\":%u,\"space\":\"global\",\"kind\":\"%s\",\"bytes\":%u,"
			  "\"base_address\":%llu,\"lane_addresses\":[", rows[i].w.line,
			  kind_name(rows[i].kind), x->ex_bytes, (unsigned long long)base);
		for (int l = 0; l < WARP; l++) {
			if (x->ex_mask >> l & 1)
				sb_printf(s, "%s%llu", l ? "," : "", (unsigned long long)x->ex_addr[l]);
			else
				sb_printf(s, "%snull", l ? "," : "");
		}
		sb_puts(s, "]}");
	}
	sb_puts(s, "]");
}

static void json_launch(struct sb *s, const struct launch_rec *r, struct totals *t)
{
	struct line_row *rows = NULL;
	struct where *lines = NULL;
	int n_rows = line_rows(r, &rows), n_lines = interval_lines(r, &lines);
	sb_puts(s, "{\"kernel\":");
	sb_json_string(s, r->name);
	sb_printf(s, ",\"grid\":[%u,%u,%u],\"block\":[%u,%u,%u],\"dynamic_shared_bytes\":%zu,"
		  "\"traced_blocks\":%d,\"combining_ops\":%llu,\"combining_ops_all_blocks\":%.0f,",
		  r->grid.x, r->grid.y, r->grid.z, r->block.x, r->block.y, r->block.z, r->smem,
		  r->traced_blocks, (unsigned long long)r->combines, combines_all_blocks(r));
	t->combines += combines_all_blocks(r);
	json_lines(s, rows, n_rows, t);
	sb_puts(s, ",");
	json_intervals(s, r, lines, n_lines, t);
	sb_puts(s, ",");
	json_active_warps(s, r, lines, n_lines);
	sb_puts(s, ",");
	json_races(s, r, t);
	sb_puts(s, ",");
	json_uninit(s, r, t);
	sb_puts(s, ",");
	json_examples(s, rows, n_rows);
	sb_puts(s, ",");
	perf_json(s, r->perf);
	sb_puts(s, "}");
	free(rows);
	free(lines);
}

char *cuemu_metrics_json(void)
{
	struct sb s = { 0 };
	struct totals t = { 0 };
	lines_init();
	sb_puts(&s, "{\"launches\":[");
	for (int i = 0; i < n_launches; i++) {
		if (i)
			sb_puts(&s, ",");
		json_launch(&s, launches[i], &t);
	}
	sb_printf(&s, "],\"launches_not_recorded\":%d,\"totals\":{", dropped);
	sb_printf(&s, "\"global_load_requests\":%llu,\"global_load_sectors\":%llu,"
		  "\"global_load_sectors_per_request\":%.4f,", (unsigned long long)t.ld_req,
		  (unsigned long long)t.ld_sec, ratio(t.ld_sec, t.ld_req));
	sb_printf(&s, "\"global_store_requests\":%llu,\"global_store_sectors\":%llu,"
		  "\"global_store_sectors_per_request\":%.4f,", (unsigned long long)t.st_req,
		  (unsigned long long)t.st_sec, ratio(t.st_sec, t.st_req));
	sb_printf(&s, "\"shared_requests\":%llu,\"shared_wavefronts\":%llu,"
		  "\"shared_wavefronts_per_request\":%.4f,", (unsigned long long)t.sh_req,
		  (unsigned long long)t.sh_wf, ratio(t.sh_wf, t.sh_req));
	sb_printf(&s, "\"races\":%llu,\"uninit_shared_reads\":%llu,\"active_warp_steps\":%llu,"
		  "\"combining_ops\":%.0f},", (unsigned long long)t.races, (unsigned long long)t.uninit,
		  (unsigned long long)t.warp_steps, t.combines);
	warn_json(&s);
	sb_puts(&s, "}");
	return sb_take(&s);
}
