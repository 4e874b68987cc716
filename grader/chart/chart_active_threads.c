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

/* A measured series: value[i] warps at step at[i], a step being a barrier
 * interval of one block, numbered from 0 (the interval before the first
 * barrier: with the handouts' kernels, the load step, so that interval k
 * is step k of the handouts' tables). */
struct warp_series {
	char name[160];
	int at[MAX_STEPS], value[MAX_STEPS];
	int n;
	long total;
};

static void put_series(FILE *s, const char *name, const struct warp_series *w)
{
	fprintf(s, "%s << EOD\n", name);
	for (int i = 0; i < w->n; i++)
		fprintf(s, "%d %d\n", w->at[i], w->value[i]);
	fputs("EOD\n", s);
}

/* The launch whose one block the emulator counted (totals.block_scan_launch). */
static const json_t *block_scan(const json_t *analysis)
{
	const json_t *index = json_object_get(json_object_get(analysis, "totals"), "block_scan_launch");
	const json_t *launches = json_object_get(analysis, "launches");
	if (!json_is_integer(index) || json_integer_value(index) < 0)
		return NULL;
	return json_array_get(launches, (size_t)json_integer_value(index));
}

/* The block's warps storing to shared memory, interval by interval. */
static int block_series(const json_t *launch, struct warp_series *w)
{
	const json_t *iv;
	size_t k;
	const char *kernel = json_string_value(json_object_get(launch, "kernel"));
	snprintf(w->name, sizeof(w->name), "one block of %s (yours)",
		 kernel ? kernel : "?");
	w->n = 0;
	w->total = 0;
	json_array_foreach(json_object_get(launch, "intervals"), k, iv) {
		int x = (int)analysis_number(json_object_get(iv, "warps_shared_store"), 0, 1 << 20);
		w->total += x;
		if (w->n < MAX_STEPS) {
			w->at[w->n] = (int)k;
			w->value[w->n++] = x;
		}
	}
	return w->n > 0;
}

/* One line of active_warps_per_line at its steps (interval_indices). */
static void line_series(const json_t *row, struct warp_series *w)
{
	const json_t *steps = json_object_get(row, "steps"), *at = json_object_get(row, "interval_indices");
	const char *file = json_string_value(json_object_get(row, "file"));
	snprintf(w->name, sizeof(w->name), "%s:%lld", file ? file : "?",
		 (long long)json_integer_value(json_object_get(row, "line")));
	w->n = 0;
	w->total = 0;
	for (size_t k = 0; k < json_array_size(steps) && k < json_array_size(at); k++) {
		int x = (int)analysis_number(json_array_get(steps, k), 0, 1 << 20);
		w->total += x;
		if (w->n < MAX_STEPS) {
			w->at[w->n] = (int)analysis_number(json_array_get(at, k), 0, MAX_STEPS);
			w->value[w->n++] = x;
		}
	}
}

static int same_steps(const struct warp_series *a, const struct warp_series *b)
{
	return a->n == b->n && memcmp(a->at, b->at, sizeof(int) * (size_t)a->n) == 0 &&
	       memcmp(a->value, b->value, sizeof(int) * (size_t)a->n) == 0;
}

/* The student's block scan as the emulator measured it, in w[0]: one
 * block's barrier intervals in order; then the lines whose active warps
 * change from step to step (active_warps_per_line), placed at their steps,
 * lines with the same steps in one series ("scan.cu:122, 123"). Returns
 * how many series; 0 when nothing was traced. */
static int measured_series(const json_t *analysis, struct warp_series *w)
{
	const json_t *launch = block_scan(analysis), *row;
	size_t i;
	int n;

	if (!launch || !block_series(launch, &w[0]))
		return 0;
	n = 1;
	json_array_foreach(json_object_get(launch, "active_warps_per_line"), i, row) {
		struct warp_series line;
		int k;
		line_series(row, &line);
		if (line.n == 0)
			continue;
		for (k = 1; k < n && !same_steps(&w[k], &line); k++)
			;
		if (k < n) {
			const char *colon = strrchr(line.name, ':');
			size_t len = strlen(w[k].name);
			snprintf(w[k].name + len, sizeof(w[k].name) - len, ", %s", colon ? colon + 1 : "?");
		} else if (n < MAX_SERIES) {
			w[n++] = line;
		}
	}
	return n;
}

/* "steps 11-19" */
static void step_range(char *buf, size_t len, const struct warp_series *w)
{
	if (w->n == 0)
		snprintf(buf, len, "no step");
	else if (w->at[w->n - 1] - w->at[0] == w->n - 1)
		snprintf(buf, len, "steps %d-%d", w->at[0], w->at[w->n - 1]);
	else
		snprintf(buf, len, "%d steps from %d to %d", w->n, w->at[0], w->at[w->n - 1]);
}

/* The warp-steps of w in the handout's steps 1 .. n. */
static long within(const struct warp_series *w, int n)
{
	long sum = 0;
	for (int i = 0; i < w->n; i++)
		if (w->at[i] >= 1 && w->at[i] <= n)
			sum += w->value[i];
	return sum;
}

static void measured_panel(FILE *s, const struct grade *g, const struct warp_series *w, int n)
{
	static const char *const colours[MAX_SERIES] = {"#1f77b4", "#ff7f0e", "#9467bd", "#8c564b"};
	const char *id = g->lab ? g->lab->id : "";
	const struct scan_steps *book = g->lab ? g->lab->handout_steps : NULL;
	int maxn = book ? book->n : 0, top = book ? book->threads_per_block / 32 : 1;
	char range[64];

	for (int k = 0; k < n; k++) {
		char name[16];
		snprintf(name, sizeof(name), "$m%d", k);
		put_series(s, name, &w[k]);
		for (int i = 0; i < w[k].n; i++) {
			maxn = w[k].at[i] > maxn ? w[k].at[i] : maxn;
			top = w[k].value[i] > top ? w[k].value[i] : top;
		}
	}
	if (book)
		put_steps(s, "$book", book->warps, book->n, 0);
	fputs("set title ", s);
	gp_strf(s, "%s: active warps per step of one block, measured by the emulator in your kernel", id);
	fprintf(s, "\nset style fill solid 0.5 border -1\nset boxwidth 0.7\nset grid ytics\n"
		   "set key right top box opaque\nset xrange [-0.7:%d.7]\nset xtics 1\n"
		   "set yrange [0:%d]\nset xlabel 'step: barrier interval of the block (0: before "
		   "its first barrier)'\nset ylabel 'active warps'\nplot $m0 with boxes lc rgb '%s' title ",
		maxn, top * 2 + 1, colours[0]);
	if (book)
		gp_strf(s, "%s, warps storing to shared memory: %ld warp-steps (steps 1-%d: %ld)",
			w[0].name, w[0].total, book->n, within(&w[0], book->n));
	else
		gp_strf(s, "%s, warps storing to shared memory: %ld warp-steps", w[0].name, w[0].total);
	for (int k = 1; k < n; k++) {
		fprintf(s, ", $m%d with linespoints lw 2 pt 7 lc rgb '%s' title ", k, colours[k]);
		step_range(range, sizeof(range), &w[k]);
		gp_strf(s, "line %s (yours): %ld warp-steps%s (%s)", w[k].name, w[k].total,
			strchr(w[k].name, ',') ? " each" : "", range);
	}
	if (book) {
		fputs(", $book with histeps lw 2 dt 2 lc rgb '#444444' title ", s);
		gp_strf(s, "handout's %s: %d warp-steps (steps 1-%d)", book->algorithm,
			sum(book->warps, book->n), book->n);
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

	if (g && g->analysis)
		n = measured_series(g->analysis, w);
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
	if (plot_begin(&p, kind, "active threads", path, 1000, n ? 650 : 750, n ? 1 : 2, msg,
		       msglen) != 0)
		return -1;
	if (n)
		measured_panel(p.s, g, w, n);
	else
		textbook_panels(p.s, "Active threads and warps per step, 1024-element block scan "
				     "(the handouts' figures)");
	return plot_end(&p, msg, msglen);
}
