/* Charts: real gnuplot output, the skip path, hostile names, no half-written files.
 * gnuplot is optional: where it is not installed, the tests that draw with it
 * are skipped, saying so; the skip path and the failures are tested anyway.
 * The charts of the emulator's analysis are in test_chart_analysis.c. */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "chart/chart.h"
#include "chart/gnuplot.h"
#include "chart_fixture.h"
#include "steps/grade.h"

static struct grade g;
static char dir[64];
static char msg[1024];

static void setup(void)
{
	chart_fixture_setup(&g, dir, sizeof(dir));
	msg[0] = '\0';
}

static void teardown(void)
{
	chart_fixture_teardown(&g, dir);
}

TestSuite(chart, .init = setup, .fini = teardown, .timeout = 60);

static const char *in_dir(const char *name)
{
	return chart_fixture_path(dir, name);
}

/* Runs f with stdout going to a file; returns what it printed. */
static char *capture_stdout(int (*f)(void), int *rc)
{
	char path[128];
	snprintf(path, sizeof(path), "%s/stdout", dir);
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
	char *out = chart_slurp(path, &len);
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
	setenv("PATH", dir, 1);		/* an empty folder */
	cr_assert_eq(gnuplot_available(), 0);
}

Test(chart, bandwidth_as_a_real_png)
{
	chart_need_gnuplot();
	cr_assert_eq(chart_bandwidth(&g, PLOT_PNG, dir, msg, sizeof(msg)), 0, "%s", msg);
	char want[600];
	snprintf(want, sizeof(want), "chart: %s/lab3-bandwidth.png", dir);
	cr_assert_str_eq(msg, want);
	chart_assert_png(in_dir("lab3-bandwidth.png"));
	cr_assert_eq(chart_entries(dir), 1, "a temporary was left behind");
}

Test(chart, bandwidth_as_svg_names_lab_device_and_shapes)
{
	chart_need_gnuplot();
	cr_assert_eq(chart_bandwidth(&g, PLOT_SVG, dir, msg, sizeof(msg)), 0, "%s", msg);
	size_t len;
	char *svg = chart_slurp(in_dir("lab3-bandwidth.svg"), &len);
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
	return chart_bandwidth(&g, PLOT_TERM, dir, msg, sizeof(msg));
}

Test(chart, bandwidth_on_the_terminal)
{
	chart_need_gnuplot();
	int rc;
	unsetenv("COLUMNS");
	char *out = capture_stdout(draw_bandwidth_term, &rc);
	cr_assert_eq(rc, 0, "%s", msg);
	cr_assert_str_eq(msg, "chart: bandwidth, drawn above");
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
	cr_assert_eq(chart_entries(dir), 0, "a terminal chart wrote a file");
}

Test(chart, skipped_when_gnuplot_is_missing)
{
	setenv("GNUPLOT", "/nonexistent/gnuplot", 1);
	cr_assert_eq(chart_bandwidth(&g, PLOT_PNG, dir, msg, sizeof(msg)), 1);
	cr_assert_eq(strncmp(msg, "charts skipped: ", 16), 0, "%s", msg);
	cr_assert_eq(chart_histogram("t", "x", (double[]){1, 2}, 2, 1, PLOT_PNG,
				     in_dir("h.png"), msg, sizeof(msg)), 1);
	cr_assert_eq(chart_entries(dir), 0);

	unsetenv("GNUPLOT");
	setenv("PATH", dir, 1);
	cr_assert_eq(chart_active_threads(NULL, PLOT_PNG, dir, msg, sizeof(msg)), 1);
	cr_assert_str_eq(msg, "charts skipped: gnuplot is not installed (apt-get install gnuplot-nox)");
	cr_assert_eq(chart_entries(dir), 0);
}

Test(chart, skipped_for_plot_none_and_without_figures)
{
	cr_assert_eq(chart_bandwidth(&g, PLOT_NONE, dir, msg, sizeof(msg)), 1);
	g.n_bench = 0;
	cr_assert_eq(chart_bandwidth(&g, PLOT_PNG, dir, msg, sizeof(msg)), 1);
	cr_assert_not_null(strstr(msg, "skipped"), "%s", msg);
	cr_assert_eq(chart_coalescing(&g, PLOT_PNG, dir, msg, sizeof(msg)), 1);
	cr_assert_not_null(strstr(msg, "skipped"), "%s", msg);
	cr_assert_eq(chart_entries(dir), 0);
}

/* gnuplot fails: the good chart already there stays, and no temporary. */
Test(chart, a_failed_chart_never_replaces_a_good_one)
{
	FILE *f = fopen(in_dir("lab3-bandwidth.png"), "w");
	fputs("the good chart", f);
	fclose(f);
	setenv("GNUPLOT", "/bin/false", 1);
	cr_assert_eq(chart_bandwidth(&g, PLOT_PNG, dir, msg, sizeof(msg)), -1);
	cr_assert_not_null(strstr(msg, "failed"), "%s", msg);
	size_t len;
	cr_assert_str_eq(chart_slurp(in_dir("lab3-bandwidth.png"), &len), "the good chart");
	cr_assert_eq(chart_entries(dir), 1);
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
	snprintf(charts, sizeof(charts), "%s/charts", dir);
	mkdir(charts, 0777);
	setenv("GNUPLOT", fake, 1);
	cr_assert_eq(chart_bandwidth(&g, PLOT_PNG, charts, msg, sizeof(msg)), -1);
	cr_assert_not_null(strstr(msg, "signal 9"), "%s", msg);
	cr_assert_eq(access(in_dir("seen"), F_OK), 0, "the fake gnuplot did not write");
	cr_assert_eq(chart_entries(charts), 0, "the half-written chart stayed");
}

/* A student's folder with quotes, a backquote command and a macro in its
 * name; and a device name that tries the same. Neither may run anything. */
Test(chart, hostile_names_are_only_names)
{
	chart_need_gnuplot();
	char out_dir[256], canary[96], hostile[512];
	snprintf(canary, sizeof(canary), "%s/ran", dir);
	snprintf(out_dir, sizeof(out_dir), "%s/it's \"my\" `touch %s` @x $HOME", dir, canary);
	snprintf(g.device, sizeof(g.device), "GPU' `touch %s` '\\", canary);
	cr_assert_eq(chart_bandwidth(&g, PLOT_PNG, out_dir, msg, sizeof(msg)), 0, "%s", msg);
	snprintf(hostile, sizeof(hostile), "%s/lab3-bandwidth.png", out_dir);
	chart_assert_png(hostile);
	cr_assert_neq(access(canary, F_OK), 0, "a backquote in a name ran a command");
	cr_assert_eq(chart_entries(out_dir), 1);

	snprintf(hostile, sizeof(hostile), "%s/line\nbreak.png", dir);
	cr_assert_eq(chart_histogram("t", "x", (double[]){1}, 1, 1, PLOT_PNG, hostile, msg,
				     sizeof(msg)), -1);
}
Test(chart, histogram_of_a_class)
{
	chart_need_gnuplot();
	double scores[] = {100, 95, 87.5, 40, NAN, 62.5, 77, 100, 0};
	cr_assert_eq(chart_histogram("lab3 scores", "score (of 100)", scores, 9, 10, PLOT_PNG,
				     in_dir("class/lab3-scores.png"), msg, sizeof(msg)), 0, "%s", msg);
	chart_assert_png(in_dir("class/lab3-scores.png"));
	cr_assert_eq(chart_histogram("lab3 scores", "score (of 100)", scores, 9, 10, PLOT_SVG,
				     in_dir("s.svg"), msg, sizeof(msg)), 0, "%s", msg);
	size_t len;
	char *svg = chart_slurp(in_dir("s.svg"), &len);
	cr_assert_not_null(strstr(svg, "lab3 scores (n = 8, median 82.2)"), "the NaN left out");
	cr_assert_not_null(strstr(svg, "score (of 100)"));

	cr_assert_eq(chart_histogram("t", "x", scores, 0, 10, PLOT_PNG, in_dir("e.png"), msg,
				     sizeof(msg)), 1);
	cr_assert_eq(chart_histogram("t", "x", scores, 9, 0, PLOT_PNG, in_dir("z.png"), msg,
				     sizeof(msg)), -1);
	cr_assert_eq(chart_histogram("t", "x", (double[]){0, 1e12}, 2, 1, PLOT_PNG,
				     in_dir("w.png"), msg, sizeof(msg)), -1, "a billion bins");
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
	json_object_set_new(gr->metrics, "sweep", sweep);
	json_object_set_new(gr->metrics, "occupancy_pct", json_real(12.5));
	json_object_set_new(gr->metrics, "percent_of_copy", json_real(20.6));
}

Test(chart, occupancy_sweep_as_svg)
{
	chart_need_gnuplot();
	cr_assert_eq(chart_occupancy(&g, PLOT_SVG, dir, msg, sizeof(msg)), 1, "no sweep, no chart");
	cr_assert(strstr(msg, "no sweep was measured"), "%s", msg);
	add_sweep(&g);
	cr_assert_eq(chart_occupancy(&g, PLOT_SVG, dir, msg, sizeof(msg)), 0, "%s", msg);
	size_t len;
	char *svg = chart_slurp(in_dir("lab3-occupancy.svg"), &len);
	cr_assert_not_null(svg);
	cr_assert_not_null(strstr(svg, "bandwidth against occupancy on NVIDIA H100 80GB HBM3"));
	cr_assert_not_null(strstr(svg, "stream_scale() as graded"));
	cr_assert_not_null(strstr(svg, "copy ceiling"));
	cr_assert_eq(chart_occupancy(&g, PLOT_PNG, dir, msg, sizeof(msg)), 0, "%s", msg);
	chart_assert_png(in_dir("lab3-occupancy.png"));
}
