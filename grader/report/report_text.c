/*
 * The terminal report. It is read by a student who wants to know three
 * things at once: did I pass, what failed and on what input, and how do I
 * run exactly that again. Everything else is secondary and goes above the
 * table or not at all.
 */
#include "report/report_text.h"
#include "sys/utf8.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define GREEN "\033[32m"
#define RED "\033[31m"
#define YELLOW "\033[33m"
#define BOLD "\033[1m"
#define RESET "\033[0m"

int report_colour_wanted(int is_terminal, const char *no_color, const char *term)
{
	if (!is_terminal || (no_color && *no_color))
		return 0;
	return !(term && strcmp(term, "dumb") == 0);
}

int report_use_colour(FILE *f)
{
	return report_colour_wanted(isatty(fileno(f)), getenv("NO_COLOR"), getenv("TERM"));
}

const char *report_points(double v, char *buf, size_t len)
{
	snprintf(buf, len, "%.2f", v);
	char *dot = strchr(buf, '.');
	if (dot) {
		char *end = buf + strlen(buf);
		while (end > dot + 1 && end[-1] == '0')
			*--end = '\0';
		if (end == dot + 1)
			*dot = '\0';
	}
	if (strcmp(buf, "-0") == 0)	/* -0.001 rounds to "-0" */
		snprintf(buf, len, "0");
	return buf;
}

/* Prints s with every control character (C0, DEL, C1) but newline and
 * tab, and every byte that is not UTF-8, shown as '?': messages carry text
 * from untrusted programs (the harness, the compiler quoting the student's
 * source), which must not drive the terminal (0x9B alone or as U+009B is
 * a CSI to some). After each newline, prints indent so that a message
 * stays under its test. */
static void put_clean(FILE *out, const char *s, const char *indent)
{
	char *clean = strdup(s);
	if (!clean)
		return;
	utf8_clean(clean, 1);
	for (const char *p = clean; *p; p++) {
		fputc(*p, out);
		if (*p == '\n' && p[1])
			fputs(indent, out);
	}
	free(clean);
}

/* A word for the shell: left alone when it is plain, else single-quoted. */
static void shell_quote(const char *s, char *buf, size_t len)
{
	size_t plain = strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
				 "0123456789_./:=@%+,-");
	size_t o = 0;

	if (s[0] && s[plain] == '\0') {
		snprintf(buf, len, "%s", s);
		return;
	}
	if (len < 3) {
		buf[0] = '\0';
		return;
	}
	buf[o++] = '\'';
	for (; *s && o + 6 < len; s++) {
		if (*s == '\'') {
			memcpy(buf + o, "'\\''", 4);
			o += 4;
		} else {
			buf[o++] = *s;
		}
	}
	buf[o++] = '\'';
	buf[o] = '\0';
}

/* 1 when path names ROOT/DIR or ROOT/DIR/FILE of the lab, relative or
 * absolute: the place ./grade looks by default (root "labs") or with
 * --solution (root "solutions"). */
static int is_lab_path(const struct grade *g, const char *root, const char *path)
{
	char want[512];
	size_t n = strlen(path);

	while (n > 1 && path[n - 1] == '/')
		n--;
	for (int with_file = 0; with_file < 2; with_file++) {
		snprintf(want, sizeof(want), "%s/%s%s%s", root, g->lab->dir,
			 with_file ? "/" : "", with_file ? g->lab->file : "");
		size_t w = strlen(want);
		if (n >= w && strncmp(path + n - w, want, w) == 0 &&
		    (n == w || path[n - w - 1] == '/'))
			return 1;
	}
	return 0;
}

const char *report_repro_command(const struct grade *g, char *buf, size_t len)
{
	const char *id = g->lab ? g->lab->id : "LAB";
	char extra[600] = "";

	if (g->lab && g->lab->dir && g->lab->file && g->submission[0]) {
		if (is_lab_path(g, "solutions", g->submission)) {
			snprintf(extra, sizeof(extra), " --solution");
		} else if (!is_lab_path(g, "labs", g->submission)) {
			char q[560];
			shell_quote(g->submission, q, sizeof(q));
			snprintf(extra, sizeof(extra), " --submission %s", q);
		}
	}
	snprintf(buf, len, "./grade %s%s --seed %llu", id, extra, (unsigned long long)g->seed);
	return buf;
}

/* The verdict word, and the colour it is shown in. */
static const char *verdict(enum test_status s, const char **colour)
{
	switch (s) {
	case TEST_PASSED: *colour = GREEN; return "PASS";
	case TEST_FAILED: *colour = RED; return "FAIL";
	case TEST_NOT_MEASURED: *colour = YELLOW; return "not measured";
	case TEST_SKIPPED: *colour = YELLOW; return "skipped";
	}
	*colour = "";
	return "?";
}

/* Pads after printing a coloured word: printf's widths would count the
 * escape codes, so the padding is done by hand from the plain length. */
static void put_verdict(FILE *out, enum test_status s, int colour, int width)
{
	const char *c;
	const char *word = verdict(s, &c);

	if (colour)
		fprintf(out, "%s%s%s", c, word, RESET);
	else
		fputs(word, out);
	fprintf(out, "%*s", width - (int)strlen(word), "");
}

static int name_width(const struct grade *g)
{
	int w = 24;
	for (int i = 0; i < g->n_tests; i++) {
		/* Two more than the group header's indent, two of gap. */
		int n = (int)strlen(g->tests[i].name) + 4;
		if (n > w)
			w = n;
	}
	return w > 60 ? 60 : w;
}

#define VERDICT_W 14
/* "   37.5 / 40": the slashes line up down the table. */
static void put_points(FILE *out, const char *pts, double max)
{
	char m[32];
	fprintf(out, "%7s / %s", pts, report_points(max, m, sizeof(m)));
}

static void put_test(FILE *out, const struct test_result *t, int namew, int colour)
{
	char p[32];
	int pad = namew - 2 - (int)strlen(t->name);

	fputs("    ", out);
	put_clean(out, t->name, "");
	fprintf(out, "%*s", pad > 0 ? pad : 1, "");
	put_verdict(out, t->status, colour, VERDICT_W);
	/* A test that could not be measured scores 0 of its points (one scale). */
	put_points(out, report_points(t->points, p, sizeof(p)), t->max_points);
	fputc('\n', out);

	/* Failures say why; a passed test speaks only when it has something to
	 * say: what it measured (the bandwidth a student reached is worth seeing
	 * at full marks too), or what the student's program printed. */
	if (t->message[0]) {
		char msg[TEST_MESSAGE_LEN];
		size_t n = strlen(t->message);
		memcpy(msg, t->message, n + 1);
		while (n && (msg[n - 1] == '\n' || msg[n - 1] == ' '))
			msg[--n] = '\0';
		fputs("        ", out);
		put_clean(out, msg, "        ");
		fputc('\n', out);
	}
}

static void put_group(FILE *out, const struct grade *g, enum test_group grp, int namew,
		      int colour)
{
	double pts = 0, max = 0;
	int n = 0;
	char p[32];

	for (int i = 0; i < g->n_tests; i++) {
		if (g->tests[i].group == grp) {
			pts += g->tests[i].points;
			max += g->tests[i].max_points;
			n++;
		}
	}
	if (n == 0)
		return;
	fprintf(out, "  %s%-*s%s", colour ? BOLD : "", namew + VERDICT_W, group_name(grp),
		colour ? RESET : "");
	put_points(out, report_points(pts, p, sizeof(p)), max);
	fputc('\n', out);
	for (int i = 0; i < g->n_tests; i++)
		if (g->tests[i].group == grp)
			put_test(out, &g->tests[i], namew, colour);
	if (grp == GROUP_ANALYSIS && g->figures.second_call && g->figures.shape[0])
		fprintf(out, "    (of the second call at %s: the first launched otherwise than later calls, "
			"such as a warm-up)\n", g->figures.shape);
}

/* The performance model's prediction, beside the measurement where there is one. */
static void put_prediction(FILE *out, const struct grade *g)
{
	const struct prediction *p = &g->prediction;
	char line[1100];
	if (p->made) {
		int n = snprintf(line, sizeof(line), "for %s: about %.0f%% of copy: %s", p->gpu,
				 p->percent_of_copy, p->why);
		if (g->perf.measured && n > 0 && (size_t)n < sizeof(line))
			snprintf(line + n, sizeof(line) - (size_t)n, " (measured here: %.1f%%)",
				 g->perf.percent_of_copy);
	} else if (p->error[0]) {
		snprintf(line, sizeof(line), "none: %s", p->error);
	} else {
		return;
	}
	fputs("  predicted   ", out);
	put_clean(out, line, "              ");
	fputc('\n', out);
}

static void put_header(FILE *out, const struct grade *g)
{
	char cmd[700];

	if (g->lab)
		fprintf(out, "%s: %s\n", g->lab->id, g->lab->title ? g->lab->title : "");
	else
		fprintf(out, "(no lab)\n");
	fputs("  submission  ", out);
	put_clean(out, g->submission[0] ? g->submission : "(none)", "");
	fprintf(out, "\n  backend     %s", backend_name(g->backend));
	if (g->device[0]) {
		fputs(" on ", out);
		put_clean(out, g->device, "");
	}
	fprintf(out, "\n  seed        %llu  (same inputs again: ", (unsigned long long)g->seed);
	put_clean(out, report_repro_command(g, cmd, sizeof(cmd)), "");
	fputs(")\n", out);
	if (g->band_source[0]) {
		fputs("  band        ", out);
		put_clean(out, g->band_source, "              ");
		fputc('\n', out);
	}
	put_prediction(out, g);
	if (g->isolation_note[0]) {
		fputs("  sandbox     ", out);
		put_clean(out, g->isolation_note, "              ");
		fputc('\n', out);
	}
}

/* The occupancy the graded call's kernels ran at (any lab, on a GPU), and
 * lab 4's experiment: bandwidth at each occupancy the sweep reached. */
static void put_sweep(FILE *out, const struct grade *g)
{
	json_t *sweep = g->sweep.points, *pt;
	size_t i;
	if (g->perf.occupancy_pct >= 0) {
		fprintf(out, "The kernels your %s() launched ran at up to %.1f%% occupancy: ",
			g->lab && g->lab->entry ? g->lab->entry : "entry", g->perf.occupancy_pct);
		put_clean(out, g->perf.launch, "  ");
		fputs(".\n", out);
	}
	if (!sweep && g->sweep.error[0]) {
		fputs("The occupancy sweep could not be measured: ", out);
		put_clean(out, g->sweep.error, "  ");
		fputs("\n\n", out);
	}
	if (json_array_size(sweep) == 0)
		return;
	fputs("Bandwidth against occupancy (your kernel with more and more shared memory per block):\n"
	      "  occupancy   extra shared      GB/s   % of copy\n", out);
	json_array_foreach(sweep, i, pt)
		fprintf(out, "  %8.1f%%  %11lld B  %8.0f  %9.1f%%\n",
			json_number_value(json_object_get(pt, "occupancy_pct")),
			json_integer_value(json_object_get(pt, "extra_shared")),
			json_number_value(json_object_get(pt, "gbps")),
			json_number_value(json_object_get(pt, "percent_of_copy")));
	fputc('\n', out);
}

/* Points that were not measured on this machine, for the score line. */
static double unmeasured_points(const struct grade *g)
{
	double s = 0;
	for (int i = 0; i < g->n_tests; i++)
		if (g->tests[i].status == TEST_NOT_MEASURED)
			s += g->tests[i].max_points;
	return s;
}

/* The one line a student reads last: what happened and what to do. */
static void put_summary(FILE *out, const struct grade *g)
{
	int failed = 0, skipped = 0, unmeasured = 0, first = -1;
	char cmd[700];
	const char *id = g->lab ? g->lab->id : "LAB";

	for (int i = 0; i < g->n_tests; i++) {
		enum test_status s = g->tests[i].status;
		/* Not measured but worth points: those points are lost, as a failure's. */
		int lost = s == TEST_NOT_MEASURED && g->tests[i].max_points > 0;
		if ((s == TEST_FAILED || s == TEST_SKIPPED || lost) && first < 0)
			first = i;
		failed += s == TEST_FAILED || lost;
		skipped += s == TEST_SKIPPED;
		unmeasured += s == TEST_NOT_MEASURED && !lost;
	}
	if (g->internal_error) {
		fprintf(out, "Not graded: the grader could not run this submission (see above).\n");
	} else if (g->build_failed) {
		fprintf(out, "Not graded: the submission did not build. Fix the first compiler "
			     "error above, then run ./grade %s again.\n", id);
	} else if (failed || skipped) {
		fprintf(out, "%d of %d tests did not pass (first: ", failed + skipped, g->n_tests);
		put_clean(out, g->tests[first].name, "");
		fputs("). Same inputs again: ", out);
		put_clean(out, report_repro_command(g, cmd, sizeof(cmd)), "");
		fputc('\n', out);
	} else if (unmeasured) {
		fprintf(out, "All %d tests that ran passed; %d could not be measured on this "
			     "machine (see above).\n", g->n_tests - unmeasured, unmeasured);
	} else {
		fprintf(out, "All %d tests passed.\n", g->n_tests);
	}
}

void report_text(FILE *out, const struct grade *g, int colour)
{
	int namew = name_width(g);
	char p[32], m[32];

	put_header(out, g);
	fputc('\n', out);
	if (g->n_tests > 0) {
		fprintf(out, "  %-*s%-*s  Points\n", namew, "Test", VERDICT_W, "Result");
		for (size_t i = 0; i < GROUP_COUNT; i++)
			put_group(out, g, group_order[i], namew, colour);
		fputc('\n', out);
	}
	if (g->build_failed) {
		fputs("The compiler said:\n", out);
		put_clean(out, g->build_log[0] ? g->build_log : "(nothing)", "");
		if (g->build_log[0] && g->build_log[strlen(g->build_log) - 1] != '\n')
			fputc('\n', out);
		fputc('\n', out);
	}
	put_sweep(out, g);
	if (g->internal_error) {
		fputs("The grader could not run this submission: ", out);
		put_clean(out, g->internal_message[0] ? g->internal_message : "no reason given", "  ");
		fputs("\n\n", out);
	}

	int ok = grade_passed(g);
	fprintf(out, "%sScore: %s / %s%s", colour ? (ok ? GREEN BOLD : RED BOLD) : "",
		report_points(grade_score(g), p, sizeof(p)),
		report_points(grade_max_score(g), m, sizeof(m)), colour ? RESET : "");
	double um = unmeasured_points(g);
	if (um > 0)
		fprintf(out, "  (%s of them could not be measured here, and score 0)",
			report_points(um, p, sizeof(p)));
	fputc('\n', out);
	put_summary(out, g);
}
