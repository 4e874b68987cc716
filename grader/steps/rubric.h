/*
 * A lab's rubric (labs/labN-NAME/lab.ini), read with libinih.
 *
 * Every key is checked: an unknown section or key, a value that does not
 * parse, or a band whose lower edge is not below its upper edge is an error
 * naming the file, the line and the key (exit status 2).
 */
#ifndef GRADER_RUBRIC_H
#define GRADER_RUBRIC_H

#include <stddef.h>

#include "shape.h"
#include "steps/analysis_check.h"

#define RUBRIC_MAX_BYTES (1 << 20)
#define RUBRIC_MAX_SHAPES 32
#define RUBRIC_MAX_BANDS 16
#define RUBRIC_MAX_SYMBOLS 128
#define RUBRIC_MAX_FIXTURES 8

/* Points that grow linearly from 0 at lower_pct to full at upper_pct. */
struct band {
	double lower_pct;
	double upper_pct;
};

/* A GPU model's own band, written by --calibrate: [gpu "NVIDIA H100 80GB HBM3"]. */
struct gpu_band {
	char device[128];
	struct band band;
	char measured[256];	/* free text: when and what calibration saw */
};

struct rubric {
	char path[512];

	/* [correctness] */
	struct shape shapes[RUBRIC_MAX_SHAPES];
	int n_shapes;
	struct shape emu_shapes[RUBRIC_MAX_SHAPES];	/* smaller, for the emulator */
	int n_emu_shapes;
	double correctness_points;	/* split evenly over the shapes */
	/* A size's wall-clock limit: test_time_factor times the reference
	 * solution's time for that size here, at least test_time_floor_s, at
	 * most test_timeout_s (all of it where no reference time is known:
	 * steps/time_limit.h). */
	double test_timeout_s;
	double test_time_factor;
	double test_time_floor_s;

	/* [performance] */
	struct shape perf_shape;	/* the graded size, well over the L2 */
	struct shape chart_shapes[RUBRIC_MAX_SHAPES];	/* bandwidth-against-size chart */
	int n_chart_shapes;
	int runs;			/* timed runs per size; the median counts */
	double performance_points;
	struct band default_band;	/* percent of copy, for a GPU with no section */
	struct band reference_band;	/* percent of the reference solution's bandwidth */
	double bench_timeout_s;
	/* Lab 4: every kernel launched in the timed call must run at or below
	 * this occupancy (percent); < 0 when the key is absent (no cap). */
	double max_occupancy_pct;
	int sweep_runs;			/* timed runs per point of the occupancy sweep; 0: no sweep */
	int predicted;			/* 1: the emulator grades the performance model's prediction */
	/* gate = NAME ...: the performance points count only when these
	 * analysis checks pass (by analysis_check.h's table; NAME is the check's
	 * rubric key without "max_", e.g. active_warp_steps). */
	int performance_gate[ANALYSIS_CHECKS];

	/* [occupancy]: lab 4's calculator, checked against tables of the CUDA
	 * occupancy API's answers: the stored ones named here (sm_80 ...), and
	 * on a GPU this GPU's own. Points are split evenly over the tables. */
	char *occupancy_tables[RUBRIC_MAX_FIXTURES];
	int n_occupancy_tables;
	double occupancy_points;	/* 0 when there is no [occupancy] section */
	double occupancy_timeout_s;

	/* [gpu "NAME"] sections */
	struct gpu_band gpus[RUBRIC_MAX_BANDS];
	int n_gpus;

	/* [analysis]: a check runs only when its key is present. */
	struct shape analysis_shape;
	double analysis_points;		/* split evenly over the checks present */
	double analysis_limit[ANALYSIS_CHECKS];	/* by analysis_check.h's table; < 0: absent */
	double analysis_timeout_s;

	/* [integrity] */
	char *forbid[RUBRIC_MAX_SYMBOLS];	/* glob patterns on undefined symbols */
	int n_forbid;
	char *allow[RUBRIC_MAX_SYMBOLS];	/* glob patterns on undefined symbols */
	int n_allow;

	/* [limits] */
	double build_timeout_s;
	double cpu_time_s;		/* RLIMIT_CPU of the child */
	size_t output_limit_bytes;	/* stdout+stderr kept from the child */
	double memory_mb;		/* a harness's memory: its cgroup's cap, and RLIMIT_AS when emulated */
	double disk_mb;			/* the harness's private /tmp, under bubblewrap */

	/* [calibrate]: fixtures relative to the repository root */
	char *calib_zero[RUBRIC_MAX_FIXTURES];	/* must earn no performance points */
	int n_calib_zero;
	char *calib_partial[RUBRIC_MAX_FIXTURES];	/* must earn some, not all */
	int n_calib_partial;
	char *calib_full[RUBRIC_MAX_FIXTURES];	/* must earn full points */
	int n_calib_full;
	double calib_margin;		/* the reference's bandwidth over upper_pct, at least */
};

/* Loads path into r. rank is the lab's shape rank, so "1025" in a
 * transpose rubric is an error. Returns 0, or -1 with one line in err:
 * "labs/lab3-transpose/lab.ini:12: key 'runs': expected a whole number, got 'x'". */
int rubric_load(const char *path, int rank, struct rubric *r, char *err, size_t errlen);

void rubric_free(struct rubric *r);

/* The most a submission can score: the points of every group the rubric
 * gives points to (analysis only when it sets a check). The same on every
 * backend and for every submission. */
double rubric_max_score(const struct rubric *r);

/* The name a gate uses for analysis check i: its rubric key without "max_". */
const char *rubric_gate_name(int check);

/* The band for a device, or NULL if the rubric has no section for it. */
const struct gpu_band *rubric_gpu_band(const struct rubric *r, const char *device);

/* Writes (or replaces) the [gpu "device"] section of the file at path,
 * keeping every other line as it was; atomic (temporary file + rename). */
int rubric_write_gpu_band(const char *path, const struct gpu_band *b, char *err, size_t errlen);

#endif
