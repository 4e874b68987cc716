/*
 * Charts, drawn by gnuplot.
 *
 * gnuplot runs as a child process (no shell) reading a script on its
 * standard input; the data sits inside the script (`$data << EOD`), so
 * nothing is left behind. Every string that came from outside the grader
 * (a title, a device name, a student's folder) reaches gnuplot in single
 * quotes, the one kind of gnuplot string that neither runs `commands` nor
 * expands @macros.
 *
 * A chart file is rendered under a temporary name in its folder and renamed
 * into place when gnuplot succeeded (atomic_file.h): a chart that fails
 * half-way never replaces a good one.
 *
 * Every chart function returns 0 when it drew the chart, 1 when it skipped
 * it (gnuplot missing, --plot none, nothing to draw), -1 on an error; and
 * writes one line for the student into msg either way:
 *   "chart: build/charts/lab3-bandwidth.png"
 *   "charts skipped: gnuplot is not installed (apt-get install gnuplot-nox)"
 * PLOT_TERM draws with gnuplot's `dumb` terminal on standard output, as
 * wide as the terminal (100 x 30 when it cannot tell).
 *
 * The program is `gnuplot` from PATH, or whatever the GNUPLOT environment
 * variable names (a path, or a name looked up on PATH).
 */
#ifndef GRADER_CHART_H
#define GRADER_CHART_H

#include <stddef.h>

#include "steps/grade.h"

enum plot_kind { PLOT_PNG, PLOT_SVG, PLOT_TERM, PLOT_NONE };

/* "png", "svg", "term", "none" (any case). Returns 0, or -1 for anything
 * else, leaving *k alone. */
int plot_kind_parse(const char *s, enum plot_kind *k);

/* "png", "svg", "term", "none". */
const char *plot_kind_name(enum plot_kind k);

/* 1 when the gnuplot program (see above) is there to run, else 0. */
int gnuplot_available(void);

/* Effective bandwidth (GB/s) against problem size from g->bench, on a
 * log2 axis labelled with the shapes: the submission, the reference
 * solution and the copy ceiling. Skipped when nothing was measured.
 * File: OUT_DIR/LAB-bandwidth.EXT. */
int chart_bandwidth(const struct grade *g, enum plot_kind kind, const char *out_dir, char *msg,
		    size_t msglen);

/* Active threads and active warps per step of a 1024-element block scan:
 * Hillis-Steele (lab 1, 1024 threads, 289 warp-steps) against Blelloch
 * (lab 2, 512 threads, 71 warp-steps), as in the handouts. When g is not
 * NULL and g->analysis holds measured active_warps_per_line, the chart
 * shows those instead (with the handout's figure for the lab dashed, for
 * comparison) and says so in its title.
 * File: OUT_DIR/LAB-active-threads.EXT ("scan-active-threads" when g is NULL). */
int chart_active_threads(const struct grade *g, enum plot_kind kind, const char *out_dir,
			 char *msg, size_t msglen);

/* One warp's memory request from g->analysis "example_requests", the one
 * that touches the most 32-byte sectors: lane by lane, an arrow from each
 * lane to the sector it touches, above the ideal (consecutive words: 4
 * sectors for 32 floats). Skipped when there is no example request.
 * File: OUT_DIR/LAB-coalescing.EXT. */
int chart_coalescing(const struct grade *g, enum plot_kind kind, const char *out_dir, char *msg,
		     size_t msglen);

/* Lab 4: percent of copy bandwidth against occupancy, from g->metrics
 * "sweep" (the grader's sweep of the student's kernel), with the graded
 * launch marked and the copy ceiling at 100%. Skipped without a sweep.
 * File: OUT_DIR/LAB-occupancy.EXT. */
int chart_occupancy(const struct grade *g, enum plot_kind kind, const char *out_dir, char *msg,
		    size_t msglen);
/* A histogram of values[0..n) in bins of bin_width (NaNs left out), for the
 * instructor's class charts. out_path is the file (ignored for PLOT_TERM). */
int chart_histogram(const char *title, const char *xlabel, const double *values, size_t n,
		    double bin_width, enum plot_kind kind, const char *out_path, char *msg,
		    size_t msglen);

#endif
