/*
 * The charts, one file each (chart_*.c), drawn by the gnuplot engine
 * (gnuplot.h). A chart takes what it draws from a grade and its lab's
 * description (struct lab), never from a lab's name.
 *
 * Every chart function returns one of enum chart_outcome, and writes one
 * line for the student into msg either way:
 *   "chart: build/charts/lab3-bandwidth.png"
 *   "charts skipped: gnuplot is not installed (apt-get install gnuplot-nox)"
 * PLOT_TERM draws with gnuplot's `dumb` terminal on standard output, as
 * wide as the terminal (100 x 30 when it cannot tell).
 */
#ifndef GRADER_CHART_H
#define GRADER_CHART_H

#include <glob.h>
#include <stddef.h>

#include "chart/plot_kind.h"
#include "steps/grade.h"

enum chart_outcome {
	CHART_ERROR = -1,
	CHART_DRAWN = 0,
	CHART_SKIPPED = 1,	/* nothing of this chart to draw */
	CHART_NONE_DRAWN = 2,	/* no chart can be drawn at all: --plot none, no gnuplot */
};

/* Every chart g has something for (bandwidth, occupancy, active threads,
 * coalescing), into out_dir; said (if not NULL) gets each chart's message.
 * Stops at the first CHART_NONE_DRAWN. Returns how many were drawn. */
int chart_grade(const struct grade *g, enum plot_kind kind, const char *out_dir,
		void (*said)(const char *msg, void *arg), void *arg);

/* The chart files of g's lab in dir (an earlier grade's) removed. */
void chart_remove_grade(const struct grade *g, const char *dir);

/* g's charts drawn afresh as SVG into dir, quietly (none without
 * gnuplot), their files in *found (globfree it when 0 is returned). */
int chart_grade_svg(const struct grade *g, const char *dir, glob_t *found);

/* Effective bandwidth (GB/s) against problem size from g->bench, on a
 * log2 axis labelled with the shapes: the submission, the reference
 * solution and the copy ceiling. Skipped when nothing was measured.
 * File: OUT_DIR/LAB-bandwidth.EXT. */
int chart_bandwidth(const struct grade *g, enum plot_kind kind, const char *out_dir, char *msg,
		    size_t msglen);

/* The student's kernel, active warps per step, as the emulator measured it
 * (g->analysis): one block of the block scan (totals.block_scan_launch),
 * its barrier intervals in order from step 0 (the load, before the first
 * barrier), the warps storing to shared memory in each; over them, the
 * lines of that launch's active_warps_per_line at their own steps (lines
 * with the same steps as one). The handout's figure for g's lab is a dashed
 * reference line at steps 1 .. n, where its table puts them. Skipped (1)
 * when g has no measurement. g NULL: the handouts' figures alone, every
 * lab's handout_steps side by side (Hillis-Steele, lab 1, 289 warp-steps,
 * against Blelloch, lab 2, 71), for the documentation.
 * File: OUT_DIR/LAB-active-threads.EXT ("scan-active-threads" when g is NULL). */
int chart_active_threads(const struct grade *g, enum plot_kind kind, const char *out_dir,
			 char *msg, size_t msglen);

/* One warp's memory request from g->analysis "example_requests", the one
 * that touches the most 32-byte sectors: lane by lane, an arrow from each
 * lane to the sector it touches, above the ideal (consecutive words: 4
 * sectors for 32 floats); when it already touches no more sectors than
 * its bytes need, that one panel alone, titled "already coalesced".
 * Skipped when there is no example request.
 * File: OUT_DIR/LAB-coalescing.EXT. */
int chart_coalescing(const struct grade *g, enum plot_kind kind, const char *out_dir, char *msg,
		     size_t msglen);

/* Lab 4: percent of copy bandwidth against occupancy, from g->sweep
 * (the grader's sweep of the student's kernel), with the graded
 * launch marked and the copy ceiling at 100%. Skipped without a sweep.
 * File: OUT_DIR/LAB-occupancy.EXT. */
int chart_occupancy(const struct grade *g, enum plot_kind kind, const char *out_dir, char *msg,
		    size_t msglen);
/* A histogram of values[0..n) in bins of bin_width (NaNs left out), for the
 * instructor's class charts. out_path is the file (ignored for PLOT_TERM). */
int chart_histogram(const char *title, const char *xlabel, const double *values, size_t n,
		    double bin_width, enum plot_kind kind, const char *out_path, char *msg,
		    size_t msglen);
/* The histogram's bin of value (bins [k w, (k+1) w)), where top is the
 * largest value drawn: the last bin is closed, so that a top on a bin edge
 * (a score of 100 in bins of 10) is counted in the bin below it, and no bar
 * reaches past the largest value. */
double chart_histogram_bin(double value, double bin_width, double top);

#endif
