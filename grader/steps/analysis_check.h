/*
 * The analysis checks, one table (analysis.c) for every place that names
 * them: the rubric's [analysis] keys, the grade's analysis step, the
 * summary in a report's metrics, and the tests.
 */
#ifndef GRADER_ANALYSIS_CHECK_H
#define GRADER_ANALYSIS_CHECK_H

#include <jansson.h>

struct test_result;

enum analysis_check {
	CHECK_LOAD_SECTORS,
	CHECK_STORE_SECTORS,
	CHECK_SHARED_WAVEFRONTS,
	CHECK_RACES,
	CHECK_UNINIT_SHARED_READS,
	CHECK_ACTIVE_WARP_STEPS,
	CHECK_WORK,
	CHECK_WORK_NOTE,
	CHECK_SECTORS_NOTE,
	CHECK_WAVEFRONTS_NOTE,
	ANALYSIS_CHECKS
};

struct analysis_check_info {
	const char *name;	/* the test is "analysis: NAME" */
	const char *rubric_key;	/* its limit in [analysis]; the check runs when present */
	double lowest, highest;	/* the limits a rubric may set */
	const char *total;	/* the figure in the emulator's metrics "totals" */
	const char *summary;	/* the same figure in a grade's metrics */
	/* Passes or fails t: the figure in metrics against limit; source is
	 * the submission's path (its declarations make the hints precise). */
	void (*check)(struct test_result *t, json_t *metrics, double limit, const char *source);
	int note;		/* information only: a test of no points, never failed */
};

extern const struct analysis_check_info analysis_checks[ANALYSIS_CHECKS];

#endif
