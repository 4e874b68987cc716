/*
 * One grade: the results of every test of one submission, and what the
 * report, the JSON and the charts are made from.
 */
#ifndef GRADER_GRADE_H
#define GRADER_GRADE_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "labs/lab.h"
#include "steps/analysis_check.h"
#include "steps/rubric.h"

enum test_group {
	GROUP_BUILD,
	GROUP_CORRECTNESS,
	GROUP_PERFORMANCE,
	GROUP_ANALYSIS,
	GROUP_INTEGRITY,
};
#define GROUP_COUNT 5

/* The order a student thinks in: did it build, is it honest, is it right,
 * is it fast, is it fast for the right reasons. Every report, gradebook
 * and summary lists groups in this order. */
extern const enum test_group group_order[GROUP_COUNT];

enum test_status {
	TEST_PASSED,
	TEST_FAILED,
	TEST_NOT_MEASURED,	/* could not be measured here (no GPU): neither passed nor failed */
	TEST_SKIPPED,		/* not run, because an earlier test failed */
};

enum backend { BACKEND_AUTO, BACKEND_CUDA, BACKEND_EMU };

/* What a test checks. Its group says where its points count; its kind
 * says what it is, so that no later stage reads that from its name. */
enum test_kind {
	KIND_OTHER,
	KIND_BUILD,		/* compiling and linking */
	KIND_SYMBOLS,		/* the integrity check of the object file */
	KIND_SIZE,		/* the entry point's output at one size (test_result.shape) */
	KIND_OCCUPANCY,		/* lab 4's occupancy calculator against the API */
	KIND_BANDWIDTH,		/* the timed (or predicted) performance */
	KIND_ANALYSIS,		/* the emulator's run as a whole (no check ran) */
	KIND_ANALYSIS_CHECK,	/* one check of the emulator's metrics (test_result.check) */
	KIND_ANALYSIS_NOTE,	/* one of the emulator's warnings, no points */
	KIND_UNREACHED,		/* a group's points the grade never came to */
};

/* What went wrong, as data: the gradebook, the gates and the summaries
 * switch on it, never on a message (which may quote the student's output,
 * or the compiler quoting the student's source). */
enum failure_kind {
	FAILURE_NONE,
	FAILURE_WRONG_OUTPUT,		/* first_wrong: the first wrong element */
	FAILURE_OUTPUT_NOT_WRITTEN,	/* the first wrong element still held the poison */
	FAILURE_WROTE_BEFORE_OUTPUT,
	FAILURE_WROTE_PAST_OUTPUT,
	FAILURE_WROTE_INPUT,
	FAILURE_DIGEST_DIFFERS,		/* the output's hash is not the reference's (output_digest.h) */
	FAILURE_INCOMPLETE_REPORT,	/* the harness's output frame had the wrong size */
	FAILURE_CHANNEL_TAMPERED,
	FAILURE_CRASH,			/* signal */
	FAILURE_TIME_LIMIT,		/* the grader's limit, or the emulator's watchdog */
	FAILURE_OUT_OF_MEMORY,		/* the process passed its memory cap */
	FAILURE_EMULATOR_STOPPED,	/* the emulator ended the program (not a time-out) */
	FAILURE_CUDA_ERROR,		/* name: the error's name */
	FAILURE_EXIT_INSIDE_CALL,	/* the process ended inside the entry point */
	FAILURE_BEFORE_CALL,		/* the harness failed before calling the entry point */
	FAILURE_AFTER_CALL,		/* the harness failed after it returned */
	FAILURE_DIED_BEFORE_CALL,	/* the process ended before the call */
	FAILURE_NOT_STARTED,		/* the grader could not start the child */
	FAILURE_NOT_RUN,		/* not run: the kernel hung on earlier sizes */
	FAILURE_GRADER,			/* the grader's own trouble (memory for the reference) */
	FAILURE_REFUSED,		/* refusal, name: the symbol */
	FAILURE_SYMBOL_CHECK,		/* the symbol check itself could not run */
	FAILURE_TIMINGS_NOT_BELIEVED,
	FAILURE_SLOW,			/* measured, and below full points */
	FAILURE_GATE_SHUT,		/* points withheld by a gate (gates.h) */
	FAILURE_BUILD,			/* the compiler or linker refused the file */
	FAILURE_BUILD_TIME_OUT,
	FAILURE_BUILD_OUT_OF_MEMORY,
	FAILURE_NOT_BELIEVED,		/* the analysis is of another program than the GPU's */
	FAILURE_DEPENDS_ON_RACE,	/* right here, but its result depends on a race (findings.h) */
	FAILURE_OUTSIDE_BUFFER,		/* right here, but computed with an access outside a buffer */
	FAILURE_OTHER,			/* the message says it all */
};

/* Why the symbol check refused a file (FAILURE_REFUSED). */
enum refusal {
	REFUSED_OTHER,			/* the emulator's controls, a system call of its own */
	REFUSED_CALL,			/* calls a function the rubric forbids */
	REFUSED_CALL_NOT_ALLOWED,	/* calls a function the lab does not allow */
	REFUSED_DEFINITION,		/* defines a forbidden name or a library's */
};

struct failure {
	enum failure_kind kind;
	int signal;			/* FAILURE_CRASH */
	long long first_wrong;		/* FAILURE_WRONG_OUTPUT, FAILURE_OUTPUT_NOT_WRITTEN */
	enum refusal refusal;		/* FAILURE_REFUSED */
	int exit_caught;		/* FAILURE_EXIT_INSIDE_CALL: the harness caught the exit()
					 * and went on with the next size in the same process */
	int exit_status;		/* the status that exit() asked for, when caught */
	char name[168];			/* the CUDA error's name; the refused symbol */
};

#define GRADE_MAX_TESTS 64
#define TEST_MESSAGE_LEN 1024

struct test_result {
	char name[64];		/* "correctness 31x33": display only */
	enum test_group group;
	enum test_kind kind;
	int check;		/* KIND_ANALYSIS_CHECK: its enum analysis_check */
	struct shape shape;	/* KIND_SIZE: the size it ran */
	enum test_status status;
	struct failure failure;	/* what went wrong; kind FAILURE_NONE when passed */
	double points;
	double max_points;
	char message[TEST_MESSAGE_LEN];	/* why, in a student's words; "" when passed */
};

/* One point of the bandwidth-against-size chart. Negative: not measured. */
struct bench_point {
	struct shape shape;
	double bytes;
	double student_gbps;
	double reference_gbps;
	double copy_gbps;
};

#define GRADE_MAX_BENCH 32
#define GRADE_MAX_STEPS 16

/* The performance test's figures, measured on a GPU (performance.c). */
struct perf_figures {
	int measured;			/* gbps .. peak_gbps hold a timing that was believed */
	double gbps, copy_gbps;
	double percent_of_copy;
	double timing_spread;		/* (q3 - q1) / median of the kernel's times */
	int runs;
	double bytes, peak_gbps;
	double reference_gbps;		/* the reference timed beside; < 0: none */
	double percent_of_reference;
	double occupancy_pct;		/* the highest of the launches; < 0: none recorded */
	char launch[224];		/* the launch of that occupancy */
	json_t *launches;		/* the launch log at the graded size, or NULL */
};

/* The performance model's prediction for a GPU (prediction.c). */
struct prediction {
	int made;			/* the fields below hold one */
	char gpu[128];			/* the GPU it is for */
	double percent_of_copy;
	double time_ms, copy_gbps, dram_bytes, min_bytes;
	long launches;
	char bound[32];			/* model_bound_name() */
	char why[800];			/* its explanation, for the report */
	double occupancy_pct;
	char error[TEST_MESSAGE_LEN];	/* why none was made; "" when none was tried */
};

/* Lab 4: bandwidth against occupancy, timed by the performance child. */
struct sweep {
	json_t *points;			/* its MSG_TIMINGs, each with its occupancy, or NULL */
	char error[TEST_MESSAGE_LEN];	/* why there are no points believed; "" */
};

/* The analysis run's figures (analysis.c), one per check. */
struct analysis_figures {
	char shape[64];			/* the size analysed; "" when none ran */
	int second_call;		/* of the second call of its process: the first launched
					 * otherwise than a later call (launch_match.h) */
	double figure[ANALYSIS_CHECKS];	/* the check's total; < 0 when absent */
};

/* A race that a kernel's result depends on: two threads of a block, one
 * writing a word and the other reading it, with no barrier between, as the
 * emulator's analysis found it (findings_race). Which comes first decides
 * what the reader reads, so the result is a matter of timing on a GPU. */
enum race_kind { RACE_RAW, RACE_WAR };
struct race_dependence {
	int found;			/* the fields below hold one */
	enum race_kind kind;		/* RAW: the read came after the write here */
	char read_file[96];		/* where the read whose value depends on it is, base name */
	long read_line;
	char write_file[96];		/* where the other thread's write is */
	long write_line;
	long long count;		/* how many times the emulator saw it */
	int sizes_failed;		/* sizes that passed here and were failed for it */
};

/* An access just outside a buffer -- past the end or before the start of
 * a cudaMalloc buffer or a __shared__ array, or inside a freed buffer --
 * at which the emulator's analysis run stopped (findings_bounds), or that a
 * correctness size both backends check saw (findings_bounds_at_size). A GPU
 * seldom faults there: it reads or overwrites whatever lies there, so a
 * result computed with it is right or wrong by chance. */
struct bounds_fault {
	int found;			/* the fields below hold one */
	int at_size;			/* seen by a correctness size's own run, not the analysis's */
	enum failure_kind kind;		/* at_size: how that size failed */
	char file[96];			/* where the access is, base name; "" when only the
					 * output's guard words or the GPU saw it (line 0) */
	long line;
	char shape[64];			/* the size it was seen at */
	int sizes_failed;		/* sizes that passed here and were failed for it */
};

/* On a GPU: did the emulator's build launch what nvcc's build launches at
 * the analysis shape (launch_match.h)? */
struct launch_match {
	int checked;			/* the comparison ran */
	int believed;			/* the launches were the same, the output right */
	int same_launches;		/* the launches were the same, right output or not */
	int emulator_within;		/* the emulator's launches were among the GPU's: its run of
					 * the same program ended early (a fault) */
	int gpu_stopped;		/* the GPU's run ended with a CUDA error too */
	int own_process;		/* the GPU's run was a process of its own: the one
					 * after the correctness sizes did not settle it */
	char why[TEST_MESSAGE_LEN / 2];	/* the first difference, when not */
};

/* How long the steps that ran beside the grade took (side.h), and the CPU
 * seconds of the forks that ran them, their children's included. */
struct beside_seconds {
	int joined;
	double calculator, emulator_build, prediction, analysis;
	double cpu;
};

struct grade {
	const struct lab *lab;
	enum backend backend;		/* the one actually used */
	char device[128];		/* "NVIDIA H100 80GB HBM3" or "CPU emulator" */
	char submission[512];		/* the graded file */
	uint64_t seed;
	char band_source[768];		/* which band performance was scored against, and why */
	/* Why the reference solution was not timed beside the submission (it
	 * did not build, its timing failed), or "": said in band_source. */
	char reference_failure[512];

	struct test_result tests[GRADE_MAX_TESTS];
	int n_tests;

	struct bench_point bench[GRADE_MAX_BENCH];
	int n_bench;

	char build_log[8192];		/* compiler output, shown on a build failure */
	int build_failed;		/* exit status 3 */
	int internal_error;		/* exit status 4: could not run at all */
	char internal_message[512];

	int hangs;			/* correctness runs stopped at their time limit */
	/* The children correctness started: on a GPU, each made a CUDA context
	 * (correctness_plan.h), the cost of a failing student in a batch. */
	int correctness_processes;
	/* The children the performance step started to time the submission: 0
	 * where the correctness run's process timed it after its sizes. */
	int timing_processes;
	struct perf_figures perf;
	struct prediction prediction;
	struct sweep sweep;
	struct analysis_figures figures;
	struct beside_seconds beside;
	struct launch_match launch_match;
	struct race_dependence race;	/* set at the analysis step, on either backend */
	struct bounds_fault bounds;	/* the one applied (findings_apply_bounds): the analysis
					 * run's, set there on either backend, or bounds_at_size */
	struct bounds_fault bounds_at_size;	/* the first correctness size that showed one */
	json_t *analysis;		/* the emulator's metrics (MSG_METRICS), or NULL */
	/* The graded file as graded (the grader's own copy, at most 1 MiB), for
	 * the HTML report's listing, or NULL; source_name, its base name, is
	 * how the emulator's metrics name it. */
	char *source;
	char source_name[256];

	/* How the untrusted children ran (isolation_describe): bubblewrap or
	 * not, and as which user. Set by grade_submission. */
	char isolation_note[512];
	char gpu[64];		/* the children's CUDA_VISIBLE_DEVICES; "" for the grader's own */

	/* Wall time of each step that ran, in the order of grade_step_name():
	 * where a grade's seconds go, in every report. */
	double step_seconds[GRADE_MAX_STEPS];
	/* And the CPU seconds each used, the grader's and its reaped
	 * children's (cpu_seconds_used), but not the forks' that ran beside
	 * (beside.cpu; a fork stopped unreported counts in the step that
	 * stopped it): with beside.cpu, what a grade costs the host's cores. */
	double step_cpu_seconds[GRADE_MAX_STEPS];
	int n_steps;
};

void grade_init(struct grade *g, const struct lab *lab);
void grade_free(struct grade *g);

/* Keeps the text of the file at path in g->source (see struct grade). */
void grade_keep_source(struct grade *g, const char *path);

/* Appends a test and returns it (NULL when full, which is a bug). */
struct test_result *grade_add_test(struct grade *g, const char *name, enum test_group group,
				   double max_points);

/* Removes what the analysis step put in g (its tests, the others' order
 * kept; its metrics, figures and access outside a buffer), so that it can
 * run again (on a second call, launch_match.h). */
void grade_clear_analysis(struct grade *g);

void test_pass(struct test_result *t, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void test_fail(struct test_result *t, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* test_fail with what went wrong as data. */
void test_fail_as(struct test_result *t, enum failure_kind kind, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Points as every report writes them: rounded to 2 decimals. */
double points_round(double v);

/* Test i's share of total points split over n tests, in whole cents, the
 * first ones a cent more where it does not divide: the shares add up to
 * total exactly, as a gradebook's columns must (50 over 13 sizes: 3.85 eight
 * times, 3.84 five times, not thirteen 3.85 that make 50.05). */
double points_share(double total, int n, int i);

/* Sums of the tests' points, rounded (points_round). */
double grade_score(const struct grade *g);
double grade_max_score(const struct grade *g);
/* Points of one group, for the gradebook's columns. */
double grade_group_points(const struct grade *g, enum test_group group);
/* 1 when every test that ran passed; a test that could not be measured
 * counts as failed when it carries points. */
int grade_passed(const struct grade *g);
/* Writes to instead of from in every text of g (the build log, the
 * messages): the grader's copy of a file becomes the student's own name. */
void grade_replace_path(struct grade *g, const char *from, const char *to);

/* The exit status (./grade --help): 0, 1, 3 or 4. */
int grade_exit_status(const struct grade *g);

const char *group_name(enum test_group group);	/* "correctness" */
const char *status_name(enum test_status s);	/* "passed" */
const char *backend_name(enum backend b);	/* "cuda" */

#endif
