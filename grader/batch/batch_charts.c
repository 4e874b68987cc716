/*
 * The class histograms: scores, and bandwidth as a percentage of copy
 * (only students whose speed was measured: a GPU batch). gnuplot draws
 * them (chart.h); without it, or with --plot none, one line says so.
 */
#include "batch/batch.h"

#include <math.h>
#include <stdlib.h>

#include "chart/chart.h"
#include "chart/gnuplot.h"

/* Bins of a round width, about twenty over the range. */
static double bin_width(double range)
{
	static const double steps[] = { 1, 2, 2.5, 5, 10, 20, 25, 50, 100 };
	for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++)
		if (range / steps[i] <= 20)
			return steps[i];
	return ceil(range / 20);
}

static void histogram(const struct batch_config *c, enum plot_kind kind, const char *name, const char *title,
		      const char *xlabel, const double *v, size_t n, double width, FILE *log)
{
	char path[PATH_MAX + 64], msg[512];
	snprintf(path, sizeof(path), "%s/%s.%s", c->out_dir, name, kind == PLOT_SVG ? "svg" : "png");
	if (chart_histogram(title, xlabel, v, n, width, kind, path, msg, sizeof(msg)) < 0)
		fprintf(log, "grade: %s\n", msg);
	else
		fprintf(log, "%s\n", msg);
}

void batch_charts(const struct batch_config *c, const struct summary *rows, int n, FILE *log)
{
	char msg[512];
	enum plot_kind kind = c->o->plot == PLOT_SVG ? PLOT_SVG : c->o->plot == PLOT_NONE ? PLOT_NONE
											 : PLOT_PNG;
	if (plot_skipped(kind, msg, sizeof(msg))) {	/* said once for the class's charts */
		fprintf(log, "%s\n", msg);
		return;
	}
	double *score = malloc(sizeof(double) * (size_t)(n + 1));
	double *pct = malloc(sizeof(double) * (size_t)(n + 1));
	size_t ns = 0, np = 0;
	double max = 0;
	for (int i = 0; score && pct && i < n; i++) {
		if (!rows[i].backend[0])
			continue;	/* not graded: no score to count */
		score[ns++] = rows[i].score;
		if (rows[i].max_score > max)
			max = rows[i].max_score;
		if (rows[i].percent_of_copy >= 0)
			pct[np++] = rows[i].percent_of_copy;
	}
	char title[256];
	snprintf(title, sizeof(title), "%s: scores", c->lab->id);
	if (ns)
		histogram(c, kind, "scores", title, "score", score, ns, bin_width(max > 0 ? max : 100), log);
	snprintf(title, sizeof(title), "%s: bandwidth, %% of a device-to-device copy", c->lab->id);
	if (np)
		histogram(c, kind, "bandwidth", title, "% of copy bandwidth", pct, np, 5, log);
	else
		fprintf(log, "bandwidth histogram skipped: no bandwidth was measured%s\n",
			c->backend == BACKEND_EMU ? " (the emulator does not time kernels)" : "");
	free(score);
	free(pct);
}
