/* The class histograms of a batch (see chart.h). */
#include "chart/chart.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chart/gnuplot.h"

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

#define MAX_BINS 2000

double chart_histogram_bin(double value, double bin_width, double top)
{
	double top_bin = floor(top / bin_width);
	/* A top that is a positive bin edge closes the bin below it. */
	if (top > 0 && top_bin * bin_width == top)
		top_bin--;
	double bin = floor(value / bin_width);
	return bin < top_bin ? bin : top_bin;
}

int chart_histogram(const char *title, const char *xlabel, const double *values, size_t n,
		    double bin_width, enum plot_kind kind, const char *out_path, char *msg,
		    size_t msglen)
{
	struct plot p;
	size_t m = 0;

	if (plot_skipped(kind, msg, msglen))
		return CHART_NONE_DRAWN;
	if (!(bin_width > 0) || !isfinite(bin_width)) {
		snprintf(msg, msglen, "chart: histogram bin width must be positive, not %g",
			 bin_width);
		return -1;
	}
	double *v = malloc((n ? n : 1) * sizeof(*v));
	if (!v) {
		snprintf(msg, msglen, "chart: out of memory");
		return -1;
	}
	for (size_t i = 0; i < n; i++)
		if (isfinite(values[i]))
			v[m++] = values[i];
	if (m == 0) {
		free(v);
		snprintf(msg, msglen, "histogram skipped: no values for '%s'", title);
		return 1;
	}
	qsort(v, m, sizeof(*v), cmp_double);
	double top = v[m - 1];
	double lo = chart_histogram_bin(v[0], bin_width, top), hi = chart_histogram_bin(top, bin_width, top);
	if (hi - lo + 1 > MAX_BINS) {
		free(v);
		snprintf(msg, msglen, "chart: histogram of '%s' would need more than %d bins of %g",
			 title, MAX_BINS, bin_width);
		return -1;
	}
	double median = m % 2 ? v[m / 2] : (v[m / 2 - 1] + v[m / 2]) / 2;

	if (plot_begin(&p, kind, "histogram", out_path, 900, 550, 1, msg, msglen) != 0) {
		free(v);
		return -1;
	}
	FILE *s = p.s;
	size_t most = 0;
	fputs("$h << EOD\n", s);
	for (size_t i = 0; i < m;) {
		double bin = chart_histogram_bin(v[i], bin_width, top);
		size_t count = 0;
		for (; i < m && chart_histogram_bin(v[i], bin_width, top) == bin; i++)
			count++;
		fprintf(s, "%.10g %zu\n", (bin + 0.5) * bin_width, count);
		if (count > most)
			most = count;
	}
	fputs("EOD\nset title ", s);
	gp_strf(s, "%s (n = %zu, median %.3g)", title, m, median);
	fputs("\nset xlabel ", s);
	gp_str(s, xlabel);
	/* Counts are whole: no 0.5 tics on a small class. */
	if (most <= 10)
		fputs("\nset ytics 1", s);
	fprintf(s, "\nset ylabel 'count'\nset style fill solid 0.7 border -1\n"
		   "set boxwidth %.10g absolute\nset grid ytics\nset yrange [0:%g]\n"
		   "set xrange [%.10g:%.10g]\nunset key\n"
		   "plot $h using 1:2 with boxes lc rgb '#1f77b4'\n",
		   bin_width * 0.95, most + (most < 10 ? 1 : most * 0.1), (lo - 0.5) * bin_width,
		   (hi + 1.5) * bin_width);
	free(v);
	return plot_end(&p, msg, msglen);
}
