/* Lab 4: bandwidth against occupancy (see chart.h). */
#include "chart/chart.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chart/gnuplot.h"

int chart_occupancy(const struct grade *g, enum plot_kind kind, const char *out_dir, char *msg,
		    size_t msglen)
{
	json_t *sweep = g->sweep.points, *pt;
	const struct perf_figures *f = &g->perf;
	char path[PATH_MAX];
	struct plot p;
	size_t i;

	if (json_array_size(sweep) == 0) {
		snprintf(msg, msglen, "occupancy chart skipped: no sweep was measured (that needs a GPU "
				      "and a correct kernel)");
		return 1;
	}
	if (plot_skipped(kind, msg, msglen))
		return CHART_NONE_DRAWN;
	chart_path(path, sizeof(path), out_dir, g, "chart", "occupancy", kind);
	if (plot_begin(&p, kind, "occupancy", path, 1000, 600, 1, msg, msglen) != 0)
		return -1;
	FILE *s = p.s;
	fputs("set title ", s);
	gp_strf(s, "%s: bandwidth against occupancy on %s", g->lab ? g->lab->id : "lab4",
		g->device[0] ? g->device : "this device");
	fputs("\nset xlabel 'occupancy: resident warps / max warps per SM (%)'\n"
	      "set ylabel 'effective bandwidth, % of a device-to-device copy'\n"
	      "set xrange [0:105]\nset yrange [0:110]\nset grid\nset key right bottom box opaque\n"
	      "set arrow from 0,100 to 105,100 nohead dt 2 lc rgb '#444444'\n"
	      "set label 'copy ceiling' at 2,103\n", s);
	fputs("$sweep << EOD\n", s);
	json_array_foreach(sweep, i, pt) {
		put_value(s, json_number_value(json_object_get(pt, "occupancy_pct")));
		put_value(s, json_number_value(json_object_get(pt, "percent_of_copy")));
		fputc('\n', s);
	}
	fputs("EOD\n", s);
	int graded = f->occupancy_pct >= 0 && f->measured;
	if (graded)
		fprintf(s, "$graded << EOD\n%.6g %.6g\nEOD\n", f->occupancy_pct, f->percent_of_copy);
	fputs("plot $sweep using 1:2 with linespoints lw 3 pt 7 ps 1.2 lc rgb '#1f77b4' "
	      "title 'your kernel, with more shared memory per block to lower occupancy'", s);
	if (graded)
		fputs(", $graded using 1:2 with points pt 9 ps 2.5 lc rgb '#d62728' "
		      "title 'stream_scale() as graded' noenhanced", s);
	fputc('\n', s);
	return plot_end(&p, msg, msglen);
}
