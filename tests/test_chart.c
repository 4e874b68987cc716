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
#include "test_support.h"

static const struct lab lab3 = {
	.id = "lab3", .dir = "lab3-transpose", .file = "transpose.cu",
	.title = "Coalesced matrix transpose", .rank = 2,
};

static struct grade g;
static char dir[64];
static char msg[1024];


static void setup(void)
{
	grade_init(&g, &lab3);
	g.backend = BACKEND_CUDA;
	snprintf(g.device, sizeof(g.device), "NVIDIA H100 80GB HBM3");
	add_bench_point(&g, 16384, 16384, 2765, 2800, 3000);	/* out of order on purpose */
	add_bench_point(&g, 1024, 1024, 300, 350, 600);
	add_bench_point(&g, 4096, 4096, 1900, 2100, 2600);
	add_bench_point(&g, 4097, 1023, 1500, -1, 2300);
	snprintf(dir, sizeof(dir), "/tmp/kit-chart-XXXXXX");
	cr_assert_not_null(mkdtemp(dir));
	msg[0] = '\0';
}

static void teardown(void)
{
	grade_free(&g);
	remove_tree(dir);
}

TestSuite(chart, .init = setup, .fini = teardown, .timeout = 60);

static const char *in_dir(const char *name)
{
	static char buf[4][512];
	static int k;
	k = (k + 1) % 4;
	snprintf(buf[k], sizeof(buf[k]), "%s/%s", dir, name);
	return buf[k];
}

/* The whole file, NUL-terminated; *len its size. */
static char *slurp(const char *path, size_t *len)
{
	static char *buf;
	free(buf);
	buf = NULL;
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	rewind(f);
	buf = malloc(n + 1);
	*len = fread(buf, 1, n, f);
	buf[*len] = '\0';
	fclose(f);
	return buf;
}

/* Files in folder d, "." and ".." aside. */
static int entries(const char *d)
{
	DIR *dd = opendir(d);
	struct dirent *e;
	int n = 0;
	cr_assert_not_null(dd, "%s", d);
	while ((e = readdir(dd)))
		n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
	closedir(dd);
	return n;
}

static void assert_png(const char *path)
{
	size_t len = 0;
	char *png = slurp(path, &len);
	cr_assert_not_null(png, "no file %s", path);
	cr_assert_eq(memcmp(png, "\x89PNG\r\n\x1a\n", 8), 0, "%s is not a PNG", path);
	cr_assert_gt(len, 10000, "%s is only %zu bytes", path, len);
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
	char *out = slurp(path, &len);
	unlink(path);
	return out;
}

/* For a test that draws with the real gnuplot. */
static void need_gnuplot(void)
{
	unsetenv("GNUPLOT");
	if (!gnuplot_available())
		cr_skip_test("gnuplot is not installed here (it is optional: apt-get install gnuplot-nox)");
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
	need_gnuplot();
	cr_assert_eq(chart_bandwidth(&g, PLOT_PNG, dir, msg, sizeof(msg)), 0, "%s", msg);
	char want[600];
	snprintf(want, sizeof(want), "chart: %s/lab3-bandwidth.png", dir);
	cr_assert_str_eq(msg, want);
	assert_png(in_dir("lab3-bandwidth.png"));
	cr_assert_eq(entries(dir), 1, "a temporary was left behind");
}

Test(chart, bandwidth_as_svg_names_lab_device_and_shapes)
{
	need_gnuplot();
	cr_assert_eq(chart_bandwidth(&g, PLOT_SVG, dir, msg, sizeof(msg)), 0, "%s", msg);
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
	return chart_bandwidth(&g, PLOT_TERM, dir, msg, sizeof(msg));
}

Test(chart, bandwidth_on_the_terminal)
{
	need_gnuplot();
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
	cr_assert_eq(entries(dir), 0, "a terminal chart wrote a file");
}

Test(chart, skipped_when_gnuplot_is_missing)
{
	setenv("GNUPLOT", "/nonexistent/gnuplot", 1);
	cr_assert_eq(chart_bandwidth(&g, PLOT_PNG, dir, msg, sizeof(msg)), 1);
	cr_assert_eq(strncmp(msg, "charts skipped: ", 16), 0, "%s", msg);
	cr_assert_eq(chart_histogram("t", "x", (double[]){1, 2}, 2, 1, PLOT_PNG,
				     in_dir("h.png"), msg, sizeof(msg)), 1);
	cr_assert_eq(entries(dir), 0);

	unsetenv("GNUPLOT");
	setenv("PATH", dir, 1);
	cr_assert_eq(chart_active_threads(NULL, PLOT_PNG, dir, msg, sizeof(msg)), 1);
	cr_assert_str_eq(msg, "charts skipped: gnuplot is not installed (apt-get install gnuplot-nox)");
	cr_assert_eq(entries(dir), 0);
}

Test(chart, skipped_for_plot_none_and_without_figures)
{
	cr_assert_eq(chart_bandwidth(&g, PLOT_NONE, dir, msg, sizeof(msg)), 1);
	g.n_bench = 0;
	cr_assert_eq(chart_bandwidth(&g, PLOT_PNG, dir, msg, sizeof(msg)), 1);
	cr_assert_not_null(strstr(msg, "skipped"), "%s", msg);
	cr_assert_eq(chart_coalescing(&g, PLOT_PNG, dir, msg, sizeof(msg)), 1);
	cr_assert_not_null(strstr(msg, "skipped"), "%s", msg);
	cr_assert_eq(entries(dir), 0);
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
	cr_assert_str_eq(slurp(in_dir("lab3-bandwidth.png"), &len), "the good chart");
	cr_assert_eq(entries(dir), 1);
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
	cr_assert_eq(entries(charts), 0, "the half-written chart stayed");
}

/* A student's folder with quotes, a backquote command and a macro in its
 * name; and a device name that tries the same. Neither may run anything. */
Test(chart, hostile_names_are_only_names)
{
	need_gnuplot();
	char out_dir[256], canary[96], hostile[512];
	snprintf(canary, sizeof(canary), "%s/ran", dir);
	snprintf(out_dir, sizeof(out_dir), "%s/it's \"my\" `touch %s` @x $HOME", dir, canary);
	snprintf(g.device, sizeof(g.device), "GPU' `touch %s` '\\", canary);
	cr_assert_eq(chart_bandwidth(&g, PLOT_PNG, out_dir, msg, sizeof(msg)), 0, "%s", msg);
	snprintf(hostile, sizeof(hostile), "%s/lab3-bandwidth.png", out_dir);
	assert_png(hostile);
	cr_assert_neq(access(canary, F_OK), 0, "a backquote in a name ran a command");
	cr_assert_eq(entries(out_dir), 1);

	snprintf(hostile, sizeof(hostile), "%s/line\nbreak.png", dir);
	cr_assert_eq(chart_histogram("t", "x", (double[]){1}, 1, 1, PLOT_PNG, hostile, msg,
				     sizeof(msg)), -1);
}

Test(chart, active_threads_from_the_handouts)
{
	need_gnuplot();
	cr_assert_eq(chart_active_threads(NULL, PLOT_PNG, dir, msg, sizeof(msg)), 0, "%s", msg);
	assert_png(in_dir("scan-active-threads.png"));
	cr_assert_eq(chart_active_threads(NULL, PLOT_SVG, dir, msg, sizeof(msg)), 0, "%s", msg);
	size_t len;
	char *svg = slurp(in_dir("scan-active-threads.svg"), &len);
	cr_assert_not_null(strstr(svg, "Hillis-Steele: 289 warp-steps"));
	cr_assert_not_null(strstr(svg, "Blelloch: 71 warp-steps"));
	cr_assert_not_null(strstr(svg, "9217 thread-steps"));
	cr_assert_not_null(strstr(svg, "2045 thread-steps"));
	cr_assert_null(strstr(svg, "measured"));
}

/* The active-threads chart, as SVG, of lab's grade with analysis doc. */
static char *active_threads_svg(const char *lab, const char *doc)
{
	json_error_t e;
	char name[64];
	g.lab = lab_find(lab);	/* the chart draws the handout's steps from the lab */
	g.analysis = json_loads(doc, 0, &e);
	cr_assert_not_null(g.analysis, "%s", e.text);
	cr_assert_eq(chart_active_threads(&g, PLOT_SVG, dir, msg, sizeof(msg)), 0, "%s", msg);
	snprintf(name, sizeof(name), "%s-active-threads.svg", lab);
	size_t len;
	char *svg = slurp(in_dir(name), &len);
	cr_assert_not_null(svg, "%s", msg);
	return svg;
}

Test(chart, active_threads_measured_by_the_emulator)
{
	need_gnuplot();
	char *svg = active_threads_svg("lab2", "{\"launches\": [{\"active_warps_per_line\": ["
				"{\"file\": \"scan.cu\", \"line\": 57, \"steps\": [16, 8, 4, 2, 1, 1, 1, "
				"1, 1, 1, 1, 1, 1, 1, 1, 2, 4, 8, 16], \"total\": 71}]}]}");
	cr_assert_not_null(strstr(svg, "measured by the emulator in your kernel"));
	cr_assert_not_null(strstr(svg, "scan.cu:57 (yours): 71 warp-steps"));
	cr_assert_not_null(strstr(svg, "Blelloch: 71 warp-steps"), "the handout's, dashed");
}

/* Occurrences of needle in haystack. */
static int count(const char *haystack, const char *needle)
{
	int n = 0;
	for (const char *p = strstr(haystack, needle); p; p = strstr(p + 1, needle))
		n++;
	return n;
}

/* Two launches of one kernel (the solution's block scan and its scan of
 * the block sums): each line of the kernel once in the legend. */
Test(chart, active_threads_names_each_line_once)
{
	need_gnuplot();
	const char *launch = "{\"active_warps_per_line\": [{\"file\": \"scan.cu\", \"line\": 47, "
			     "\"steps\": [32, 32, 31, 30, 28, 24, 16], \"total\": 193}]}";
	char doc[1024];
	snprintf(doc, sizeof(doc), "{\"launches\": [%s, %s]}", launch, launch);
	char *svg = active_threads_svg("lab1", doc);
	cr_expect_eq(count(svg, "scan.cu:47 (yours): 193 warp-steps"), 1);
	cr_expect_eq(count(svg, "handout's Hillis-Steele: 289 warp-steps"), 1);
}

/* A kernel with no loop of barriers (the skeleton): its own barrier
 * intervals, never the handouts' figures in its place. */
Test(chart, active_threads_of_a_kernel_without_steps_per_line)
{
	need_gnuplot();
	char *svg = active_threads_svg("lab1", "{\"launches\": [{\"kernel\": \"add_sums\", "
				"\"intervals\": [{\"warps_any\": 4}], \"active_warps_per_line\": []}, "
				"{\"kernel\": \"scan_block\", \"intervals\": [{\"warps_any\": 32}, "
				"{\"warps_any\": 32}], \"active_warps_per_line\": []}]}");
	cr_expect_not_null(strstr(svg, "kernel scan_block (yours): 64 warp-steps"), "the longest launch");
	cr_expect_null(strstr(svg, "add_sums"));
	cr_expect_not_null(strstr(svg, "handout's Hillis-Steele"), "the reference line");
	cr_expect_null(strstr(svg, "Blelloch"), "another lab's figure");
}

Test(chart, active_threads_without_a_measurement_is_skipped)
{
	g.lab = lab_find("lab1");
	cr_assert_eq(chart_active_threads(&g, PLOT_SVG, dir, msg, sizeof(msg)), 1, "%s", msg);
	cr_expect_not_null(strstr(msg, "skipped"), "%s", msg);
	cr_expect_eq(entries(dir), 0, "a chart of the handouts in place of the kernel's");
}

static const char *naive_store =
	"{\"launches\": [{\"example_requests\": ["
	"{\"file\": \"transpose.cu\", \"line\": 40, \"space\": \"global\", \"kind\": \"load\", "
	"\"bytes\": 4, \"lane_addresses\": [%s]}, "
	"{\"file\": \"transpose.cu\", \"line\": 42, \"space\": \"global\", \"kind\": \"store\", "
	"\"bytes\": 4, \"lane_addresses\": [%s]}]}]}";

static json_t *requests(void)
{
	char load[1024] = "", store[1024] = "", doc[4096];
	for (int l = 0; l < 32; l++) {
		snprintf(load + strlen(load), sizeof(load) - strlen(load), "%s%d", l ? "," : "",
			 1 << 20 | l * 4);
		snprintf(store + strlen(store), sizeof(store) - strlen(store), "%s%d", l ? "," : "",
			 1 << 24 | l * 4096);
	}
	snprintf(doc, sizeof(doc), naive_store, load, store);
	json_error_t e;
	json_t *j = json_loads(doc, 0, &e);
	cr_assert_not_null(j, "%s", e.text);
	return j;
}

Test(chart, coalescing_draws_the_worst_request)
{
	need_gnuplot();
	g.analysis = requests();
	cr_assert_eq(chart_coalescing(&g, PLOT_PNG, dir, msg, sizeof(msg)), 0, "%s", msg);
	assert_png(in_dir("lab3-coalescing.png"));
	cr_assert_eq(chart_coalescing(&g, PLOT_SVG, dir, msg, sizeof(msg)), 0, "%s", msg);
	size_t len;
	char *svg = slurp(in_dir("lab3-coalescing.svg"), &len);
	cr_assert_not_null(strstr(svg, "transpose.cu:42 store: 32 sectors for one warp (ideal: 4)"),
			   "the store (32 sectors), not the load (4)");
	cr_assert_not_null(strstr(svg, "each 4096 bytes after the last"));
}

/* The coalescing chart, as SVG, of one load at file:line whose lanes
 * touch lanes (a JSON list: addresses, null for an inactive lane). */
static char *one_request_svg(const char *file, int line, const char *lanes)
{
	char doc[2048];
	snprintf(doc, sizeof(doc), "{\"launches\": [{\"example_requests\": [{\"file\": \"%s\", "
		 "\"line\": %d, \"kind\": \"load\", \"bytes\": 4, \"lane_addresses\": [%s]}]}]}",
		 file, line, lanes);
	json_error_t e;
	g.analysis = json_loads(doc, 0, &e);
	cr_assert_not_null(g.analysis, "%s", e.text);
	cr_assert_eq(chart_coalescing(&g, PLOT_SVG, dir, msg, sizeof(msg)), 0, "%s", msg);
	size_t len;
	char *svg = slurp(in_dir("lab3-coalescing.svg"), &len);
	cr_assert_not_null(svg);
	return svg;
}

/* A request that is already as good as it gets: one panel that says so. */
Test(chart, coalescing_of_coalesced_code_says_so)
{
	need_gnuplot();
	char lanes[1024] = "";
	for (int l = 0; l < 32; l++)
		snprintf(lanes + strlen(lanes), sizeof(lanes) - strlen(lanes), "%s%d", l ? "," : "",
			 4096 + l * 4);
	char *svg = one_request_svg("s.cu", 9, lanes);
	cr_expect_not_null(strstr(svg, "s.cu:9 load: 4 sectors for one warp: already coalesced"));
	cr_expect_null(strstr(svg, "coalesced: consecutive lanes"), "the same pattern drawn twice");
}

Test(chart, coalescing_counts_only_active_lanes)
{
	need_gnuplot();
	/* Lanes 8..31 inactive (null); the 8 live ones 64 bytes apart. */
	char live[1024] = "";
	for (int l = 0; l < 32; l++) {
		char a[24];
		snprintf(a, sizeof(a), "%d", 4096 + l * 64);
		snprintf(live + strlen(live), sizeof(live) - strlen(live), "%s%s", l ? "," : "",
			 l < 8 ? a : "null");
	}
	char *svg = one_request_svg("t.cu", 7, live);
	cr_assert_not_null(strstr(svg, "t.cu:7 load: 8 sectors for one warp (ideal: 1)"));
}

Test(chart, histogram_of_a_class)
{
	need_gnuplot();
	double scores[] = {100, 95, 87.5, 40, NAN, 62.5, 77, 100, 0};
	cr_assert_eq(chart_histogram("lab3 scores", "score (of 100)", scores, 9, 10, PLOT_PNG,
				     in_dir("class/lab3-scores.png"), msg, sizeof(msg)), 0, "%s", msg);
	assert_png(in_dir("class/lab3-scores.png"));
	cr_assert_eq(chart_histogram("lab3 scores", "score (of 100)", scores, 9, 10, PLOT_SVG,
				     in_dir("s.svg"), msg, sizeof(msg)), 0, "%s", msg);
	size_t len;
	char *svg = slurp(in_dir("s.svg"), &len);
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
	need_gnuplot();
	cr_assert_eq(chart_occupancy(&g, PLOT_SVG, dir, msg, sizeof(msg)), 1, "no sweep, no chart");
	cr_assert(strstr(msg, "no sweep was measured"), "%s", msg);
	add_sweep(&g);
	cr_assert_eq(chart_occupancy(&g, PLOT_SVG, dir, msg, sizeof(msg)), 0, "%s", msg);
	size_t len;
	char *svg = slurp(in_dir("lab3-occupancy.svg"), &len);
	cr_assert_not_null(svg);
	cr_assert_not_null(strstr(svg, "bandwidth against occupancy on NVIDIA H100 80GB HBM3"));
	cr_assert_not_null(strstr(svg, "stream_scale() as graded"));
	cr_assert_not_null(strstr(svg, "copy ceiling"));
	cr_assert_eq(chart_occupancy(&g, PLOT_PNG, dir, msg, sizeof(msg)), 0, "%s", msg);
	assert_png(in_dir("lab3-occupancy.png"));
}
