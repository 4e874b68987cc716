/*
 * The HTML report: the grade as a page. Everything it shows is in the one
 * file: the style is inline, the charts are base64 SVG images (an SVG shown
 * through <img> runs no script, whatever its text holds), and there is no
 * script at all. Every text that came from a program (messages, the
 * student's source) is escaped.
 */
#include "report/report_html.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "report/report_html_notes.h"
#include "report/report_text.h"
#include "sys/atomic_file.h"

#define MAX_SVG_BYTES (4 << 20)

static const char style[] =
	"body{font-family:system-ui,sans-serif;margin:2em;color:#222;max-width:72em}"
	"h1{font-size:1.4em}h2{font-size:1.15em;margin-top:1.6em}"
	"table{border-collapse:collapse}td,th{padding:.2em .6em;text-align:left;vertical-align:top}"
	".tests td{border-top:1px solid #ddd}.passed{color:#176b1c}.failed{color:#b3261e}"
	".not-measured,.skipped{color:#8a6d00}.msg{white-space:pre-wrap;font-size:.9em}"
	".src{font-family:ui-monospace,monospace;font-size:.85em;width:100%}"
	".src td{padding:0 .5em}.src .n{color:#888;text-align:right;user-select:none}"
	".src pre{margin:0;white-space:pre-wrap;tab-size:4}.src tr.finding{background:#fde7e4}"
	".src tr.figure{background:#eef4fb}.src tr.given{background:#f2f2f2;color:#777}"
	".note{font-family:system-ui,sans-serif;font-size:.85em;"
	"color:#444;padding:.1em 0 .3em 0}.note.finding{color:#b3261e;font-weight:600}"
	".note.given{color:#777;font-weight:400}"
	".charts img{max-width:100%;border:1px solid #ddd;margin:.5em 0}";

static const char *status_class(enum test_status s)
{
	switch (s) {
	case TEST_PASSED: return "passed";
	case TEST_FAILED: return "failed";
	case TEST_NOT_MEASURED: return "not-measured";
	case TEST_SKIPPED: return "skipped";
	}
	return "skipped";
}

static void put_header(FILE *f, const struct grade *g)
{
	char score[32], max[32];

	fputs("<h1>", f);
	html_escape(f, g->lab->id);
	fputs(": ", f);
	html_escape(f, g->lab->title);
	fprintf(f, "</h1>\n<p><b>%s / %s</b>",
		report_points(grade_score(g), score, sizeof score),
		report_points(grade_max_score(g), max, sizeof max));
	fputs("</p>\n<table>\n<tr><th>submission</th><td>", f);
	html_escape(f, g->submission);
	fputs("</td></tr>\n<tr><th>backend</th><td>", f);
	html_escape(f, backend_name(g->backend));
	fputs(" on ", f);
	html_escape(f, g->device);
	fprintf(f, "</td></tr>\n<tr><th>seed</th><td>%llu</td></tr>\n</table>\n",
		(unsigned long long)g->seed);
}

static void put_tests(FILE *f, const struct grade *g)
{
	char pts[32], max[32];

	fputs("<h2>Tests</h2>\n<table class=\"tests\">\n", f);
	for (int i = 0; i < g->n_tests; i++) {
		const struct test_result *t = &g->tests[i];
		fprintf(f, "<tr class=\"%s\"><td>", status_class(t->status));
		html_escape(f, t->name);
		fprintf(f, "</td><td>%s</td><td>%s / %s</td></tr>\n", status_name(t->status),
			report_points(t->points, pts, sizeof pts), report_points(t->max_points, max, sizeof max));
		if (t->message[0]) {
			fputs("<tr><td colspan=\"3\" class=\"msg\">", f);
			html_escape(f, t->message);
			fputs("</td></tr>\n", f);
		}
	}
	if (g->build_failed && g->build_log[0]) {
		fputs("<tr><td colspan=\"3\" class=\"msg\">", f);
		html_escape(f, g->build_log);
		fputs("</td></tr>\n", f);
	}
	fputs("</table>\n", f);
}

static void put_base64(FILE *f, const unsigned char *p, size_t n)
{
	static const char abc[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	for (size_t i = 0; i < n; i += 3) {
		unsigned v = (unsigned)p[i] << 16 | (i + 1 < n ? (unsigned)p[i + 1] << 8 : 0) |
			     (i + 2 < n ? p[i + 2] : 0);
		fputc(abc[v >> 18 & 63], f);
		fputc(abc[v >> 12 & 63], f);
		fputc(i + 1 < n ? abc[v >> 6 & 63] : '=', f);
		fputc(i + 2 < n ? abc[v & 63] : '=', f);
	}
}

/* The whole of a small file, or NULL (missing, unreadable, over limit). */
static unsigned char *read_small(const char *path, size_t limit, size_t *len)
{
	FILE *in = fopen(path, "rb");
	unsigned char *buf = NULL;

	if (!in)
		return NULL;
	buf = malloc(limit + 1);
	if (!buf)
		goto out;
	*len = fread(buf, 1, limit + 1, in);
	if (ferror(in) || *len > limit) {
		free(buf);
		buf = NULL;
		goto out;
	}
	buf[*len] = '\0';
out:
	fclose(in);
	return buf;
}

static void put_charts(FILE *f, const char *const *svgs, int n)
{
	int shown = 0;

	for (int i = 0; i < n; i++) {
		size_t len = 0;
		unsigned char *svg = read_small(svgs[i], MAX_SVG_BYTES, &len);
		if (!svg)
			continue;
		if (!shown++)
			fputs("<h2>Charts</h2>\n<div class=\"charts\">\n", f);
		const char *name = strrchr(svgs[i], '/');
		fputs("<p><img alt=\"", f);
		html_escape(f, name ? name + 1 : svgs[i]);
		fputs("\" src=\"data:image/svg+xml;base64,", f);
		put_base64(f, svg, len);
		fputs("\"></p>\n", f);
		free(svg);
	}
	if (shown)
		fputs("</div>\n", f);
}

static void put_line(FILE *f, int n, const char *text, const struct line_notes *notes, int *k)
{
	int first = *k, finding = 0, given = 0;

	while (*k < notes->n && notes->v[*k].line < n)
		(*k)++;
	first = *k;
	while (*k < notes->n && notes->v[*k].line == n) {
		given |= notes->v[*k].given;
		finding |= notes->v[(*k)++].kind == NOTE_FINDING;
	}
	/* A line the skeleton gave is greyed: what was measured there is not
	 * the student's doing. */
	fprintf(f, "<tr id=\"L%d\"%s><td class=\"n\">%d</td><td><pre>", n,
		first == *k ? "" : given ? " class=\"given\"" : finding ? " class=\"finding\"" :
		" class=\"figure\"", n);
	html_escape(f, text);
	fputs("</pre>", f);
	for (int i = first; i < *k; i++) {
		fprintf(f, "<div class=\"note%s%s\">", notes->v[i].kind == NOTE_FINDING ? " finding" : "",
			notes->v[i].given ? " given" : "");
		html_escape(f, notes->v[i].text);
		fputs("</div>", f);
	}
	fputs("</td></tr>\n", f);
}

static void put_source(FILE *f, const struct grade *g)
{
	struct line_notes notes = { 0 };
	int k = 0, n = 0;

	fputs("<h2>Your source</h2>\n", f);
	char *text = g->source ? strdup(g->source) : NULL;
	if (!text) {
		fputs("<p>The source is not part of this report.</p>\n", f);
		return;
	}
	if (!g->analysis)
		fputs("<p>The emulator did not analyse this file, so its lines carry no figures.</p>\n", f);
	else if (line_notes_collect(g->analysis, g->source_name, &notes) != 0)
		fputs("<p>Out of memory: the lines carry no figures.</p>\n", f);
	fputs("<table class=\"src\">\n", f);
	for (char *line = text, *end; line && *line; line = end ? end + 1 : NULL) {
		end = strchr(line, '\n');
		if (end)
			*end = '\0';
		put_line(f, ++n, line, &notes, &k);
	}
	fputs("</table>\n", f);
	line_notes_free(&notes);
	free(text);
}

int report_html_write(const struct grade *g, const char *const *svgs, int n_svgs,
		      const char *out_path, char *err, size_t errlen)
{
	struct atomic_file af;

	if (atomic_open(&af, out_path, err, errlen) != 0)
		return -1;
	fprintf(af.f, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
		      "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
		      "img-src data:; style-src 'unsafe-inline'\">\n<title>");
	html_escape(af.f, g->lab->id);
	fprintf(af.f, ": grade</title>\n<style>%s</style></head><body>\n", style);
	put_header(af.f, g);
	put_tests(af.f, g);
	put_charts(af.f, svgs, n_svgs);
	put_source(af.f, g);
	fputs("</body></html>\n", af.f);
	return atomic_commit(&af, err, errlen);
}
