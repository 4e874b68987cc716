/* Charts: real gnuplot output, the skip path, hostile names, no half-written files.
 * gnuplot is optional: where it is not installed, the tests that draw with it
 * are skipped, saying so; the skip path and the failures are tested anyway. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "chart/chart.h"
#include "chart/gnuplot.h"
#include "steps/grade.h"
#include "sys/kit_paths.h"
#include "chart_fixture.h"
#include "test_support.h"

TestSuite(chart, .init = chart_setup, .fini = chart_teardown, .timeout = 60);

/* Runs f with stdout going to a file; returns what it printed. */
static char *capture_stdout(int (*f)(void), int *rc)
{
	char path[128];
	snprintf(path, sizeof(path), "%s/stdout", fx.dir);
	fflush(stdout);
	int saved = dup(1);
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	cr_assert_geq(fd, 0);
	dup2(fd, 1);
	close(fd);
	*rc = f();
	fflush(stdout);
	dup2(saved, 1);
	close(saved);
	size_t len;
	char *out = slurp(path, &len);
	unlink(path);
	return out;
}

Test(chart, plot_kinds)
{
	enum plot_kind k = PLOT_NONE;
	cr_assert_eq(plot_kind_parse("png", &k), 0);
	cr_assert_eq(k, PLOT_PNG);
	cr_assert_eq(plot_kind_parse("svg", &k), 0);
	cr_assert_eq(k, PLOT_SVG);
	cr_assert_eq(plot_kind_parse("TERM", &k), 0);
	cr_assert_eq(k, PLOT_TERM);
	cr_assert_eq(plot_kind_parse("none", &k), 0);
	cr_assert_eq(k, PLOT_NONE);
	cr_assert_eq(plot_kind_parse("jpeg", &k), -1);
	cr_assert_eq(plot_kind_parse("", &k), -1);
	cr_assert_eq(k, PLOT_NONE, "a bad kind changed *k");
	cr_assert_str_eq(plot_kind_name(PLOT_SVG), "svg");
}

Test(chart, gnuplot_is_found_on_path_or_through_GNUPLOT)
{
	unsetenv("GNUPLOT");
	int installed = system("command -v gnuplot >/dev/null 2>&1") == 0;
	cr_assert_eq(gnuplot_available(), installed, "gnuplot is%s on PATH", installed ? "" : " not");
	setenv("GNUPLOT", "/nonexistent/gnuplot", 1);
	cr_assert_eq(gnuplot_available(), 0);
	setenv("GNUPLOT", "/bin/sh", 1);
	cr_assert_eq(gnuplot_available(), 1);
	unsetenv("GNUPLOT");
	setenv("PATH", fx.dir, 1);		/* an empty folder */
	cr_assert_eq(gnuplot_available(), 0);
}

Test(chart, bandwidth_as_a_real_png)
{
	need_gnuplot();
	cr_assert_eq(chart_bandwidth(&fx.g, PLOT_PNG, fx.dir, fx.msg, sizeof(fx.msg)), 0,
		  "%s", fx.msg);
	char want[600];
	snprintf(want, sizeof(want), "chart: %s/lab3-bandwidth.png", fx.dir);
	cr_assert_str_eq(fx.msg, want);
	assert_png(in_dir("lab3-bandwidth.png"));
	cr_assert_eq(entries(fx.dir), 1, "a temporary was left behind");
}

Test(chart, bandwidth_as_svg_names_lab_device_and_shapes)
{
	need_gnuplot();
	cr_assert_eq(chart_bandwidth(&fx.g, PLOT_SVG, fx.dir, fx.msg, sizeof(fx.msg)), 0,
		  "%s", fx.msg);
	size_t len;
	char *svg = slurp(in_dir("lab3-bandwidth.svg"), &len);
	cr_assert_not_null(svg);
	cr_assert_not_null(strstr(svg, "<svg"));
	cr_assert_not_null(strstr(svg, "lab3 (Coalesced matrix transpose): effective bandwidth "
				       "on NVIDIA H100 80GB HBM3"));
	cr_assert_not_null(strstr(svg, "16384x16384"));
	cr_assert_not_null(strstr(svg, "your kernel"));
	cr_assert_not_null(strstr(svg, "reference solution"));
	cr_assert_not_null(strstr(svg, "copy ceiling"));
	cr_assert_not_null(strstr(svg, "92% of copy"), "the label at the largest size");
}

static int draw_bandwidth_term(void)
{
	return chart_bandwidth(&fx.g, PLOT_TERM, fx.dir, fx.msg, sizeof(fx.msg));
}

Test(chart, bandwidth_on_the_terminal)
{
	need_gnuplot();
	int rc;
	unsetenv("COLUMNS");
	char *out = capture_stdout(draw_bandwidth_term, &rc);
	cr_assert_eq(rc, 0, "%s", fx.msg);
	cr_assert_str_eq(fx.msg, "chart: bandwidth, drawn above");
	cr_assert_not_null(strstr(out, "effective bandwidth on NVIDIA H100"), "%s", out);
	cr_assert_not_null(strstr(out, "1024x1024"), "%s", out);
	/* Not a terminal: 100 columns. */
	size_t widest = 0;
	for (char *l = out; *l; l += strcspn(l, "\n") + (l[strcspn(l, "\n")] != 0)) {
		size_t n = strcspn(l, "\n");
		if (n > widest)
			widest = n;
	}
	cr_assert_eq(widest, 100, "%zu columns", widest);
	cr_assert_null(strchr(out, '\f'), "a form feed on the terminal");
	cr_assert_eq(entries(fx.dir), 0, "a terminal chart wrote a file");
}

Test(chart, skipped_when_gnuplot_is_missing)
{
	setenv("GNUPLOT", "/nonexistent/gnuplot", 1);
	cr_assert_eq(chart_bandwidth(&fx.g, PLOT_PNG, fx.dir, fx.msg, sizeof(fx.msg)), CHART_NONE_DRAWN);
	cr_assert_eq(strncmp(fx.msg, "charts skipped: ", 16), 0, "%s", fx.msg);
	cr_assert_eq(chart_histogram("t", "x", (double[]){1, 2}, 2, 1, PLOT_PNG,
				     in_dir("h.png"), fx.msg, sizeof(fx.msg)), CHART_NONE_DRAWN);
	cr_assert_eq(entries(fx.dir), 0);

	unsetenv("GNUPLOT");
	setenv("PATH", fx.dir, 1);
	cr_assert_eq(chart_active_threads(NULL, PLOT_PNG, fx.dir, fx.msg, sizeof(fx.msg)), CHART_NONE_DRAWN);
	cr_assert_str_eq(fx.msg, "charts skipped: gnuplot is not installed (apt-get install gnuplot-nox)");
	cr_assert_eq(entries(fx.dir), 0);
}

Test(chart, skipped_for_plot_none_and_without_figures)
{
	cr_assert_eq(chart_bandwidth(&fx.g, PLOT_NONE, fx.dir, fx.msg, sizeof(fx.msg)), CHART_NONE_DRAWN);
	fx.g.n_bench = 0;
	cr_assert_eq(chart_bandwidth(&fx.g, PLOT_PNG, fx.dir, fx.msg, sizeof(fx.msg)), CHART_SKIPPED);
	cr_assert_not_null(strstr(fx.msg, "skipped"), "%s", fx.msg);
	cr_assert_eq(chart_coalescing(&fx.g, PLOT_PNG, fx.dir, fx.msg, sizeof(fx.msg)), CHART_SKIPPED);
	cr_assert_not_null(strstr(fx.msg, "skipped"), "%s", fx.msg);
	cr_assert_eq(entries(fx.dir), 0);
}

/* gnuplot fails: the good chart already there stays, and no temporary. */
Test(chart, a_failed_chart_never_replaces_a_good_one)
{
	FILE *f = fopen(in_dir("lab3-bandwidth.png"), "w");
	fputs("the good chart", f);
	fclose(f);
	setenv("GNUPLOT", "/bin/false", 1);
	cr_assert_eq(chart_bandwidth(&fx.g, PLOT_PNG, fx.dir, fx.msg, sizeof(fx.msg)), -1);
	cr_assert_not_null(strstr(fx.msg, "failed"), "%s", fx.msg);
	size_t len;
	cr_assert_str_eq(slurp(in_dir("lab3-bandwidth.png"), &len), "the good chart");
	cr_assert_eq(entries(fx.dir), 1);
}

/* A gnuplot that reads its script and then writes half a chart and dies. */
Test(chart, a_chart_half_written_by_a_crash_is_discarded)
{
	const char *fake = in_dir("fake-gnuplot");
	FILE *f = fopen(fake, "w");
	/* The output file is the last quoted word of the "set output" line. */
	fputs("#!/bin/sh\nout=$(sed -n \"s/^set output '\\(.*\\)'$/\\1/p\")\n"
	      "printf 'half' > \"$out\" && touch \"$(dirname \"$out\")/../seen\"\n"
	      "kill -9 $$\n", f);
	fclose(f);
	chmod(fake, 0755);
	char charts[128];
	snprintf(charts, sizeof(charts), "%s/charts", fx.dir);
	mkdir(charts, 0777);
	setenv("GNUPLOT", fake, 1);
	cr_assert_eq(chart_bandwidth(&fx.g, PLOT_PNG, charts, fx.msg, sizeof(fx.msg)), -1);
	cr_assert_not_null(strstr(fx.msg, "signal 9"), "%s", fx.msg);
	cr_assert_eq(access(in_dir("seen"), F_OK), 0, "the fake gnuplot did not write");
	cr_assert_eq(entries(charts), 0, "the half-written chart stayed");
}

/* A student's folder with quotes, a backquote command and a macro in its
 * name; and a device name that tries the same. Neither may run anything. */
Test(chart, hostile_names_are_only_names)
{
	need_gnuplot();
	char out_dir[256], canary[96], hostile[512];
	snprintf(canary, sizeof(canary), "%s/ran", fx.dir);
	snprintf(out_dir, sizeof(out_dir), "%s/it's \"my\" `touch %s` @x $HOME", fx.dir, canary);
	snprintf(fx.g.device, sizeof(fx.g.device), "GPU' `touch %s` '\\", canary);
	cr_assert_eq(chart_bandwidth(&fx.g, PLOT_PNG, out_dir, fx.msg, sizeof(fx.msg)), 0,
		  "%s", fx.msg);
	snprintf(hostile, sizeof(hostile), "%s/lab3-bandwidth.png", out_dir);
	assert_png(hostile);
	cr_assert_neq(access(canary, F_OK), 0, "a backquote in a name ran a command");
	cr_assert_eq(entries(out_dir), 1);

	snprintf(hostile, sizeof(hostile), "%s/line\nbreak.png", fx.dir);
	cr_assert_eq(chart_histogram("t", "x", (double[]){1}, 1, 1, PLOT_PNG, hostile, fx.msg,
				     sizeof(fx.msg)), -1);
}

Test(chart, histogram_of_a_class)
{
	need_gnuplot();
	double scores[] = {100, 95, 87.5, 40, NAN, 62.5, 77, 100, 0};
	cr_assert_eq(chart_histogram("lab3 scores", "score (of 100)", scores, 9, 10, PLOT_PNG,
				     in_dir("class/lab3-scores.png"), fx.msg, sizeof(fx.msg)), 0,
					  "%s", fx.msg);
	assert_png(in_dir("class/lab3-scores.png"));
	cr_assert_eq(chart_histogram("lab3 scores", "score (of 100)", scores, 9, 10, PLOT_SVG,
				     in_dir("s.svg"), fx.msg, sizeof(fx.msg)), 0, "%s", fx.msg);
	size_t len;
	char *svg = slurp(in_dir("s.svg"), &len);
	cr_assert_not_null(strstr(svg, "lab3 scores (n = 8, median 82.2)"), "the NaN left out");
	cr_assert_not_null(strstr(svg, "score (of 100)"));

	cr_assert_eq(chart_histogram("t", "x", scores, 0, 10, PLOT_PNG, in_dir("e.png"), fx.msg,
				     sizeof(fx.msg)), 1);
	cr_assert_eq(chart_histogram("t", "x", scores, 9, 0, PLOT_PNG, in_dir("z.png"), fx.msg,
				     sizeof(fx.msg)), -1);
	cr_assert_eq(chart_histogram("t", "x", (double[]){0, 1e12}, 2, 1, PLOT_PNG,
				     in_dir("w.png"), fx.msg, sizeof(fx.msg)), -1, "a billion bins");
	cr_assert_eq(access(in_dir("e.png"), F_OK), -1);
}

/* Lab 4's sweep, as the grader records it from a GPU run. */
static void add_sweep(struct grade *gr)
{
	json_t *sweep = json_array();
	const double pts[][2] = { { 12.5, 20.6 }, { 25, 37.6 }, { 50, 62.7 }, { 100, 80.3 } };
	for (size_t i = 0; i < sizeof(pts) / sizeof(pts[0]); i++)
		json_array_append_new(sweep, json_pack("{s:f, s:f}", "occupancy_pct", pts[i][0],
						       "percent_of_copy", pts[i][1]));
	gr->sweep.points = sweep;
	gr->perf.occupancy_pct = 12.5;
	gr->perf.measured = 1;
	gr->perf.percent_of_copy = 20.6;
}

Test(chart, occupancy_sweep_as_svg)
{
	need_gnuplot();
	cr_assert_eq(chart_occupancy(&fx.g, PLOT_SVG, fx.dir, fx.msg, sizeof(fx.msg)), 1,
		     "no sweep, no chart");
	cr_assert(strstr(fx.msg, "no sweep was measured"), "%s", fx.msg);
	add_sweep(&fx.g);
	cr_assert_eq(chart_occupancy(&fx.g, PLOT_SVG, fx.dir, fx.msg, sizeof(fx.msg)), 0,
		  "%s", fx.msg);
	size_t len;
	char *svg = slurp(in_dir("lab3-occupancy.svg"), &len);
	cr_assert_not_null(svg);
	cr_assert_not_null(strstr(svg, "bandwidth against occupancy on NVIDIA H100 80GB HBM3"));
	cr_assert_not_null(strstr(svg, "stream_scale() as graded"));
	cr_assert_not_null(strstr(svg, "copy ceiling"));
	cr_assert_eq(chart_occupancy(&fx.g, PLOT_PNG, fx.dir, fx.msg, sizeof(fx.msg)), 0,
		  "%s", fx.msg);
	assert_png(in_dir("lab3-occupancy.png"));
}
