/*
 * The gnuplot engine every chart is drawn with.
 *
 * A chart writes one gnuplot script between plot_begin() (terminal,
 * output) and plot_end(), which runs gnuplot on it through sandbox_run (a
 * child with a deadline, the script on its standard input) and commits the
 * chart file, or discards it when gnuplot failed: a chart that fails
 * half-way never replaces a good one (atomic_file.h). A terminal drawing
 * goes to a file of its own and is copied to stdout when it is whole.
 *
 * Every string that came from outside the grader reaches gnuplot through
 * gp_str(): single quotes, the one kind of gnuplot string that neither
 * runs `commands` nor expands @macros.
 */
#ifndef GRADER_GNUPLOT_H
#define GRADER_GNUPLOT_H

#include <stdio.h>

#include "chart/plot_kind.h"
#include "steps/grade.h"
#include "sys/atomic_file.h"

struct plot {
	enum plot_kind kind;
	const char *what;	/* "bandwidth": for the message of a terminal chart */
	FILE *s;		/* the script, in memory */
	char *buf;
	size_t len;
	struct atomic_file af;	/* the chart file, for PNG and SVG */
	char drawing[64];	/* the terminal drawing's temporary file, for PLOT_TERM */
};

/* 1 when the gnuplot program is there to run (gnuplot on PATH, or what
 * the GNUPLOT environment variable names), else 0. */
int gnuplot_available(void);

/* 1 (and the reason in msg) when no chart of this kind can be drawn:
 * --plot none, or no gnuplot. */
int plot_skipped(enum plot_kind kind, char *msg, size_t msglen);

/* Starts a script drawing to path (ignored for PLOT_TERM), w x h pixels;
 * a chart of two panels gets half as many lines again on a terminal.
 * Returns 0, or -1 with msg. */
int plot_begin(struct plot *p, enum plot_kind kind, const char *what, const char *path, int w,
	       int h, int panels, char *msg, size_t msglen);

/* Runs the script; commits the chart file when gnuplot succeeded and wrote
 * something, else removes it. Returns 0 or -1; msg says where the chart
 * went or why it did not. */
int plot_end(struct plot *p, char *msg, size_t msglen);

/* Abandons a script begun by plot_begin. */
void plot_cancel(struct plot *p);

/* s as a gnuplot single-quoted string (a quote doubled; a control
 * character, which such a string cannot hold, becomes a space). */
void gp_str(FILE *f, const char *s);

/* gp_str of a formatted string. */
__attribute__((format(printf, 2, 3)))
void gp_strf(FILE *f, const char *fmt, ...);

/* OUT_DIR/LAB-WHAT.EXT (LAB: g's lab, else fallback), or "" for PLOT_TERM. */
void chart_path(char *buf, size_t len, const char *out_dir, const struct grade *g,
		const char *fallback, const char *what, enum plot_kind kind);

/* " value", or " ?" (gnuplot's missing value here) when not measured. */
void put_value(FILE *f, double v);

/* A number from a grade's analysis, clamped to [lo, hi]: the document
 * comes from a run of the student's code, and converting an out-of-range
 * double to an integer is undefined behaviour. Not a number: lo. */
long long analysis_number(const json_t *v, long long lo, long long hi);

#endif
