/* The charts of the student's own kernel, from the emulator's analysis:
 * active warps per step, and the coalescing of its worst request. gnuplot
 * is optional: where it is not installed, these tests skip, saying so. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "chart/chart.h"
#include "chart_fixture.h"
#include "labs/lab.h"

TestSuite(kernel_chart, .init = chart_setup, .fini = chart_teardown, .timeout = 60);

Test(kernel_chart, active_threads_from_the_handouts)
{
	need_gnuplot();
	cr_assert_eq(chart_active_threads(NULL, PLOT_PNG, fx.dir, fx.msg, sizeof(fx.msg)), 0,
		  "%s", fx.msg);
	assert_png(in_dir("scan-active-threads.png"));
	cr_assert_eq(chart_active_threads(NULL, PLOT_SVG, fx.dir, fx.msg, sizeof(fx.msg)), 0,
		  "%s", fx.msg);
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
	fx.g.lab = lab_find(lab);	/* the chart draws the handout's steps from the lab */
	fx.g.analysis = json_loads(doc, 0, &e);
	cr_assert_not_null(fx.g.analysis, "%s", e.text);
	cr_assert_eq(chart_active_threads(&fx.g, PLOT_SVG, fx.dir, fx.msg, sizeof(fx.msg)), 0,
		  "%s", fx.msg);
	snprintf(name, sizeof(name), "%s-active-threads.svg", lab);
	size_t len;
	char *svg = slurp(in_dir(name), &len);
	cr_assert_not_null(svg, "%s", fx.msg);
	return svg;
}

/* The intervals of one block of lab 2's answer key as the emulator gives
 * them: warps storing to shared memory, the load (interval 0), the up-sweep
 * (1-9), the root (10), the down-sweep (11-19), the store to global (20). */
static const char *const blelloch_intervals =
	"\"intervals\": [{\"warps_shared_store\": 16}, {\"warps_shared_store\": 16}, "
	"{\"warps_shared_store\": 8}, {\"warps_shared_store\": 4}, {\"warps_shared_store\": 2}, "
	"{\"warps_shared_store\": 1}, {\"warps_shared_store\": 1}, {\"warps_shared_store\": 1}, "
	"{\"warps_shared_store\": 1}, {\"warps_shared_store\": 1}, {\"warps_shared_store\": 1}, "
	"{\"warps_shared_store\": 1}, {\"warps_shared_store\": 1}, {\"warps_shared_store\": 1}, "
	"{\"warps_shared_store\": 1}, {\"warps_shared_store\": 1}, {\"warps_shared_store\": 2}, "
	"{\"warps_shared_store\": 4}, {\"warps_shared_store\": 8}, {\"warps_shared_store\": 16}, "
	"{\"warps_shared_store\": 0}]";

static const char *const down_sweep_line =
	"{\"file\": \"scan.cu\", \"line\": %d, \"steps\": [1, 1, 1, 1, 1, 2, 4, 8, 16], "
	"\"interval_indices\": [11, 12, 13, 14, 15, 16, 17, 18, 19], \"total\": 35}";

/* The handout's count, step by step in order: the down-sweep where section
 * 3 puts it (steps 11-19, after the root), one block's 71 warp-steps in
 * the handout's steps (87 with the load step), and the down-sweep's lines
 * with the same steps named once. */
Test(kernel_chart, active_threads_measured_by_the_emulator)
{
	need_gnuplot();
	char doc[4096], down[3][256];
	for (int i = 0; i < 3; i++)
		snprintf(down[i], sizeof(down[i]), down_sweep_line, 122 + i);
	snprintf(doc, sizeof(doc), "{\"totals\": {\"block_scan_launch\": 1}, \"launches\": ["
		 "{\"kernel\": \"add_block_sums\", \"intervals\": [{\"warps_shared_store\": 0}]}, "
		 "{\"kernel\": \"scan_block\", %s, \"active_warps_per_line\": ["
		 "{\"file\": \"scan.cu\", \"line\": 96, \"steps\": [16, 8, 4, 2, 1, 1, 1, 1, 1], "
		 "\"interval_indices\": [1, 2, 3, 4, 5, 6, 7, 8, 9], \"total\": 35}, %s, %s, %s]}]}",
		 blelloch_intervals, down[0], down[1], down[2]);
	char *svg = active_threads_svg("lab2", doc);
	cr_assert_not_null(strstr(svg, "measured by the emulator in your kernel"));
	cr_expect_not_null(strstr(svg, "one block of scan_block (yours), warps storing to shared "
				       "memory: 87 warp-steps (steps 1-19: 71)"));
	cr_expect_not_null(strstr(svg, "line scan.cu:96 (yours): 35 warp-steps (steps 1-9)"));
	cr_expect_not_null(strstr(svg, "line scan.cu:122, 123, 124 (yours): 35 warp-steps each "
				       "(steps 11-19)"));
	cr_expect_not_null(strstr(svg, "handout's Blelloch: 71 warp-steps (steps 1-19)"));
	cr_expect_null(strstr(svg, "add_block_sums"), "not the block scan");
}

/* Occurrences of needle in haystack. */
static int count(const char *haystack, const char *needle)
{
	int n = 0;
	for (const char *p = strstr(haystack, needle); p; p = strstr(p + 1, needle))
		n++;
	return n;
}

/* Lab 1's line that adds keeps 289 warp-steps busy, in the handout's steps
 * 1-10; the block's other lines, which every warp runs, are one series. */
Test(kernel_chart, active_threads_of_hillis_steele_by_line)
{
	need_gnuplot();
	const char *doc = "{\"totals\": {\"block_scan_launch\": 0}, \"launches\": [{\"kernel\": "
		"\"scan_block\", \"intervals\": [{\"warps_shared_store\": 32}, {\"warps_shared_store\": 32}, "
		"{\"warps_shared_store\": 32}, {\"warps_shared_store\": 32}, {\"warps_shared_store\": 32}, "
		"{\"warps_shared_store\": 32}, {\"warps_shared_store\": 32}, {\"warps_shared_store\": 32}, "
		"{\"warps_shared_store\": 32}, {\"warps_shared_store\": 32}, {\"warps_shared_store\": 32}, "
		"{\"warps_shared_store\": 0}], \"active_warps_per_line\": ["
		"{\"file\": \"scan.cu\", \"line\": 69, \"steps\": [32, 32, 32, 32, 32, 32, 32, 32, 32, 32], "
		"\"interval_indices\": [1, 2, 3, 4, 5, 6, 7, 8, 9, 10], \"total\": 320}, "
		"{\"file\": \"scan.cu\", \"line\": 71, \"steps\": [32, 32, 32, 32, 32, 31, 30, 28, 24, 16], "
		"\"interval_indices\": [1, 2, 3, 4, 5, 6, 7, 8, 9, 10], \"total\": 289}, "
		"{\"file\": \"scan.cu\", \"line\": 72, \"steps\": [32, 32, 32, 32, 32, 32, 32, 32, 32, 32], "
		"\"interval_indices\": [1, 2, 3, 4, 5, 6, 7, 8, 9, 10], \"total\": 320}]}]}";
	char *svg = active_threads_svg("lab1", doc);
	cr_expect_eq(count(svg, "line scan.cu:71 (yours): 289 warp-steps (steps 1-10)"), 1);
	cr_expect_eq(count(svg, "line scan.cu:69, 72 (yours): 320 warp-steps each (steps 1-10)"), 1);
	cr_expect_eq(count(svg, "352 warp-steps (steps 1-10: 320)"), 1);
	cr_expect_eq(count(svg, "handout's Hillis-Steele: 289 warp-steps (steps 1-10)"), 1);
	cr_expect_null(strstr(svg, "Blelloch"), "another lab's figure");
}

/* A kernel with no loop of barriers (the skeleton): its block's own
 * barrier intervals, never the handouts' figures in its place. */
Test(kernel_chart, active_threads_of_a_kernel_without_steps_per_line)
{
	need_gnuplot();
	char *svg = active_threads_svg("lab1", "{\"totals\": {\"block_scan_launch\": 1}, \"launches\": "
				"[{\"kernel\": \"add_sums\", \"intervals\": [{\"warps_shared_store\": 4}], "
				"\"active_warps_per_line\": []}, {\"kernel\": \"scan_block\", \"intervals\": "
				"[{\"warps_shared_store\": 32}, {\"warps_shared_store\": 0}], "
				"\"active_warps_per_line\": []}]}");
	cr_expect_not_null(strstr(svg, "one block of scan_block (yours), warps storing to shared "
				       "memory: 32 warp-steps (steps 1-10: 0)"), "the block scan");
	cr_expect_null(strstr(svg, "add_sums"));
	cr_expect_not_null(strstr(svg, "handout's Hillis-Steele"), "the reference line");
	cr_expect_null(strstr(svg, "Blelloch"), "another lab's figure");
}

Test(kernel_chart, active_threads_without_a_measurement_is_skipped)
{
	fx.g.lab = lab_find("lab1");
	cr_assert_eq(chart_active_threads(&fx.g, PLOT_SVG, fx.dir, fx.msg, sizeof(fx.msg)), 1,
		  "%s", fx.msg);
	cr_expect_not_null(strstr(fx.msg, "skipped"), "%s", fx.msg);
	cr_expect_eq(entries(fx.dir), 0, "a chart of the handouts in place of the kernel's");
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

Test(kernel_chart, coalescing_draws_the_worst_request)
{
	need_gnuplot();
	fx.g.analysis = requests();
	cr_assert_eq(chart_coalescing(&fx.g, PLOT_PNG, fx.dir, fx.msg, sizeof(fx.msg)), 0,
		  "%s", fx.msg);
	assert_png(in_dir("lab3-coalescing.png"));
	cr_assert_eq(chart_coalescing(&fx.g, PLOT_SVG, fx.dir, fx.msg, sizeof(fx.msg)), 0,
		  "%s", fx.msg);
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
	fx.g.analysis = json_loads(doc, 0, &e);
	cr_assert_not_null(fx.g.analysis, "%s", e.text);
	cr_assert_eq(chart_coalescing(&fx.g, PLOT_SVG, fx.dir, fx.msg, sizeof(fx.msg)), 0,
		  "%s", fx.msg);
	size_t len;
	char *svg = slurp(in_dir("lab3-coalescing.svg"), &len);
	cr_assert_not_null(svg);
	return svg;
}

/* A request that is already as good as it gets: one panel that says so. */
Test(kernel_chart, coalescing_of_coalesced_code_says_so)
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

Test(kernel_chart, coalescing_counts_only_active_lanes)
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
