/*
 * Charts: a gnuplot script written into memory, fed to gnuplot on its
 * standard input, its output renamed into place when it succeeded.
 *
 * Each chart_* function gathers its figures, then writes one script
 * between plot_begin() (terminal, output file) and plot_end() (runs
 * gnuplot, commits or discards the file).
 */
#include "chart/chart.h"

#include <errno.h>
#include <math.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "sys/atomic_file.h"

extern char **environ;

#define NO_GNUPLOT "charts skipped: gnuplot is not installed (apt-get install gnuplot-nox)"
#define GNUPLOT_TIMEOUT_S 60

/* --- the plot kind and the gnuplot program --------------------------------- */

static const char *const kind_names[] = {"png", "svg", "term", "none"};

int plot_kind_parse(const char *s, enum plot_kind *k)
{
	for (int i = 0; i < 4; i++) {
		if (s && strcasecmp(s, kind_names[i]) == 0) {
			*k = (enum plot_kind)i;
			return 0;
		}
	}
	return -1;
}

const char *plot_kind_name(enum plot_kind k)
{
	return (unsigned)k < 4 ? kind_names[k] : "?";
}

static const char *gnuplot_program(void)
{
	const char *p = getenv("GNUPLOT");
	return p && *p ? p : "gnuplot";
}

static int is_program(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

/* The same search posix_spawnp makes: a name with a slash is a path,
 * anything else is looked up along PATH (an empty entry is "."). */
int gnuplot_available(void)
{
	const char *prog = gnuplot_program();
	const char *path = getenv("PATH");
	char buf[PATH_MAX];

	if (strchr(prog, '/'))
		return is_program(prog);
	if (!path)
		path = "/bin:/usr/bin";
	for (const char *p = path;; p++) {
		const char *end = strchrnul(p, ':');
		int n = (int)(end - p);
		snprintf(buf, sizeof(buf), "%.*s%s%s", n, n ? p : ".", "/", prog);
		if (is_program(buf))
			return 1;
		if (!*end)
			return 0;
		p = end;
	}
}

/* 1 (and the reason in msg) when no chart of this kind can be drawn. */
static int skipped(enum plot_kind kind, char *msg, size_t msglen)
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
static void gp_str(FILE *f, const char *s)
{
	fputc('\'', f);
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p == '\'')
			fputs("''", f);
		else if (*p < 0x20 || *p == 0x7f)
			fputc(' ', f);
		else
			fputc(*p, f);
	}
	fputc('\'', f);
}

/* gp_str of a formatted string. */
__attribute__((format(printf, 2, 3)))
static void gp_strf(FILE *f, const char *fmt, ...)
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
		if (*p < 0x20 || *p == 0x7f)
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

struct plot {
	enum plot_kind kind;
	const char *what;	/* "bandwidth": for the message of a terminal chart */
	FILE *s;		/* the script, in memory */
	char *buf;
	size_t len;
	struct atomic_file af;	/* the chart file, for PNG and SVG */
};

/* Starts a script drawing to path (ignored for PLOT_TERM), w x h pixels;
 * a chart of two panels gets half as many lines again on a terminal. */
static int plot_begin(struct plot *p, enum plot_kind kind, const char *what, const char *path,
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
	}
	p->s = open_memstream(&p->buf, &p->len);
	if (!p->s) {
		if (kind != PLOT_TERM)
			atomic_abort(&p->af);
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
	if (kind != PLOT_TERM) {
		fputs("set output ", p->s);
		gp_str(p->s, p->af.tmp);
		fputc('\n', p->s);
	}
	return 0;
}

static void plot_cancel(struct plot *p)
{
	if (p->s)
		fclose(p->s);
	free(p->buf);
	if (p->kind != PLOT_TERM)
		atomic_abort(&p->af);
}

/* The line of gnuplot's stderr that says what went wrong: the one with
 * "line N:" in it, else the first that is not empty. */
static void first_error(int fd, char *out, size_t outlen)
{
	char buf[4096];
	ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);
	char *pick = NULL;

	out[0] = '\0';
	if (n <= 0)
		return;
	buf[n] = '\0';
	for (char *line = strtok(buf, "\n"); line; line = strtok(NULL, "\n")) {
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

/* Waits for pid, killing it past the deadline. Returns its wait status,
 * or -1 when it could not be waited for. */
static int wait_child(pid_t pid, double timeout_s)
{
	struct timespec nap = {0, 5 * 1000 * 1000};
	int status;

	for (double waited = 0;; waited += 0.005) {
		pid_t r = waitpid(pid, &status, WNOHANG);
		if (r == pid)
			return status;
		if (r < 0 && errno != EINTR)
			return -1;
		if (waited > timeout_s) {
			kill(pid, SIGKILL);
			while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
				;
			return status;
		}
		nanosleep(&nap, NULL);
	}
}

/* Copies what gnuplot drew on the dumb terminal to our stdout, without the
 * form feed it puts before each page (a terminal would show it as junk or
 * clear the screen). */
static void copy_drawing(int fd)
{
	char buf[8192];
	ssize_t n;
	off_t at = 0;

	while ((n = pread(fd, buf, sizeof(buf), at)) > 0) {
		at += n;
		for (ssize_t i = 0; i < n; i++)
			if (buf[i] != '\f')
				putchar(buf[i]);
	}
	fflush(stdout);
}

/* Runs gnuplot on script, its stdout and stderr into memory files read
 * afterwards: stdout is the drawing of the dumb terminal, copied to ours
 * when to_stdout; stderr says what went wrong. Returns 0 when gnuplot
 * exited 0, else -1 with why. */
static int run_gnuplot(const char *script, size_t len, int to_stdout, char *why, size_t whylen)
{
	const char *prog = gnuplot_program();
	char *argv[] = {(char *)prog, NULL};
	posix_spawn_file_actions_t fa;
	pid_t pid;
	int rc = -1, in, out, err;

	in = memfd_create("gnuplot-script", MFD_CLOEXEC);
	out = memfd_create("gnuplot-stdout", MFD_CLOEXEC);
	err = memfd_create("gnuplot-stderr", MFD_CLOEXEC);
	if (in < 0 || out < 0 || err < 0 || write(in, script, len) != (ssize_t)len ||
	    lseek(in, 0, SEEK_SET) != 0) {
		snprintf(why, whylen, "cannot hand gnuplot its script: %s", strerror(errno));
		goto done;
	}
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, in, 0);
	posix_spawn_file_actions_adddup2(&fa, out, 1);
	posix_spawn_file_actions_adddup2(&fa, err, 2);
	int e = posix_spawnp(&pid, prog, &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	if (e) {
		snprintf(why, whylen, "cannot run %s: %s", prog, strerror(e));
		goto done;
	}
	int status = wait_child(pid, GNUPLOT_TIMEOUT_S);
	if (status != -1 && WIFEXITED(status) && WEXITSTATUS(status) == 0) {
		rc = 0;
		if (to_stdout)
			copy_drawing(out);
	} else {
		char line[300];
		first_error(err, line, sizeof(line));
		if (status == -1)
			snprintf(why, whylen, "lost track of %s", prog);
		else if (WIFSIGNALED(status))
			snprintf(why, whylen, "%s was killed by signal %d%s%s", prog,
				 WTERMSIG(status), line[0] ? ": " : "", line);
		else
			snprintf(why, whylen, "%s failed: %s", prog,
				 line[0] ? line : "no reason given");
	}
done:
	if (in >= 0)
		close(in);
	if (out >= 0)
		close(out);
	if (err >= 0)
		close(err);
	return rc;
}

/* Runs the script; for a file, renames it into place when gnuplot
 * succeeded and wrote something, else removes it. */
static int plot_end(struct plot *p, char *msg, size_t msglen)
{
	char why[400], err[PATH_MAX + 100];
	struct stat st;

	if (p->kind != PLOT_TERM)
		fputs("unset output\n", p->s);
	if (fclose(p->s) != 0) {
		p->s = NULL;
		plot_cancel(p);
		snprintf(msg, msglen, "chart: out of memory");
		return -1;
	}
	p->s = NULL;
	int rc = run_gnuplot(p->buf, p->len, p->kind == PLOT_TERM, why, sizeof(why));
	free(p->buf);
	p->buf = NULL;
	if (p->kind == PLOT_TERM) {
		if (rc != 0)
			snprintf(msg, msglen, "chart: %s", why);
		else
			snprintf(msg, msglen, "chart: %s, drawn above", p->what);
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
static void chart_path(char *buf, size_t len, const char *out_dir, const struct grade *g,
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
static void put_value(FILE *f, double v)
{
	if (v >= 0 && isfinite(v))
		fprintf(f, " %.6g", v);
	else
		fputs(" ?", f);
}

/* --- bandwidth against size --------------------------------------------- */

static int by_elements(const void *a, const void *b)
{
	const struct bench_point *x = *(const struct bench_point *const *)a;
	const struct bench_point *y = *(const struct bench_point *const *)b;
	size_t ex = shape_elements(&x->shape), ey = shape_elements(&y->shape);
	return (ex > ey) - (ex < ey);
}

int chart_bandwidth(const struct grade *g, enum plot_kind kind, const char *out_dir, char *msg,
		    size_t msglen)
{
	const struct bench_point *rows[GRADE_MAX_BENCH];
	int n = 0, has[3] = {0, 0, 0};
	char path[PATH_MAX], label[64];
	struct plot p;

	if (skipped(kind, msg, msglen))
		return 1;
	for (int i = 0; i < g->n_bench && i < GRADE_MAX_BENCH; i++) {
		const struct bench_point *b = &g->bench[i];
		if (shape_elements(&b->shape) == 0)
			continue;
		rows[n++] = b;
		has[0] |= b->student_gbps >= 0;
		has[1] |= b->reference_gbps >= 0;
		has[2] |= b->copy_gbps >= 0;
	}
	if (!has[0] && !has[1] && !has[2]) {
		snprintf(msg, msglen, "bandwidth chart skipped: no bandwidth was measured "
				      "(that needs a GPU)");
		return 1;
	}
	qsort(rows, n, sizeof(rows[0]), by_elements);

	chart_path(path, sizeof(path), out_dir, g, "chart", "bandwidth", kind);
	if (plot_begin(&p, kind, "bandwidth", path, 1000, 600, 1, msg, msglen) != 0)
		return -1;
	FILE *s = p.s;
	char lab[200] = "";
	if (g->lab)
		snprintf(lab, sizeof(lab), "%s (%s): ", g->lab->id, g->lab->title ? g->lab->title : "");
	fputs("set title ", s);
	gp_strf(s, "%seffective bandwidth on %s", lab, g->device[0] ? g->device : "this device");
	fputs("\nset xlabel ", s);
	gp_str(s, g->lab && g->lab->rank == 2 ? "matrix size, rows x cols (log scale of the element count)"
					      : "n, elements (log scale)");
	fputs("\nset ylabel 'effective bandwidth, GB/s (bytes read and written / time)'\n", s);
	fputs("set logscale x 2\nset grid\nset key left top box opaque\nset yrange [0:*]\n"
	      "set offsets graph 0.04, graph 0.04, graph 0.08, 0\n"
	      "set datafile missing '?'\nset xtics (", s);
	/* A shape within a factor 1.4 of the last labelled one gets a tic
	 * but no label: 2048x2048 and 4097x1023 would print on each other. */
	for (int i = 0, last = -1; i < n; i++) {
		size_t e = shape_elements(&rows[i]->shape);
		int crowded = last >= 0 && e < 1.4 * shape_elements(&rows[last]->shape);
		fprintf(s, "%s", i ? ", " : "");
		gp_str(s, crowded ? "" : shape_format(&rows[i]->shape, label, sizeof(label)));
		fprintf(s, " %zu", e);
		if (!crowded)
			last = i;
	}
	fputs(")\n", s);
	if (kind != PLOT_TERM)
		fputs("set xtics rotate by 30 right\n", s);

	/* The student's distance from the ceiling, at the largest size where
	 * both were measured: the number the performance points come from. */
	for (int i = n - 1; i >= 0; i--) {
		const struct bench_point *b = rows[i];
		if (b->student_gbps >= 0 && b->copy_gbps > 0) {
			fputs("set label ", s);
			gp_strf(s, "%.0f%% of copy", 100 * b->student_gbps / b->copy_gbps);
			fprintf(s, " at %zu, %.6g right offset -1, 1\n", shape_elements(&b->shape),
				b->student_gbps);
			break;
		}
	}

	fputs("$bw << EOD\n", s);
	for (int i = 0; i < n; i++) {
		fprintf(s, "%zu", shape_elements(&rows[i]->shape));
		put_value(s, rows[i]->student_gbps);
		put_value(s, rows[i]->reference_gbps);
		put_value(s, rows[i]->copy_gbps);
		fputc('\n', s);
	}
	fputs("EOD\nplot ", s);
	static const char *const series[3] = {
		"using 1:2 with linespoints lw 3 pt 7 ps 1.2 lc rgb '#1f77b4' title 'your kernel'",
		"using 1:3 with linespoints lw 2 pt 5 dt 1 lc rgb '#2ca02c' title 'reference solution'",
		"using 1:4 with linespoints lw 2 pt 1 dt 2 lc rgb '#444444' "
		"title 'copy ceiling (device-to-device cudaMemcpy)'",
	};
	/* A series with no point at all is left out: gnuplot stops at one. */
	for (int k = 0, first = 1; k < 3; k++) {
		if (has[k]) {
			fprintf(s, "%s$bw %s", first ? "" : ", ", series[k]);
			first = 0;
		}
	}
	fputc('\n', s);
	return plot_end(&p, msg, msglen);
}

/* --- bandwidth against occupancy (lab 4) ---------------------------------------- */

int chart_occupancy(const struct grade *g, enum plot_kind kind, const char *out_dir, char *msg,
		    size_t msglen)
{
	json_t *sweep = json_object_get(g->metrics, "sweep"), *pt;
	json_t *occ = json_object_get(g->metrics, "occupancy_pct");
	json_t *pct = json_object_get(g->metrics, "percent_of_copy");
	char path[PATH_MAX];
	struct plot p;
	size_t i;

	if (skipped(kind, msg, msglen))
		return 1;
	if (json_array_size(sweep) == 0) {
		snprintf(msg, msglen, "occupancy chart skipped: no sweep was measured (that needs a GPU "
				      "and a correct kernel)");
		return 1;
	}
	chart_path(path, sizeof(path), out_dir, g, "chart", "occupancy", kind);
	if (plot_begin(&p, kind, "occupancy", path, 1000, 600, 1, msg, msglen) != 0)
		return -1;
	FILE *s = p.s;
	fputs("set title ", s);
	gp_strf(s, "%s: bandwidth against occupancy on %s", g->lab ? g->lab->id : "lab4",
		g->device[0] ? g->device : "this device");
	fputs("\nset xlabel 'occupancy: resident warps / max warps per SM (%)'\n"
	      "set ylabel 'effective bandwidth, % of a device-to-device copy'\n"
	      "set xrange [0:105]\nset yrange [0:110]\nset grid\nset key right bottom box opaque\n"
	      "set arrow from 0,100 to 105,100 nohead dt 2 lc rgb '#444444'\n"
	      "set label 'copy ceiling' at 2,103\n", s);
	fputs("$sweep << EOD\n", s);
	json_array_foreach(sweep, i, pt) {
		put_value(s, json_number_value(json_object_get(pt, "occupancy_pct")));
		put_value(s, json_number_value(json_object_get(pt, "percent_of_copy")));
		fputc('\n', s);
	}
	fputs("EOD\n", s);
	int graded = json_is_number(occ) && json_is_number(pct);
	if (graded) {
		fprintf(s, "$graded << EOD\n%.6g %.6g\nEOD\n", json_number_value(occ), json_number_value(pct));
	}
	fputs("plot $sweep using 1:2 with linespoints lw 3 pt 7 ps 1.2 lc rgb '#1f77b4' "
	      "title 'your kernel, with more shared memory per block to lower occupancy'", s);
	if (graded)
		fputs(", $graded using 1:2 with points pt 9 ps 2.5 lc rgb '#d62728' "
		      "title 'stream_scale() as graded' noenhanced", s);
	fputc('\n', s);
	return plot_end(&p, msg, msglen);
}

/* --- active threads and warps of a block scan ------------------------------ */

/* The handouts' figures for a 1024-element block. Hillis-Steele: 1024
 * threads, offset 1, 2, ..., 512; threads with tid >= offset add. Blelloch:
 * 512 threads; the up-sweep halves the adders from 512 to 2, the root step
 * is one thread taking the total and clearing it, the down-sweep doubles
 * them from 2 back to 512. A warp is active when any of its threads is. */
static const int hs_threads[] = {1023, 1022, 1020, 1016, 1008, 992, 960, 896, 768, 512};
static const int hs_warps[] = {32, 32, 32, 32, 32, 31, 30, 28, 24, 16};
static const int bl_threads[] = {512, 256, 128, 64, 32, 16, 8, 4, 2, 1,
				 2, 4, 8, 16, 32, 64, 128, 256, 512};
static const int bl_warps[] = {16, 8, 4, 2, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 4, 8, 16};
#define HS_STEPS (int)(sizeof(hs_threads) / sizeof(hs_threads[0]))
#define BL_STEPS (int)(sizeof(bl_threads) / sizeof(bl_threads[0]))

static int sum(const int *v, int n)
{
	int s = 0;
	for (int i = 0; i < n; i++)
		s += v[i];
	return s;
}

/* A datablock of steps: "step value" rows, x shifted by dx so that two
 * series of boxes stand side by side. */
static void put_steps(FILE *s, const char *name, const int *v, int n, double dx)
{
	fprintf(s, "%s << EOD\n", name);
	for (int i = 0; i < n; i++)
		fprintf(s, "%g %d\n", i + 1 + dx, v[i]);
	fputs("EOD\n", s);
}

static void textbook_panels(FILE *s, const char *title)
{
	put_steps(s, "$hst", hs_threads, HS_STEPS, -0.2);
	put_steps(s, "$blt", bl_threads, BL_STEPS, 0.2);
	put_steps(s, "$hsw", hs_warps, HS_STEPS, -0.2);
	put_steps(s, "$blw", bl_warps, BL_STEPS, 0.2);
	fputs("set multiplot layout 2,1 title ", s);
	gp_str(s, title);
	fprintf(s, "\nset style fill solid 0.7 border -1\nset boxwidth 0.4\nset grid ytics\n"
		   "set key right top box opaque\nset xrange [0.3:%d.7]\nset xtics 1 nomirror\n",
		   BL_STEPS);
	/* Blelloch's phases along the top, so that its V reads as two sweeps. */
	fputs("set x2range [0.3:19.7]\nset x2tics ('Blelloch: up-sweep' 5, 'root' 10, "
	      "'down-sweep' 15) scale 0\n"
	      "set arrow from 9.5, graph 0 to 9.5, graph 1 nohead dt 3 lc rgb '#888888'\n"
	      "set arrow from 10.5, graph 0 to 10.5, graph 1 nohead dt 3 lc rgb '#888888'\n", s);
	/* Headroom for the key above the tallest bars. */
	fprintf(s, "set ylabel 'active threads'\nset yrange [0:%d]\n"
		   "plot $hst with boxes lc rgb '#d62728' title ", 1024 * 3 / 2);
	gp_strf(s, "Hillis-Steele (lab 1, 1024 threads): %d thread-steps", sum(hs_threads, HS_STEPS));
	fputs(", $blt with boxes lc rgb '#1f77b4' title ", s);
	gp_strf(s, "Blelloch (lab 2, 512 threads): %d thread-steps", sum(bl_threads, BL_STEPS));
	fputs("\nunset x2tics\nset xlabel 'step (one barrier interval each)'\n"
	      "set ylabel 'active warps'\nset yrange [0:48]\n"
	      "plot $hsw with boxes lc rgb '#d62728' title ", s);
	gp_strf(s, "Hillis-Steele: %d warp-steps", sum(hs_warps, HS_STEPS));
	fputs(", $blw with boxes lc rgb '#1f77b4' title ", s);
	gp_strf(s, "Blelloch: %d warp-steps", sum(bl_warps, BL_STEPS));
	fputs("\nunset multiplot\n", s);
}

#define MAX_SERIES 4
#define MAX_STEPS 64

struct warp_series {
	char name[160];
	int steps[MAX_STEPS];
	int n;
	long total;
};

/* A number from the analysis, clamped to [lo, hi]: the document comes
 * from a run of the student's code, and converting an out-of-range
 * double to an integer is undefined behaviour. Not a number: lo. */
static long long number_in(const json_t *v, long long lo, long long hi)
{
	double d = json_number_value(v);
	if (!(d >= (double)lo))
		return lo;
	return d >= (double)hi ? hi : (long long)d;
}

/* The measured active_warps_per_line of every launch, at most MAX_SERIES. */
static int measured_series(const json_t *analysis, struct warp_series *out)
{
	json_t *launch, *line;
	size_t i, j;
	int n = 0;

	json_array_foreach(json_object_get(analysis, "launches"), i, launch) {
		json_array_foreach(json_object_get(launch, "active_warps_per_line"), j, line) {
			json_t *steps = json_object_get(line, "steps");
			if (n == MAX_SERIES || !json_is_array(steps) || json_array_size(steps) == 0)
				continue;
			struct warp_series *w = &out[n++];
			const char *file = json_string_value(json_object_get(line, "file"));
			snprintf(w->name, sizeof(w->name), "%s:%lld", file ? file : "?",
				 (long long)json_integer_value(json_object_get(line, "line")));
			w->n = 0;
			w->total = 0;
			for (size_t k = 0; k < json_array_size(steps); k++) {
				int v = (int)number_in(json_array_get(steps, k), 0, 1 << 20);
				w->total += v;
				if (w->n < MAX_STEPS)
					w->steps[w->n++] = v;
			}
		}
	}
	return n;
}

static void measured_panel(FILE *s, const struct grade *g, const struct warp_series *w, int n)
{
	static const char *const colours[MAX_SERIES] = {"#1f77b4", "#ff7f0e", "#9467bd", "#8c564b"};
	const char *id = g->lab ? g->lab->id : "";
	int lab1 = strcmp(id, "lab1") == 0, lab2 = strcmp(id, "lab2") == 0;
	int maxn = lab1 ? HS_STEPS : lab2 ? BL_STEPS : 0, top = lab1 ? 32 : lab2 ? 16 : 1;
	double width = 0.8 / n;

	for (int k = 0; k < n; k++) {
		char name[16];
		snprintf(name, sizeof(name), "$m%d", k);
		put_steps(s, name, w[k].steps, w[k].n, -0.4 + width * (k + 0.5));
		if (w[k].n > maxn)
			maxn = w[k].n;
		for (int i = 0; i < w[k].n; i++)
			if (w[k].steps[i] > top)
				top = w[k].steps[i];
	}
	if (lab1 || lab2)
		put_steps(s, "$book", lab1 ? hs_warps : bl_warps, lab1 ? HS_STEPS : BL_STEPS, 0);
	fputs("set title ", s);
	gp_strf(s, "%s: active warps per step, measured by the emulator in your kernel", id);
	fprintf(s, "\nset style fill solid 0.7 border -1\nset boxwidth %g\nset grid ytics\n"
		   "set key right top box opaque\nset xrange [0.3:%d.7]\nset xtics 1\n"
		   "set yrange [0:%d]\nset xlabel 'step (one barrier interval each)'\n"
		   "set ylabel 'active warps'\nplot ", width, maxn, top * 3 / 2 + 1);
	for (int k = 0; k < n; k++) {
		fprintf(s, "%s$m%d with boxes lc rgb '%s' title ", k ? ", " : "", k, colours[k]);
		gp_strf(s, "%s (yours): %ld warp-steps", w[k].name, w[k].total);
	}
	if (lab1 || lab2) {
		fputs(", $book with histeps lw 2 dt 2 lc rgb '#444444' title ", s);
		gp_strf(s, "handout's %s: %d warp-steps", lab1 ? "Hillis-Steele" : "Blelloch",
			lab1 ? sum(hs_warps, HS_STEPS) : sum(bl_warps, BL_STEPS));
	}
	fputc('\n', s);
}

int chart_active_threads(const struct grade *g, enum plot_kind kind, const char *out_dir,
			 char *msg, size_t msglen)
{
	struct warp_series w[MAX_SERIES];
	char path[PATH_MAX];
	struct plot p;
	int n = g && g->analysis ? measured_series(g->analysis, w) : 0;

	if (skipped(kind, msg, msglen))
		return 1;
	chart_path(path, sizeof(path), out_dir, g, "scan", "active-threads", kind);
	if (plot_begin(&p, kind, "active threads", path, 1000, n ? 550 : 750, n ? 1 : 2, msg,
		       msglen) != 0)
		return -1;
	if (n)
		measured_panel(p.s, g, w, n);
	else
		textbook_panels(p.s, "Active threads and warps per step, 1024-element block scan "
				     "(the handouts' figures)");
	return plot_end(&p, msg, msglen);
}

/* --- one warp's memory request ------------------------------------------- */

#define WARP 32

struct request {
	char where[160];		/* "transpose.cu:42 store" */
	int active[WARP];
	unsigned long long addr[WARP];
	int bytes;
	int n_active;
	unsigned long long sector[WARP];	/* distinct sectors, ascending */
	int n_sectors;
	int lane_sector[WARP];		/* index into sector[] of each active lane */
};

static int cmp_ull(const void *a, const void *b)
{
	unsigned long long x = *(const unsigned long long *)a, y = *(const unsigned long long *)b;
	return (x > y) - (x < y);
}

/* Fills r from one example_requests entry; 0, or -1 when it has no lane. */
static int read_request(const json_t *e, struct request *r)
{
	json_t *lanes = json_object_get(e, "lane_addresses");
	const char *file = json_string_value(json_object_get(e, "file"));
	const char *kind = json_string_value(json_object_get(e, "kind"));
	unsigned long long all[WARP];

	memset(r, 0, sizeof(*r));
	snprintf(r->where, sizeof(r->where), "%s:%lld %s", file ? file : "?",
		 (long long)json_integer_value(json_object_get(e, "line")), kind ? kind : "access");
	r->bytes = (int)number_in(json_object_get(e, "bytes"), 0, 16);
	if (r->bytes == 0)
		r->bytes = 4;
	for (size_t i = 0; i < WARP && i < json_array_size(lanes); i++) {
		json_t *a = json_array_get(lanes, i);
		if (!json_is_number(a))
			continue;
		r->active[i] = 1;
		r->addr[i] = (unsigned long long)number_in(a, 0, 1ll << 62);
		all[r->n_active++] = r->addr[i] / 32;
	}
	if (r->n_active == 0)
		return -1;
	qsort(all, r->n_active, sizeof(all[0]), cmp_ull);
	for (int i = 0; i < r->n_active; i++)
		if (i == 0 || all[i] != all[i - 1])
			r->sector[r->n_sectors++] = all[i];
	for (int l = 0; l < WARP; l++) {
		if (!r->active[l])
			continue;
		unsigned long long *hit = bsearch(&(unsigned long long){r->addr[l] / 32}, r->sector,
						  r->n_sectors, sizeof(r->sector[0]), cmp_ull);
		r->lane_sector[l] = (int)(hit - r->sector);
	}
	return 0;
}

/* The example request touching the most sectors (the first of equals). */
static int worst_request(const json_t *analysis, struct request *worst)
{
	json_t *launch, *e;
	size_t i, j;
	int found = 0;
	struct request r;

	json_array_foreach(json_object_get(analysis, "launches"), i, launch) {
		json_array_foreach(json_object_get(launch, "example_requests"), j, e) {
			if (read_request(e, &r) == 0 && (!found || r.n_sectors > worst->n_sectors)) {
				*worst = r;
				found = 1;
			}
		}
	}
	return found;
}

/* One row of the diagram: lanes at y = 1, sectors as boxes at y = 0 in
 * address order, an arrow from each active lane into its sector. */
static void warp_panel(FILE *s, const char *title, const int *active, const int *lane_sector,
		       int n_sectors, const char *sector_note)
{
	double w = (double)WARP / n_sectors;

	fputs("$sec << EOD\n", s);
	for (int k = 0; k < n_sectors; k++) {
		double x = -0.5 + w * (k + 0.5);
		fprintf(s, "%g 0 %g %g -0.12 0.12\n", x, x - 0.42 * w, x + 0.42 * w);
	}
	fputs("EOD\n$lane << EOD\n", s);
	for (int l = 0; l < WARP; l++)
		fprintf(s, "%d 1 %d\n", l, active[l]);
	fputs("EOD\n$arrow << EOD\n", s);
	for (int l = 0; l < WARP; l++)
		if (active[l])
			fprintf(s, "%d 0.95 %g -0.8\n", l, -0.5 + w * (lane_sector[l] + 0.5) - l);
	fputs("EOD\nset title ", s);
	gp_str(s, title);
	fputs("\nset xlabel ", s);
	gp_str(s, sector_note);
	fputs("\nplot $sec with boxxyerror fs solid 0.35 lc rgb '#1f77b4' notitle, "
	      "$arrow with vectors head filled size 0.25,20 lc rgb '#555555' notitle, "
	      "$lane using 1:2:($3 != 0 ? 7 : 6) with points pt variable ps 1.1 lc rgb '#d62728' "
	      "notitle\n", s);
}

int chart_coalescing(const struct grade *g, enum plot_kind kind, const char *out_dir, char *msg,
		     size_t msglen)
{
	struct request r;
	char path[PATH_MAX], title[400], note[300];
	struct plot p;
	int ideal_sector[WARP];

	if (skipped(kind, msg, msglen))
		return 1;
	if (!g->analysis || !worst_request(g->analysis, &r)) {
		snprintf(msg, msglen, "coalescing chart skipped: the emulator recorded no "
				      "example request");
		return 1;
	}
	/* The ideal: the same active lanes reading consecutive words from an
	 * aligned start, 32 / (32 / bytes) = bytes sectors for a full warp. */
	int ideal = (r.n_active * r.bytes + 31) / 32;
	for (int l = 0; l < WARP; l++)
		ideal_sector[l] = l * r.bytes / 32;

	chart_path(path, sizeof(path), out_dir, g, "chart", "coalescing", kind);
	if (plot_begin(&p, kind, "coalescing", path, 1100, 650, 2, msg, msglen) != 0)
		return -1;
	FILE *s = p.s;
	fputs("set multiplot layout 2,1 title ", s);
	gp_strf(s, "%s: %d sector%s for one warp (ideal: %d)", r.where, r.n_sectors,
		r.n_sectors == 1 ? "" : "s", ideal);
	fputs("\nset xrange [-1:32]\nset yrange [-0.35:1.3]\nset xtics ('lane 0' 0, 8, 16, 24, "
	      "'lane 31' 31)\nset ytics ('32-byte sectors' 0, 'lanes' 1)\nunset key\n"
	      "set border 1\nset tics nomirror\n", s);

	long long stride = r.n_sectors > 1 ? (long long)(r.sector[1] - r.sector[0]) * 32 : 0;
	for (int k = 2; k < r.n_sectors; k++)
		if ((long long)(r.sector[k] - r.sector[k - 1]) * 32 != stride)
			stride = -1;
	if (r.n_sectors > 1 && stride > 0)
		snprintf(note, sizeof(note), "sectors in address order, each %lld bytes after "
					     "the last", stride);
	else
		snprintf(note, sizeof(note), "sectors in address order");
	snprintf(title, sizeof(title), "your kernel: %d lanes, %d-byte words, %d sectors",
		 r.n_active, r.bytes, r.n_sectors);
	warp_panel(s, title, r.active, r.lane_sector, r.n_sectors, note);
	snprintf(title, sizeof(title), "coalesced: consecutive lanes, consecutive words, %d sectors",
		 (WARP * r.bytes + 31) / 32);
	int all[WARP];
	for (int l = 0; l < WARP; l++)
		all[l] = 1;
	warp_panel(s, title, all, ideal_sector, (WARP * r.bytes + 31) / 32,
		   "each sector holds 32 bytes: one request, as few sectors as the bytes need");
	fputs("unset multiplot\n", s);
	return plot_end(&p, msg, msglen);
}

/* --- class histograms ----------------------------------------------------- */

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

#define MAX_BINS 2000

int chart_histogram(const char *title, const char *xlabel, const double *values, size_t n,
		    double bin_width, enum plot_kind kind, const char *out_path, char *msg,
		    size_t msglen)
{
	struct plot p;
	size_t m = 0;

	if (skipped(kind, msg, msglen))
		return 1;
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
	double lo = floor(v[0] / bin_width), hi = floor(v[m - 1] / bin_width);
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
		double bin = floor(v[i] / bin_width);
		size_t count = 0;
		for (; i < m && floor(v[i] / bin_width) == bin; i++)
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
