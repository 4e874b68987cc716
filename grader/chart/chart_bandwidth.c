/* Bandwidth against problem size (see chart.h). */
#include "chart/chart.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chart/gnuplot.h"

static int by_elements(const void *a, const void *b)
{
	const struct bench_point *x = *(const struct bench_point *const *)a;
	const struct bench_point *y = *(const struct bench_point *const *)b;
	size_t ex = shape_elements(&x->shape), ey = shape_elements(&y->shape);
	return (ex > ey) - (ex < ey);
}

int chart_bandwidth(const struct grade *g, enum plot_kind kind, const char *out_dir, char *msg,
		    size_t msglen)
{
	const struct bench_point *rows[GRADE_MAX_BENCH];
	int n = 0, has[3] = {0, 0, 0};
	char path[PATH_MAX], label[64];
	struct plot p;

	for (int i = 0; i < g->n_bench && i < GRADE_MAX_BENCH; i++) {
		const struct bench_point *b = &g->bench[i];
		if (shape_elements(&b->shape) == 0)
			continue;
		rows[n++] = b;
		has[0] |= b->student_gbps >= 0;
		has[1] |= b->reference_gbps >= 0;
		has[2] |= b->copy_gbps >= 0;
	}
	if (!has[0] && !has[1] && !has[2]) {
		snprintf(msg, msglen, "bandwidth chart skipped: no bandwidth was measured "
				      "(that needs a GPU)");
		return 1;
	}
	/* Something to draw, and nothing can draw it: said once (chart.h). */
	if (plot_skipped(kind, msg, msglen))
		return CHART_NONE_DRAWN;
	qsort(rows, n, sizeof(rows[0]), by_elements);

	chart_path(path, sizeof(path), out_dir, g, "chart", "bandwidth", kind);
	if (plot_begin(&p, kind, "bandwidth", path, 1000, 600, 1, msg, msglen) != 0)
		return -1;
	FILE *s = p.s;
	char lab[200] = "";
	if (g->lab)
		snprintf(lab, sizeof(lab), "%s (%s): ", g->lab->id, g->lab->title ? g->lab->title : "");
	fputs("set title ", s);
	gp_strf(s, "%seffective bandwidth on %s", lab, g->device[0] ? g->device : "this device");
	fputs("\nset xlabel ", s);
	gp_str(s, g->lab && g->lab->rank == 2 ? "matrix size, rows x cols (log scale of the element count)"
					      : "n, elements (log scale)");
	fputs("\nset ylabel 'effective bandwidth, GB/s (bytes read and written / time)'\n", s);
	fputs("set logscale x 2\nset grid\nset key left top box opaque\nset yrange [0:*]\n"
	      "set offsets graph 0.04, graph 0.04, graph 0.08, 0\n"
	      "set datafile missing '?'\nset xtics (", s);
	/* A shape within a factor 1.4 of the last labelled one gets a tic
	 * but no label: 2048x2048 and 4097x1023 would print on each other. */
	for (int i = 0, last = -1; i < n; i++) {
		size_t e = shape_elements(&rows[i]->shape);
		int crowded = last >= 0 && e < 1.4 * shape_elements(&rows[last]->shape);
		fprintf(s, "%s", i ? ", " : "");
		gp_str(s, crowded ? "" : shape_format(&rows[i]->shape, label, sizeof(label)));
		fprintf(s, " %zu", e);
		if (!crowded)
			last = i;
	}
	fputs(")\n", s);
	if (kind != PLOT_TERM)
		fputs("set xtics rotate by 30 right\n", s);

	/* The student's distance from the ceiling, at the largest size where
	 * both were measured: the number the performance points come from. */
	for (int i = n - 1; i >= 0; i--) {
		const struct bench_point *b = rows[i];
		if (b->student_gbps >= 0 && b->copy_gbps > 0) {
			fputs("set label ", s);
			gp_strf(s, "%.0f%% of copy", 100 * b->student_gbps / b->copy_gbps);
			fprintf(s, " at %zu, %.6g right offset -1, 1\n", shape_elements(&b->shape),
				b->student_gbps);
			break;
		}
	}

	fputs("$bw << EOD\n", s);
	for (int i = 0; i < n; i++) {
		fprintf(s, "%zu", shape_elements(&rows[i]->shape));
		put_value(s, rows[i]->student_gbps);
		put_value(s, rows[i]->reference_gbps);
		put_value(s, rows[i]->copy_gbps);
		fputc('\n', s);
	}
	fputs("EOD\nplot ", s);
	static const char *const series[3] = {
		"using 1:2 with linespoints lw 3 pt 7 ps 1.2 lc rgb '#1f77b4' title 'your kernel'",
		"using 1:3 with linespoints lw 2 pt 5 dt 1 lc rgb '#2ca02c' title 'reference solution'",
		"using 1:4 with linespoints lw 2 pt 1 dt 2 lc rgb '#444444' "
		"title 'copy ceiling (device-to-device cudaMemcpy)'",
	};
	/* A series with no point at all is left out: gnuplot stops at one. */
	for (int k = 0, first = 1; k < 3; k++) {
		if (has[k]) {
			fprintf(s, "%s$bw %s", first ? "" : ", ", series[k]);
			first = 0;
		}
	}
	fputc('\n', s);
	return plot_end(&p, msg, msglen);
}
