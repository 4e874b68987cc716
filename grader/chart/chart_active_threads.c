/* Active threads and warps per step of a block scan (see chart.h). */
#include "chart/chart.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chart/gnuplot.h"

static int sum(const int *v, int n)
{
	int s = 0;
	for (int i = 0; i < n; i++)
		s += v[i];
	return s;
}

/* A datablock of steps: "step value" rows, x shifted by dx so that two
 * series of boxes stand side by side. */
static void put_steps(FILE *s, const char *name, const int *v, int n, double dx)
{
	fprintf(s, "%s << EOD\n", name);
	for (int i = 0; i < n; i++)
		fprintf(s, "%g %d\n", i + 1 + dx, v[i]);
	fputs("EOD\n", s);
}

#define MAX_BOOKS 4

static const char *const book_colours[MAX_BOOKS] = {"#d62728", "#1f77b4", "#2ca02c", "#9467bd"};

/* The handouts' figures of every lab that has them (lab_table order), side
 * by side: active threads above, active warps below. */
static void textbook_panels(FILE *s, const char *title)
{
	const struct scan_steps *book[MAX_BOOKS];
	int n = 0, steps = 1, threads = 32;
	for (int i = 0; lab_table[i] && n < MAX_BOOKS; i++) {
		const struct scan_steps *b = lab_table[i]->handout_steps;
		if (!b)
			continue;
		book[n++] = b;
		steps = b->n > steps ? b->n : steps;
		threads = b->threads_per_block > threads ? b->threads_per_block : threads;
	}
	double width = 0.8 / (n ? n : 1);
	for (int k = 0; k < n; k++) {
		char name[16];
		snprintf(name, sizeof(name), "$t%d", k);
		put_steps(s, name, book[k]->threads, book[k]->n, -0.4 + width * (k + 0.5));
		snprintf(name, sizeof(name), "$w%d", k);
		put_steps(s, name, book[k]->warps, book[k]->n, -0.4 + width * (k + 0.5));
	}
	fputs("set multiplot layout 2,1 title ", s);
	gp_str(s, title);
	fprintf(s, "\nset style fill solid 0.7 border -1\nset boxwidth %g\nset grid ytics\n"
		   "set key right top box opaque\nset xrange [0.3:%d.7]\nset xtics 1 nomirror\n",
		   width, steps);
	/* A scan with a root step between two sweeps: its phases along the top,
	 * so that its V reads as two sweeps. */
	for (int k = 0; k < n; k++) {
		int root = book[k]->root_step;
		if (root <= 0)
			continue;
		fprintf(s, "set x2range [0.3:%d.7]\nset x2tics (", steps);
		gp_strf(s, "%s: up-sweep", book[k]->algorithm);
		fprintf(s, " %d, 'root' %d, 'down-sweep' %d) scale 0\n"
			   "set arrow from %g, graph 0 to %g, graph 1 nohead dt 3 lc rgb '#888888'\n"
			   "set arrow from %g, graph 0 to %g, graph 1 nohead dt 3 lc rgb '#888888'\n",
			root / 2, root, root + (book[k]->n - root + 1) / 2, root - 0.5, root - 0.5,
			root + 0.5, root + 0.5);
		break;
	}
	/* Headroom for the key above the tallest bars. */
	fprintf(s, "set ylabel 'active threads'\nset yrange [0:%d]\nplot ", threads * 3 / 2);
	for (int k = 0; k < n; k++) {
		fprintf(s, "%s$t%d with boxes lc rgb '%s' title ", k ? ", " : "", k, book_colours[k]);
		gp_strf(s, "%s (%s): %d thread-steps", book[k]->algorithm, book[k]->label,
			sum(book[k]->threads, book[k]->n));
	}
	fprintf(s, "\nunset x2tics\nset xlabel 'step (one barrier interval each)'\n"
		   "set ylabel 'active warps'\nset yrange [0:%d]\nplot ", threads / 32 * 3 / 2);
	for (int k = 0; k < n; k++) {
		fprintf(s, "%s$w%d with boxes lc rgb '%s' title ", k ? ", " : "", k, book_colours[k]);
		gp_strf(s, "%s: %d warp-steps", book[k]->algorithm, sum(book[k]->warps, book[k]->n));
	}
	fputs("\nunset multiplot\n", s);
}

#define MAX_SERIES 4
#define MAX_STEPS 64

struct warp_series {
	char name[160];
	int steps[MAX_STEPS];
	int n;
	long total;
};

/* Appends one series read from a JSON array of warp counts. */
static void read_steps(struct warp_series *w, const json_t *steps, const char *key)
{
	json_t *v;
	size_t k;
	w->n = 0;
	w->total = 0;
	json_array_foreach(steps, k, v) {
		int x = (int)analysis_number(key ? json_object_get(v, key) : v, 0, 1 << 20);
		w->total += x;
		if (w->n < MAX_STEPS)
			w->steps[w->n++] = x;
	}
}

static int named(const struct warp_series *w, int n, const char *name)
{
	for (int k = 0; k < n; k++)
		if (strcmp(w[k].name, name) == 0)
			return 1;
	return 0;
}

/* The student's kernel as the emulator measured it: the lines whose
 * active warps change from step to step (active_warps_per_line), each
 * line once however many launches ran it, at most MAX_SERIES. */
static int measured_lines(const json_t *analysis, struct warp_series *out)
{
	json_t *launch, *line;
	size_t i, j;
	int n = 0;

	json_array_foreach(json_object_get(analysis, "launches"), i, launch) {
		json_array_foreach(json_object_get(launch, "active_warps_per_line"), j, line) {
			json_t *steps = json_object_get(line, "steps");
			const char *file = json_string_value(json_object_get(line, "file"));
			char name[160];
			snprintf(name, sizeof(name), "%s:%lld", file ? file : "?",
				 (long long)json_integer_value(json_object_get(line, "line")));
			if (n == MAX_SERIES || !json_is_array(steps) || json_array_size(steps) == 0 ||
			    named(out, n, name))
				continue;
			snprintf(out[n].name, sizeof(out[n].name), "%s", name);
			read_steps(&out[n++], steps, NULL);
		}
	}
	return n;
}

/* Without such lines (a kernel with no loop of barriers, as the skeleton
 * is): the warps active in each barrier interval of the launch with the
 * most intervals, the kernel as a whole. 0 when nothing was traced. */
static int measured_intervals(const json_t *analysis, struct warp_series *out)
{
	json_t *launch, *best = NULL;
	size_t i;
	json_array_foreach(json_object_get(analysis, "launches"), i, launch) {
		json_t *iv = json_object_get(launch, "intervals");
		if (json_is_array(iv) && json_array_size(iv) > 0 &&
		    (!best || json_array_size(iv) > json_array_size(json_object_get(best, "intervals"))))
			best = launch;
	}
	if (!best)
		return 0;
	const char *kernel = json_string_value(json_object_get(best, "kernel"));
	snprintf(out->name, sizeof(out->name), "kernel %s", kernel ? kernel : "?");
	read_steps(out, json_object_get(best, "intervals"), "warps_any");
	return 1;
}

static void measured_panel(FILE *s, const struct grade *g, const struct warp_series *w, int n)
{
	static const char *const colours[MAX_SERIES] = {"#1f77b4", "#ff7f0e", "#9467bd", "#8c564b"};
	const char *id = g->lab ? g->lab->id : "";
	const struct scan_steps *book = g->lab ? g->lab->handout_steps : NULL;
	int maxn = book ? book->n : 0, top = book ? book->threads_per_block / 32 : 1;
	double width = 0.8 / n;

	for (int k = 0; k < n; k++) {
		char name[16];
		snprintf(name, sizeof(name), "$m%d", k);
		put_steps(s, name, w[k].steps, w[k].n, -0.4 + width * (k + 0.5));
		if (w[k].n > maxn)
			maxn = w[k].n;
		for (int i = 0; i < w[k].n; i++)
			if (w[k].steps[i] > top)
				top = w[k].steps[i];
	}
	if (book)
		put_steps(s, "$book", book->warps, book->n, 0);
	fputs("set title ", s);
	gp_strf(s, "%s: active warps per step, measured by the emulator in your kernel", id);
	fprintf(s, "\nset style fill solid 0.7 border -1\nset boxwidth %g\nset grid ytics\n"
		   "set key right top box opaque\nset xrange [0.3:%d.7]\nset xtics 1\n"
		   "set yrange [0:%d]\nset xlabel 'step (one barrier interval each)'\n"
		   "set ylabel 'active warps'\nplot ", width, maxn, top * 3 / 2 + 1);
	for (int k = 0; k < n; k++) {
		fprintf(s, "%s$m%d with boxes lc rgb '%s' title ", k ? ", " : "", k, colours[k]);
		gp_strf(s, "%s (yours): %ld warp-steps", w[k].name, w[k].total);
	}
	if (book) {
		fputs(", $book with histeps lw 2 dt 2 lc rgb '#444444' title ", s);
		gp_strf(s, "handout's %s: %d warp-steps", book->algorithm, sum(book->warps, book->n));
	}
	fputc('\n', s);
}

int chart_active_threads(const struct grade *g, enum plot_kind kind, const char *out_dir,
			 char *msg, size_t msglen)
{
	struct warp_series w[MAX_SERIES];
	char path[PATH_MAX];
	struct plot p;
	int n = 0;

	if (g && g->analysis && (n = measured_lines(g->analysis, w)) == 0)
		n = measured_intervals(g->analysis, w);
	/* A grade's chart shows its own kernel; the handouts' figures alone
	 * are no chart of it. */
	if (g && n == 0) {
		snprintf(msg, msglen, "chart: active threads skipped: the emulator traced no block of "
			 "your kernel (its analysis runs on the emulator backend, for a kernel that ran)");
		return 1;
	}
	if (plot_skipped(kind, msg, msglen))
		return CHART_NONE_DRAWN;
	chart_path(path, sizeof(path), out_dir, g, "scan", "active-threads", kind);
	if (plot_begin(&p, kind, "active threads", path, 1000, n ? 550 : 750, n ? 1 : 2, msg,
		       msglen) != 0)
		return -1;
	if (n)
		measured_panel(p.s, g, w, n);
	else
		textbook_panels(p.s, "Active threads and warps per step, 1024-element block scan "
				     "(the handouts' figures)");
	return plot_end(&p, msg, msglen);
}
