/* One warp's memory request, lane by lane (see chart.h). */
#include "chart/chart.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chart/gnuplot.h"

#define WARP 32

struct request {
	char where[160];		/* "transpose.cu:42 store" */
	int active[WARP];
	unsigned long long addr[WARP];
	int bytes;
	int n_active;
	unsigned long long sector[WARP];	/* distinct sectors, ascending */
	int n_sectors;
	int lane_sector[WARP];		/* index into sector[] of each active lane */
	int given;			/* on a line the skeleton gave (steps/given_lines.h) */
};

static int cmp_ull(const void *a, const void *b)
{
	unsigned long long x = *(const unsigned long long *)a, y = *(const unsigned long long *)b;
	return (x > y) - (x < y);
}

/* Fills r from one example_requests entry; 0, or -1 when it has no lane. */
static int read_request(const json_t *e, struct request *r)
{
	json_t *lanes = json_object_get(e, "lane_addresses");
	const char *file = json_string_value(json_object_get(e, "file"));
	const char *kind = json_string_value(json_object_get(e, "kind"));
	unsigned long long all[WARP];

	memset(r, 0, sizeof(*r));
	snprintf(r->where, sizeof(r->where), "%s:%lld %s", file ? file : "?",
		 (long long)json_integer_value(json_object_get(e, "line")), kind ? kind : "access");
	r->given = json_is_true(json_object_get(e, "given"));
	r->bytes = (int)analysis_number(json_object_get(e, "bytes"), 0, 16);
	if (r->bytes == 0)
		r->bytes = 4;
	for (size_t i = 0; i < WARP && i < json_array_size(lanes); i++) {
		json_t *a = json_array_get(lanes, i);
		if (!json_is_number(a))
			continue;
		r->active[i] = 1;
		r->addr[i] = (unsigned long long)analysis_number(a, 0, 1ll << 62);
		all[r->n_active++] = r->addr[i] / 32;
	}
	if (r->n_active == 0)
		return -1;
	qsort(all, r->n_active, sizeof(all[0]), cmp_ull);
	for (int i = 0; i < r->n_active; i++)
		if (i == 0 || all[i] != all[i - 1])
			r->sector[r->n_sectors++] = all[i];
	for (int l = 0; l < WARP; l++) {
		if (!r->active[l])
			continue;
		unsigned long long *hit = bsearch(&(unsigned long long){r->addr[l] / 32}, r->sector,
						  r->n_sectors, sizeof(r->sector[0]), cmp_ull);
		r->lane_sector[l] = (int)(hit - r->sector);
	}
	return 0;
}

/* Sectors per 4 bytes a lane, times 4: a request of 16 bytes a lane may
 * touch four times the sectors of one of 4 (docs/emu-metrics.md). */
static int word_sectors(const struct request *r)
{
	return r->bytes > 4 ? r->n_sectors * 4 / r->bytes : r->n_sectors;
}

/* The example request touching the most sectors for its bytes (the first
 * of equals) on the student's own lines; only where there is none, the worst
 * on lines the skeleton gave, which the chart then draws apart. */
static int worst_request(const json_t *analysis, struct request *worst)
{
	json_t *launch, *e;
	size_t i, j;
	int found = 0;
	struct request r;

	json_array_foreach(json_object_get(analysis, "launches"), i, launch) {
		json_array_foreach(json_object_get(launch, "example_requests"), j, e) {
			if (read_request(e, &r) == 0 &&
			    (!found || (worst->given && !r.given) ||
			     (r.given == worst->given && word_sectors(&r) > word_sectors(worst)))) {
				*worst = r;
				found = 1;
			}
		}
	}
	return found;
}

/* One row of the diagram: lanes at y = 1, sectors as boxes at y = 0 in
 * address order, an arrow from each active lane into its sector. */
static void warp_panel(FILE *s, const char *title, const int *active, const int *lane_sector,
		       int n_sectors, const char *sector_note, int greyed)
{
	const char *sector_colour = greyed ? "#bbbbbb" : "#1f77b4";
	const char *lane_colour = greyed ? "#999999" : "#d62728";

	double w = (double)WARP / n_sectors;

	fputs("$sec << EOD\n", s);
	for (int k = 0; k < n_sectors; k++) {
		double x = -0.5 + w * (k + 0.5);
		fprintf(s, "%g 0 %g %g -0.12 0.12\n", x, x - 0.42 * w, x + 0.42 * w);
	}
	fputs("EOD\n$lane << EOD\n", s);
	for (int l = 0; l < WARP; l++)
		fprintf(s, "%d 1 %d\n", l, active[l]);
	fputs("EOD\n$arrow << EOD\n", s);
	for (int l = 0; l < WARP; l++)
		if (active[l])
			fprintf(s, "%d 0.95 %g -0.8\n", l, -0.5 + w * (lane_sector[l] + 0.5) - l);
	fputs("EOD\nset title ", s);
	gp_str(s, title);
	fputs("\nset xlabel ", s);
	gp_str(s, sector_note);
	fprintf(s, "\nplot $sec with boxxyerror fs solid 0.35 lc rgb '%s' notitle, "
		"$arrow with vectors head filled size 0.25,20 lc rgb '#555555' notitle, "
		"$lane using 1:2:($3 != 0 ? 7 : 6) with points pt variable ps 1.1 lc rgb '%s' "
		"notitle\n", sector_colour, lane_colour);
}

int chart_coalescing(const struct grade *g, enum plot_kind kind, const char *out_dir, char *msg,
		     size_t msglen)
{
	struct request r;
	char path[PATH_MAX], title[400], note[300];
	struct plot p;
	int ideal_sector[WARP];

	if (!g->analysis || !worst_request(g->analysis, &r)) {
		snprintf(msg, msglen, "coalescing chart skipped: the emulator recorded no "
				      "example request");
		return 1;
	}
	if (plot_skipped(kind, msg, msglen))
		return CHART_NONE_DRAWN;
	/* The ideal: the same active lanes reading consecutive words from an
	 * aligned start, 32 / (32 / bytes) = bytes sectors for a full warp. */
	int ideal = (r.n_active * r.bytes + 31) / 32;
	for (int l = 0; l < WARP; l++)
		ideal_sector[l] = l * r.bytes / 32;

	/* Already as few sectors as the bytes need: one panel that says so,
	 * not the same pattern drawn twice. */
	int coalesced = r.n_sectors <= ideal;

	chart_path(path, sizeof(path), out_dir, g, "chart", "coalescing", kind);
	if (plot_begin(&p, kind, "coalescing", path, 1100, coalesced ? 380 : 650, coalesced ? 1 : 2,
		       msg, msglen) != 0)
		return -1;
	FILE *s = p.s;
	fputs("set multiplot layout ", s);
	fputs(coalesced ? "1,1 title " : "2,1 title ", s);
	/* A request on a line the skeleton gave is not the student's doing:
	 * said in the title and greyed. */
	const char *whose = r.given ? ", given by the skeleton, not yours" : "";
	if (coalesced)
		gp_strf(s, "%s%s: %d sector%s for one warp: already coalesced (the worst request of "
			"%s)", r.where, whose, r.n_sectors, r.n_sectors == 1 ? "" : "s",
			r.given ? "the skeleton's given lines" : "your kernel");
	else
		gp_strf(s, "%s%s: %d sector%s for one warp (ideal: %d)", r.where, whose, r.n_sectors,
			r.n_sectors == 1 ? "" : "s", ideal);
	fputs("\nset xrange [-1:32]\nset yrange [-0.35:1.3]\nset xtics ('lane 0' 0, 8, 16, 24, "
	      "'lane 31' 31)\nset ytics ('32-byte sectors' 0, 'lanes' 1)\nunset key\n"
	      "set border 1\nset tics nomirror\n", s);

	long long stride = r.n_sectors > 1 ? (long long)(r.sector[1] - r.sector[0]) * 32 : 0;
	for (int k = 2; k < r.n_sectors; k++)
		if ((long long)(r.sector[k] - r.sector[k - 1]) * 32 != stride)
			stride = -1;
	if (r.n_sectors > 1 && stride > 0)
		snprintf(note, sizeof(note), "sectors in address order, each %lld bytes after "
					     "the last", stride);
	else
		snprintf(note, sizeof(note), "sectors in address order");
	snprintf(title, sizeof(title), "%s: %d lanes, %d-byte words, %d sectors",
		 r.given ? "given by the skeleton" : "your kernel", r.n_active, r.bytes, r.n_sectors);
	warp_panel(s, title, r.active, r.lane_sector, r.n_sectors, note, r.given);
	if (!coalesced) {
		snprintf(title, sizeof(title),
			 "coalesced: consecutive lanes, consecutive words, %d sectors",
			 (WARP * r.bytes + 31) / 32);
		int all[WARP];
		for (int l = 0; l < WARP; l++)
			all[l] = 1;
		warp_panel(s, title, all, ideal_sector, (WARP * r.bytes + 31) / 32,
			   "each sector holds 32 bytes: one request, as few sectors as the bytes need", 0);
	}
	fputs("unset multiplot\n", s);
	return plot_end(&p, msg, msglen);
}
