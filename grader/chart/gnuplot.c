/*
 * The gnuplot engine behind every chart (see gnuplot.h): the script
 * written into memory, gnuplot run on it through the sandbox, the chart
 * file renamed into place when it succeeded.
 */
#include "chart/gnuplot.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sys/kit_paths.h"
#include "sys/sandbox.h"
#include "sys/utf8.h"

#define NO_GNUPLOT "charts skipped: gnuplot is not installed (apt-get install gnuplot-nox)"
#define GNUPLOT_TIMEOUT_S 60

/* gnuplot from PATH, or what the GNUPLOT environment variable names. */
static const char *gnuplot_program(void)
{
	const char *p = getenv("GNUPLOT");
	return p && *p ? p : "gnuplot";
}

int gnuplot_available(void)
{
	char buf[PATH_MAX];
	return find_program(gnuplot_program(), buf, sizeof(buf));
}

/* 1 (and the reason in msg) when no chart of this kind can be drawn. */
int plot_skipped(enum plot_kind kind, char *msg, size_t msglen)
{
	if (kind == PLOT_NONE) {
		snprintf(msg, msglen, "charts skipped: --plot none");
		return 1;
	}
	if (!gnuplot_available()) {
		if (getenv("GNUPLOT") && *getenv("GNUPLOT"))
			snprintf(msg, msglen, "charts skipped: GNUPLOT=%s is not a program",
				 getenv("GNUPLOT"));
		else
			snprintf(msg, msglen, NO_GNUPLOT);
		return 1;
	}
	return 0;
}

/* --- writing the script ------------------------------------------------- */

/* s as a gnuplot single-quoted string: a quote is doubled, and nothing
 * else in it is special (no `backquote` commands, no @macros, no
 * backslash escapes). A control character, which such a string cannot
 * hold, becomes a space. */
void gp_str(FILE *f, const char *s)
{
	fputc('\'', f);
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p == '\'')
			fputs("''", f);
		else if (is_control_char(*p))
			fputc(' ', f);
		else if (c1_control_len(p))
			fputc(' ', f), p++;
		else
			fputc(*p, f);
	}
	fputc('\'', f);
}

/* gp_str of a formatted string. */
void gp_strf(FILE *f, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	gp_str(f, buf);
}

static int has_control(const char *s)
{
	for (const unsigned char *p = (const unsigned char *)s; *p; p++)
		if (is_control_char(*p))
			return 1;
	return 0;
}

/* mkdir -p of the folder part of path. */
static int make_parent(const char *path)
{
	char dir[PATH_MAX];
	const char *slash = strrchr(path, '/');

	if (!slash || slash == path)
		return 0;
	snprintf(dir, sizeof(dir), "%.*s", (int)(slash - path), path);
	for (char *p = dir + 1;; p++) {
		if (*p == '/' || *p == '\0') {
			char c = *p;
			*p = '\0';
			if (mkdir(dir, 0777) != 0 && errno != EEXIST)
				return -1;
			*p = c;
			if (!c)
				break;
		}
	}
	struct stat st;
	if (stat(dir, &st) != 0)
		return -1;
	if (!S_ISDIR(st.st_mode)) {
		errno = ENOTDIR;
		return -1;
	}
	return 0;
}

/* The terminal's size for PLOT_TERM: the width of the terminal on stdout
 * (one column short, so the last one does not wrap), 30 lines or fewer. */
static void term_size(int *w, int *h)
{
	struct winsize ws;
	const char *cols = getenv("COLUMNS");

	*w = 100;
	*h = 30;
	if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0) {
		*w = ws.ws_col - 1;
		if (ws.ws_row > 0 && ws.ws_row - 2 < *h)
			*h = ws.ws_row - 2;
	} else if (cols && atoi(cols) > 0) {
		*w = atoi(cols) - 1;
	}
	if (*w < 60)
		*w = 60;
	if (*w > 240)
		*w = 240;
	if (*h < 20)
		*h = 20;
}


/* Drops what plot_begin opened for the drawing: the chart's temporary
 * file, or the terminal drawing's. */
static void release_output(struct plot *p)
{
	if (p->kind != PLOT_TERM)
		atomic_abort(&p->af);
	else if (p->drawing[0])
		unlink(p->drawing);
}

/* Starts a script drawing to path (ignored for PLOT_TERM), w x h pixels;
 * a chart of two panels gets half as many lines again on a terminal. */
int plot_begin(struct plot *p, enum plot_kind kind, const char *what, const char *path,
		      int w, int h, int panels, char *msg, size_t msglen)
{
	char err[PATH_MAX + 100];

	memset(p, 0, sizeof(*p));
	p->kind = kind;
	p->what = what;
	if (kind != PLOT_TERM) {
		/* gnuplot's single-quoted strings cannot hold a newline, and a
		 * name changed to fit would be another file. */
		if (has_control(path)) {
			snprintf(msg, msglen, "chart: cannot draw into a path with a control "
					      "character in it");
			return -1;
		}
		if (make_parent(path) != 0) {
			snprintf(msg, msglen, "chart: cannot create the folder for %s: %s", path,
				 strerror(errno));
			return -1;
		}
		if (atomic_open(&p->af, path, err, sizeof(err)) != 0) {
			snprintf(msg, msglen, "chart: %s", err);
			return -1;
		}
	} else {
		/* The drawing goes to a file of its own, apart from gnuplot's
		 * messages, and is copied to our stdout when it is whole. */
		snprintf(p->drawing, sizeof(p->drawing), "/tmp/grade-chart-XXXXXX");
		int fd = mkstemp(p->drawing);
		if (fd < 0) {
			snprintf(msg, msglen, "chart: cannot make a temporary file: %s", strerror(errno));
			return -1;
		}
		close(fd);
	}
	p->s = open_memstream(&p->buf, &p->len);
	if (!p->s) {
		release_output(p);
		snprintf(msg, msglen, "chart: out of memory");
		return -1;
	}
	fputs("set encoding utf8\n", p->s);
	if (kind == PLOT_PNG) {
		fprintf(p->s, "set terminal pngcairo size %d,%d noenhanced font 'Sans,11'\n", w, h);
	} else if (kind == PLOT_SVG) {
		fprintf(p->s, "set terminal svg size %d,%d dynamic noenhanced font 'Sans,11' "
			      "background rgb 'white'\n", w, h);
	} else {
		int cw, ch;
		term_size(&cw, &ch);
		if (panels > 1)
			ch = ch * 3 / 2;
		fprintf(p->s, "set terminal dumb size %d,%d noenhanced\n", cw, ch);
	}
	fputs("set output ", p->s);
	gp_str(p->s, kind == PLOT_TERM ? p->drawing : p->af.tmp);
	fputc('\n', p->s);
	return 0;
}

void plot_cancel(struct plot *p)
{
	if (p->s)
		fclose(p->s);
	free(p->buf);
	release_output(p);
}

/* The line of gnuplot's messages that says what went wrong: the one with
 * "line N:" in it, else the first that is not empty. */
static void first_error(const char *text, char *out, size_t outlen)
{
	char buf[4096];
	char *pick = NULL, *save = NULL;

	snprintf(buf, sizeof(buf), "%s", text);
	out[0] = '\0';
	for (char *line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		while (*line == ' ' || *line == '\t')
			line++;
		if (!*line || strcmp(line, "^") == 0)
			continue;
		if (strstr(line, "line ") && strchr(line, ':')) {
			pick = line;
			break;
		}
		if (!pick)
			pick = line;
	}
	if (pick)
		snprintf(out, outlen, "%s", pick);
}

/* Copies what gnuplot drew on the dumb terminal to our stdout, without the
 * form feed it puts before each page (a terminal would show it as junk or
 * clear the screen). */
static void copy_drawing(const char *path)
{
	FILE *f = fopen(path, "r");
	int c;

	if (!f)
		return;
	while ((c = getc(f)) != EOF)
		if (c != '\f')
			putchar(c);
	fclose(f);
	fflush(stdout);
}

/* Runs gnuplot on script through the sandbox: the kit's own program, so
 * not isolated, but in a child with a deadline, its messages captured.
 * Returns 0 when gnuplot exited 0, else -1 with why. */
static int run_gnuplot(const char *script, size_t len, char *why, size_t whylen)
{
	const char *prog = gnuplot_program();
	char *argv[] = { (char *)prog, NULL };
	struct sandbox_limits lim = { .wall_s = GNUPLOT_TIMEOUT_S, .output_cap = 16 * 1024,
				      .input = script, .input_len = len };
	struct child_result res;
	char err[256], line[300];

	if (sandbox_run(argv, &lim, &res, err, sizeof(err)) < 0) {
		snprintf(why, whylen, "cannot run %s: %s", prog, err);
		return -1;
	}
	int rc = res.exited && res.exit_status == 0 ? 0 : -1;
	if (rc != 0) {
		first_error(res.output, line, sizeof(line));
		if (res.timed_out)
			snprintf(why, whylen, "%s ran past its %d s limit", prog, GNUPLOT_TIMEOUT_S);
		else if (res.signaled)
			snprintf(why, whylen, "%s was killed by signal %d%s%s", prog, res.signal,
				 line[0] ? ": " : "", line);
		else
			snprintf(why, whylen, "%s failed: %s", prog, line[0] ? line : "no reason given");
	}
	child_result_free(&res);
	return rc;
}

/* Runs the script; for a file, renames it into place when gnuplot
 * succeeded and wrote something, else removes it. */
int plot_end(struct plot *p, char *msg, size_t msglen)
{
	char why[400], err[PATH_MAX + 100];
	struct stat st;

	fputs("unset output\n", p->s);
	if (fclose(p->s) != 0) {
		p->s = NULL;
		plot_cancel(p);
		snprintf(msg, msglen, "chart: out of memory");
		return -1;
	}
	p->s = NULL;
	int rc = run_gnuplot(p->buf, p->len, why, sizeof(why));
	free(p->buf);
	p->buf = NULL;
	if (p->kind == PLOT_TERM) {
		if (rc != 0) {
			snprintf(msg, msglen, "chart: %s", why);
		} else {
			copy_drawing(p->drawing);
			snprintf(msg, msglen, "chart: %s, drawn above", p->what);
		}
		release_output(p);
		return rc;
	}
	if (rc == 0 && (fstat(fileno(p->af.f), &st) != 0 || st.st_size == 0)) {
		snprintf(why, sizeof(why), "gnuplot wrote nothing");
		rc = -1;
	}
	if (rc != 0) {
		atomic_abort(&p->af);
		snprintf(msg, msglen, "chart: %s", why);
		return -1;
	}
	if (atomic_commit(&p->af, err, sizeof(err)) != 0) {
		snprintf(msg, msglen, "chart: %s", err);
		return -1;
	}
	snprintf(msg, msglen, "chart: %s", p->af.path);
	return 0;
}

/* OUT_DIR/LAB-WHAT.EXT, or "" for PLOT_TERM. */
void chart_path(char *buf, size_t len, const char *out_dir, const struct grade *g,
		       const char *fallback, const char *what, enum plot_kind kind)
{
	if (kind == PLOT_TERM) {
		buf[0] = '\0';
		return;
	}
	snprintf(buf, len, "%s/%s-%s.%s", out_dir && *out_dir ? out_dir : ".",
		 g && g->lab ? g->lab->id : fallback, what, plot_kind_name(kind));
}

/* A datum, or '?' (gnuplot's missing value here) when not measured. */
void put_value(FILE *f, double v)
{
	if (v >= 0 && isfinite(v))
		fprintf(f, " %.6g", v);
	else
		fputs(" ?", f);
}

/* A number from the analysis, clamped to [lo, hi]: the document comes
 * from a run of the student's code, and converting an out-of-range
 * double to an integer is undefined behaviour. Not a number: lo. */
long long analysis_number(const json_t *v, long long lo, long long hi)
{
	double d = json_number_value(v);
	if (!(d >= (double)lo))
		return lo;
	return d >= (double)hi ? hi : (long long)d;
}
