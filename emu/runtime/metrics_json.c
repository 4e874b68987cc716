/*
 * The metrics of traced launches as JSON (docs/emu-metrics.md): the call
 * sites metrics.c recorded, mapped to source lines (lines.c), the sites of
 * one line summed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuemu.h"
#include "internal.h"
#include "metrics.h"
#include "sb.h"

/* The combining operations of every block: the traced blocks' average
 * times the grid. */
static double combines_all_blocks(const struct launch_rec *r)
{
	double blocks = (double)r->grid.x * r->grid.y * r->grid.z;
	return r->traced_blocks ? (double)r->combines * blocks / r->traced_blocks : 0;
}

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
	uint64_t requests, units, word_requests, first_seq;
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
			rows[n++] = (struct line_row){ w, s->space, s->kind, 0, 0, 0, s->first_seq, s };
		rows[j].requests += s->requests;
		rows[j].units += s->units;
		rows[j].word_requests += s->word_requests;
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
	uint64_t ld_req, ld_sec, ld_words, st_req, st_sec, st_words, sh_req, sh_wf, races, uninit;
	double combines;
	/* The block scan: the launch with the most barrier intervals (the first
	 * of them), whose one block's active warp-steps are the handouts'. */
	int block_scan_launch, block_scan_intervals;
	uint64_t block_scan_warp_steps;
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
		sb_printf(s, "\"%s\":%llu,\"%s_per_request\":%.4f", unit, (unsigned long long)x->units,
			  unit, ratio(x->units, x->requests));
		if (x->space == SP_GLOBAL)
			sb_printf(s, ",\"word_requests\":%llu,\"sectors_per_word_request\":%.4f",
				  (unsigned long long)x->word_requests, ratio(x->units, x->word_requests));
		sb_puts(s, "}");
		if (x->space == SP_GLOBAL && x->kind == AK_LOAD) {
			t->ld_req += x->requests;
			t->ld_sec += x->units;
			t->ld_words += x->word_requests;
		} else if (x->space == SP_GLOBAL && x->kind == AK_STORE) {
			t->st_req += x->requests;
			t->st_sec += x->units;
			t->st_words += x->word_requests;
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
			if (j == n && metrics_grow((void **)&w, &cap, n, sizeof *w) == 0)
				w[n++] = x;
		}
	*out = w;
	return n;
}

/* One block's active warp-steps: the warps storing to shared memory,
 * summed over its barrier intervals. */
static uint64_t warp_steps(const struct launch_rec *r)
{
	uint64_t steps = 0;
	for (int k = 0; k < r->n_ivals; k++)
		steps += (uint64_t)__builtin_popcount(r->ivals[k].warps_shared_store);
	return steps;
}

static void json_intervals(struct sb *s, const struct launch_rec *r, struct where *lines, int n_lines)
{
	sb_puts(s, "\"intervals\":[");
	for (int k = 0; k < r->n_ivals; k++) {
		const struct interval *iv = &r->ivals[k];
		sb_printf(s, "%s{\"warps_any\":%d,\"warps_shared_store\":%d,\"lines\":[", k ? "," : "",
			  __builtin_popcount(iv->warps_any), __builtin_popcount(iv->warps_shared_store));
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
 * the warps issuing at it in each interval where it runs, and which
 * intervals those are (a down-sweep's steps come after the up-sweep's). */
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
		sb_puts(s, "],\"interval_indices\":[");
		for (int k = 0, i = 0; k < r->n_ivals; k++)
			if (line_warps(&r->ivals[k], lines[j]))
				sb_printf(s, "%s%d", i++ ? "," : "", k);
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

static void json_launch(struct sb *s, int index, const struct launch_rec *r, struct totals *t)
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
	coverage_json(s, r->cov);
	sb_puts(s, ",");
	json_lines(s, rows, n_rows, t);
	sb_puts(s, ",");
	json_intervals(s, r, lines, n_lines);
	sb_printf(s, ",\"active_warp_steps\":%llu,", (unsigned long long)warp_steps(r));
	if (r->n_ivals > t->block_scan_intervals) {
		t->block_scan_launch = index;
		t->block_scan_intervals = r->n_ivals;
		t->block_scan_warp_steps = warp_steps(r);
	}
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
	struct totals t = { .block_scan_launch = -1 };
	struct launch_rec *const *launches;
	int dropped, n_launches = metrics_recorded(&launches, &dropped);
	lines_init();
	sb_puts(&s, "{\"launches\":[");
	for (int i = 0; i < n_launches; i++) {
		if (i)
			sb_puts(&s, ",");
		json_launch(&s, i, launches[i], &t);
	}
	sb_printf(&s, "],\"launches_not_recorded\":%d,\"totals\":{", dropped);
	sb_printf(&s, "\"global_load_requests\":%llu,\"global_load_sectors\":%llu,"
		  "\"global_load_sectors_per_request\":%.4f,", (unsigned long long)t.ld_req,
		  (unsigned long long)t.ld_sec, ratio(t.ld_sec, t.ld_req));
	sb_printf(&s, "\"global_load_word_requests\":%llu,\"global_load_sectors_per_word_request\":%.4f,",
		  (unsigned long long)t.ld_words, ratio(t.ld_sec, t.ld_words));
	sb_printf(&s, "\"global_store_requests\":%llu,\"global_store_sectors\":%llu,"
		  "\"global_store_sectors_per_request\":%.4f,", (unsigned long long)t.st_req,
		  (unsigned long long)t.st_sec, ratio(t.st_sec, t.st_req));
	sb_printf(&s, "\"global_store_word_requests\":%llu,\"global_store_sectors_per_word_request\":%.4f,",
		  (unsigned long long)t.st_words, ratio(t.st_sec, t.st_words));
	sb_printf(&s, "\"shared_requests\":%llu,\"shared_wavefronts\":%llu,"
		  "\"shared_wavefronts_per_request\":%.4f,", (unsigned long long)t.sh_req,
		  (unsigned long long)t.sh_wf, ratio(t.sh_wf, t.sh_req));
	sb_printf(&s, "\"races\":%llu,\"uninit_shared_reads\":%llu,\"block_scan_launch\":%d,"
		  "\"active_warp_steps\":%llu,\"combining_ops\":%.0f},", (unsigned long long)t.races,
		  (unsigned long long)t.uninit, t.block_scan_launch,
		  (unsigned long long)t.block_scan_warp_steps, t.combines);
	warn_json(&s);
	sb_puts(&s, "}");
	return sb_take(&s);
}
