/* Charts of the emulator's analysis: active threads per barrier step, and coalescing.
 * gnuplot is optional: where it is not installed, the tests that draw with it
 * are skipped, saying so. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "chart/chart.h"
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

TestSuite(chart_analysis, .init = setup, .fini = teardown, .timeout = 60);

static const char *in_dir(const char *name)
{
	return chart_fixture_path(dir, name);
}

Test(chart_analysis, active_threads_from_the_handouts)
{
	chart_need_gnuplot();
	cr_assert_eq(chart_active_threads(NULL, PLOT_PNG, dir, msg, sizeof(msg)), 0, "%s", msg);
	chart_assert_png(in_dir("scan-active-threads.png"));
	cr_assert_eq(chart_active_threads(NULL, PLOT_SVG, dir, msg, sizeof(msg)), 0, "%s", msg);
	size_t len;
	char *svg = chart_slurp(in_dir("scan-active-threads.svg"), &len);
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
	char *svg = chart_slurp(in_dir(name), &len);
	cr_assert_not_null(svg, "%s", msg);
	return svg;
}

Test(chart_analysis, active_threads_measured_by_the_emulator)
{
	chart_need_gnuplot();
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
Test(chart_analysis, active_threads_names_each_line_once)
{
	chart_need_gnuplot();
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
Test(chart_analysis, active_threads_of_a_kernel_without_steps_per_line)
{
	chart_need_gnuplot();
	char *svg = active_threads_svg("lab1", "{\"launches\": [{\"kernel\": \"add_sums\", "
				"\"intervals\": [{\"warps_any\": 4}], \"active_warps_per_line\": []}, "
				"{\"kernel\": \"scan_block\", \"intervals\": [{\"warps_any\": 32}, "
				"{\"warps_any\": 32}], \"active_warps_per_line\": []}]}");
	cr_expect_not_null(strstr(svg, "kernel scan_block (yours): 64 warp-steps"), "the longest launch");
	cr_expect_null(strstr(svg, "add_sums"));
	cr_expect_not_null(strstr(svg, "handout's Hillis-Steele"), "the reference line");
	cr_expect_null(strstr(svg, "Blelloch"), "another lab's figure");
}

Test(chart_analysis, active_threads_without_a_measurement_is_skipped)
{
	g.lab = lab_find("lab1");
	cr_assert_eq(chart_active_threads(&g, PLOT_SVG, dir, msg, sizeof(msg)), 1, "%s", msg);
	cr_expect_not_null(strstr(msg, "skipped"), "%s", msg);
	cr_expect_eq(chart_entries(dir), 0, "a chart of the handouts in place of the kernel's");
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

Test(chart_analysis, coalescing_draws_the_worst_request)
{
	chart_need_gnuplot();
	g.analysis = requests();
	cr_assert_eq(chart_coalescing(&g, PLOT_PNG, dir, msg, sizeof(msg)), 0, "%s", msg);
	chart_assert_png(in_dir("lab3-coalescing.png"));
	cr_assert_eq(chart_coalescing(&g, PLOT_SVG, dir, msg, sizeof(msg)), 0, "%s", msg);
	size_t len;
	char *svg = chart_slurp(in_dir("lab3-coalescing.svg"), &len);
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
	char *svg = chart_slurp(in_dir("lab3-coalescing.svg"), &len);
	cr_assert_not_null(svg);
	return svg;
}

/* A request that is already as good as it gets: one panel that says so. */
Test(chart_analysis, coalescing_of_coalesced_code_says_so)
{
	chart_need_gnuplot();
	char lanes[1024] = "";
	for (int l = 0; l < 32; l++)
		snprintf(lanes + strlen(lanes), sizeof(lanes) - strlen(lanes), "%s%d", l ? "," : "",
			 4096 + l * 4);
	char *svg = one_request_svg("s.cu", 9, lanes);
	cr_expect_not_null(strstr(svg, "s.cu:9 load: 4 sectors for one warp: already coalesced"));
	cr_expect_null(strstr(svg, "coalesced: consecutive lanes"), "the same pattern drawn twice");
}

Test(chart_analysis, coalescing_counts_only_active_lanes)
{
	chart_need_gnuplot();
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
