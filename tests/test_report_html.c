/*
 * The HTML report: written whole, self-contained, with every text escaped,
 * and read by a real browser. The browser tests load the page in headless
 * Chromium (installed by make test's dependencies), check the DOM it built
 * (a finding's line is marked, the student's text is not markup) and take a
 * screenshot; where Chromium is missing they say so and check the file alone.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "labs/lab.h"
#include "report/report_html.h"
#include "report/report_html_notes.h"
#include "steps/grade.h"
#include "sys/kit_paths.h"
#include "test_support.h"

static const char source[] =
	"__global__ void k(float *out, const float *in)\n"	/* 1 */
	"{\n"							/* 2 */
	"	__shared__ float t[32];\n"			/* 3 */
	"	t[threadIdx.x] = in[threadIdx.x * 32];\n"	/* 4 */
	"	out[threadIdx.x] = t[31 - threadIdx.x]; // <script>alert(1)</script>\n" /* 5 */
	"}\n";

static const char analysis[] =
	"{\"launches\":[{\"kernel\":\"k\",\"lines\":["
	"{\"file\":\"/tmp/x/student.cu\",\"line\":4,\"space\":\"global\",\"kind\":\"load\","
	"\"requests\":8,\"sectors\":256,\"sectors_per_request\":32.0},"
	"{\"file\":\"student.cu\",\"line\":5,\"space\":\"shared\",\"kind\":\"load\","
	"\"requests\":8,\"wavefronts\":8,\"wavefronts_per_request\":1.0}],"
	"\"races\":[{\"kind\":\"RAW\",\"scope\":\"inter-warp\",\"space\":\"shared\","
	"\"first\":{\"file\":\"student.cu\",\"line\":4},\"second\":{\"file\":\"student.cu\",\"line\":5},"
	"\"count\":96}],"
	"\"uninit_shared_reads\":[{\"file\":\"other.cu\",\"line\":5,\"count\":3}]}],"
	"\"warnings\":[]}";

static char dir[256], src_path[512], page[512];

static void make_grade(struct grade *g)
{
	json_error_t e;

	grade_init(g, lab_find("lab3"));
	snprintf(g->submission, sizeof g->submission, "%s", src_path);
	snprintf(g->device, sizeof g->device, "CPU emulator");
	g->backend = BACKEND_EMU;
	g->seed = 42;
	add_graded_test(g, "correctness 1x1", GROUP_CORRECTNESS, TEST_PASSED, 5, 5, "");
	add_graded_test(g, "correctness 33x31", GROUP_CORRECTNESS, TEST_FAILED, 0, 5,
			"first wrong element is out[0][1] <b>bold</b> & more");
	grade_keep_source(g, src_path);
	g->analysis = json_loads(analysis, 0, &e);
	cr_assert_not_null(g->analysis, "%s", e.text);
}

static void setup(void)
{
	test_temp_dir(dir, sizeof dir, "html");
	snprintf(src_path, sizeof src_path, "%s/student.cu", dir);
	snprintf(page, sizeof page, "%s/report.html", dir);
	test_write_file(src_path, source);
}

static void teardown(void)
{
	remove_tree(dir);
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	cr_assert_not_null(f, "cannot open %s", path);
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	rewind(f);
	char *s = malloc((size_t)n + 1);
	cr_assert_eq(fread(s, 1, (size_t)n, f), (size_t)n);
	s[n] = '\0';
	fclose(f);
	return s;
}

static void write_page(void)
{
	struct grade g;
	char err[256] = "";

	make_grade(&g);
	cr_assert_eq(report_html_write(&g, NULL, 0, page, err, sizeof err), 0, "%s", err);
	grade_free(&g);
}

TestSuite(report_html, .init = setup, .fini = teardown);

Test(report_html, notes_gather_each_line_of_the_students_file)
{
	json_error_t e;
	json_t *a = json_loads(analysis, 0, &e);
	struct line_notes n;

	cr_assert_eq(line_notes_collect(a, "student.cu", &n), 0);
	cr_assert_eq(n.n, 4, "two figures, the race at both ends; other.cu's read left out: %d", n.n);
	cr_assert_eq(n.v[0].line, 4);
	cr_assert_eq(n.v[0].kind, NOTE_FINDING, "a finding is listed before its line's figures");
	cr_assert(strstr(n.v[1].text, "32.0 sectors per request") && strstr(n.v[1].text, "not coalesced"),
		  "%s", n.v[1].text);
	cr_assert(strstr(n.v[2].text, "race (RAW") && strstr(n.v[2].text, "line 4"), "%s", n.v[2].text);
	line_notes_free(&n);
	json_decref(a);
}

/* A line's active warps are noted at the steps of the block where it runs,
 * as the chart places them: a down-sweep after the up-sweep and the root. */
Test(report_html, a_lines_active_warps_say_at_which_steps)
{
	json_error_t e;
	json_t *a = json_loads("{\"launches\":[{\"kernel\":\"scan_block\",\"active_warps_per_line\":["
			       "{\"file\":\"student.cu\",\"line\":5,\"steps\":[1,1,1,1,1,2,4,8,16],"
			       "\"interval_indices\":[11,12,13,14,15,16,17,18,19],\"total\":35}]}]}", 0, &e);
	struct line_notes n;

	cr_assert_not_null(a, "%s", e.text);
	cr_assert_eq(line_notes_collect(a, "student.cu", &n), 0);
	cr_assert_eq(n.n, 1);
	cr_expect_str_eq(n.v[0].text, "scan_block: active warps 1 1 1 1 1 2 4 8 16 in steps 11-19 of one "
				      "block (35 warp-steps)");
	line_notes_free(&n);
	json_decref(a);
}

Test(report_html, page_is_whole_self_contained_and_escaped)
{
	write_page();
	char *html = slurp(page);
	cr_assert(strstr(html, "<tr id=\"L5\" class=\"finding\">"), "the race's line is marked");
	cr_assert(strstr(html, "<tr id=\"L4\" class=\"finding\">"));
	cr_assert(strstr(html, "<tr id=\"L3\">"), "a line with nothing to say is plain");
	cr_assert_null(strstr(html, "<script"), "the student's text is never markup");
	cr_assert(strstr(html, "&lt;script&gt;alert(1)&lt;/script&gt;"));
	cr_assert(strstr(html, "&lt;b&gt;bold&lt;/b&gt; &amp; more"), "messages are escaped");
	cr_assert_null(strstr(html, "http://"), "nothing is loaded from anywhere");
	cr_assert_null(strstr(html, "https://"));
	free(html);
}

Test(report_html, a_chart_is_embedded_as_an_image)
{
	char svg[600], err[256] = "";
	struct grade g;

	snprintf(svg, sizeof svg, "%s/lab3-bandwidth.svg", dir);
	test_write_file(svg, "<svg xmlns=\"http://www.w3.org/2000/svg\"><script>x()</script></svg>");
	make_grade(&g);
	const char *svgs[] = { svg, "/nonexistent/chart.svg" };
	cr_assert_eq(report_html_write(&g, svgs, 2, page, err, sizeof err), 0, "%s", err);
	grade_free(&g);
	char *html = slurp(page);
	cr_assert(strstr(html, "src=\"data:image/svg+xml;base64,PHN2ZyB4bWxucz0i"),
		  "the SVG travels inside the page, as base64 behind <img>");
	cr_assert_null(strstr(html, "x()"), "the chart's script is not in the page's markup");
	const char *img = strstr(html, "<img");
	cr_assert_not_null(img);
	cr_assert_null(strstr(img + 1, "<img"), "one image: the missing chart is left out");
	free(html);
}

Test(report_html, an_unwritable_place_leaves_nothing_and_says_why)
{
	struct grade g;
	char err[256] = "";

	make_grade(&g);
	cr_assert_eq(report_html_write(&g, NULL, 0, "/nonexistent/dir/r.html", err, sizeof err), -1);
	cr_assert(strstr(err, "/nonexistent/dir"), "%s", err);
	grade_free(&g);
}

/* Chromium's path, or NULL with the reason printed. */
static const char *chromium(void)
{
	static const char *names[] = { "/usr/bin/chromium", "/usr/bin/chromium-browser",
				       "/usr/bin/google-chrome" };
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
		if (access(names[i], X_OK) == 0)
			return names[i];
	return NULL;
}

Test(report_html, chromium_marks_the_finding_and_draws_the_page)
{
	const char *browser = chromium();
	char cmd[8192], dom[600], shot[600];

	if (!browser)
		cr_skip_test("headless Chromium is not installed (apt-get install chromium): "
			     "the page was checked as a file only");
	write_page();
	snprintf(dom, sizeof dom, "%s/dom.html", dir);
	snprintf(shot, sizeof shot, "%s/shot.png", dir);
	/* --no-sandbox: the tests run as root, where Chromium's own sandbox
	 * refuses to start; the page has no script and loads nothing. */
	snprintf(cmd, sizeof cmd,
		 "cd '%s' && HOME='%s' timeout 60 '%s' --headless --no-sandbox --disable-gpu "
		 "--user-data-dir='%s/profile' --dump-dom 'file://%s' >'%s' 2>/dev/null && "
		 "HOME='%s' timeout 60 '%s' --headless --no-sandbox --disable-gpu --user-data-dir='%s/profile' "
		 "--window-size=1200,900 --screenshot='%s' 'file://%s' >/dev/null 2>&1",
		 dir, dir, browser, dir, page, dom, dir, browser, dir, shot, page);
	cr_assert_eq(system(cmd), 0, "chromium failed: %s", cmd);
	char *html = slurp(dom);
	cr_assert(strstr(html, "<tr id=\"L5\" class=\"finding\">"), "the DOM marks the race's line");
	cr_assert(strstr(html, "race (RAW"), "the note is in the DOM");
	cr_assert_null(strstr(html, "<script"), "no script element in the DOM");
	free(html);
	struct stat st;
	cr_assert_eq(stat(shot, &st), 0, "no screenshot");
	cr_assert_gt(st.st_size, 5000, "a screenshot of a drawn page, not a blank one: %lld bytes",
		     (long long)st.st_size);
	const char *keep = getenv("KIT_HTML_SCREENSHOT");
	if (keep && *keep) {
		snprintf(cmd, sizeof cmd, "cp '%s' '%s'", shot, keep);
		cr_assert_eq(system(cmd), 0);
	}
}

/* A whole grade: the padded tile without its barrier, graded in the
 * emulator, read in Chromium. The race the emulator found is marked at
 * its line of the student's own file, and the coalescing chart is there. */
Test(report_html, a_graded_race_is_marked_on_its_line, .timeout = 300)
{
	const char *browser = chromium();
	const char *kit = getenv("KIT_ROOT");
	char cmd[8192], dom[600];

	if (access("build/emu/cuemu-cc", X_OK) != 0)
		cr_skip_test("the emulator is not built (build/emu/cuemu-cc): run make");
	snprintf(cmd, sizeof cmd,
		 "cd '%s' && ./grade lab3 --submission tests/fixtures/lab3/no_sync.cu --backend emu "
		 "--seed 1 --plot none --html '%s' >/dev/null 2>&1", kit ? kit : ".", page);
	cr_assert_eq(WEXITSTATUS(system(cmd)), 1, "a failing grade exits 1");
	char *html = slurp(page);
	cr_assert(strstr(html, "<tr id=\"L35\" class=\"finding\">"), "the race's line is marked in the file");
	cr_assert(strstr(html, "depends on a race at transpose.cu:35"), "the sizes say their result depends on the race");
	free(html);
	if (!browser)
		cr_skip_test("headless Chromium is not installed (apt-get install chromium): "
			     "the page was checked as a file only");
	snprintf(dom, sizeof dom, "%s/dom.html", dir);
	snprintf(cmd, sizeof cmd,
		 "cd '%s' && HOME='%s' timeout 60 '%s' --headless --no-sandbox --disable-gpu "
		 "--user-data-dir='%s/profile' --dump-dom 'file://%s' >'%s' 2>/dev/null",
		 dir, dir, browser, dir, page, dom);
	cr_assert_eq(system(cmd), 0, "chromium failed: %s", cmd);
	html = slurp(dom);
	cr_assert(strstr(html, "<tr id=\"L35\" class=\"finding\">"), "the DOM marks the race's line");
	cr_assert(strstr(html, "race (RAW"), "the race's note is in the DOM");
	free(html);
}
