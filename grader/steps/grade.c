/* The grade record: tests, points and the exit status they add up to. */
#include "steps/grade.h"
#include "sys/text_replace.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

static void figures_clear(struct analysis_figures *f)
{
	*f = (struct analysis_figures){ .shape = "" };
	for (int i = 0; i < ANALYSIS_CHECKS; i++)
		f->figure[i] = -1;
}

void grade_init(struct grade *g, const struct lab *lab)
{
	memset(g, 0, sizeof(*g));
	g->lab = lab;
	g->perf.reference_gbps = -1;
	g->perf.occupancy_pct = -1;
	figures_clear(&g->figures);
}

void grade_free(struct grade *g)
{
	json_decref(g->perf.launches);
	json_decref(g->sweep.points);
	json_decref(g->analysis);
	g->perf.launches = g->sweep.points = g->analysis = NULL;
	free(g->source);
	g->source = NULL;
}

void grade_keep_source(struct grade *g, const char *path)
{
	enum { MAX_SOURCE = 1 << 20 };
	FILE *f = fopen(path, "rb");
	const char *slash = strrchr(path, '/');
	snprintf(g->source_name, sizeof(g->source_name), "%s", slash ? slash + 1 : path);
	free(g->source);
	g->source = NULL;
	if (!f)
		return;
	char *text = malloc(MAX_SOURCE + 1);
	size_t n = text ? fread(text, 1, MAX_SOURCE + 1, f) : 0;
	if (text && !ferror(f) && n <= MAX_SOURCE) {
		text[n] = '\0';
		g->source = text;
	} else {
		free(text);
	}
	fclose(f);
}

/* The kind of a group's usual test; the steps that add others say so. */
static const enum test_kind default_kind[GROUP_COUNT] = {
	[GROUP_BUILD] = KIND_BUILD,
	[GROUP_CORRECTNESS] = KIND_SIZE,
	[GROUP_PERFORMANCE] = KIND_BANDWIDTH,
	[GROUP_ANALYSIS] = KIND_ANALYSIS,
	[GROUP_INTEGRITY] = KIND_SYMBOLS,
};

struct test_result *grade_add_test(struct grade *g, const char *name, enum test_group group,
				   double max_points)
{
	if (g->n_tests >= GRADE_MAX_TESTS)
		return NULL;
	struct test_result *t = &g->tests[g->n_tests++];
	memset(t, 0, sizeof(*t));
	snprintf(t->name, sizeof(t->name), "%s", name);
	t->group = group;
	t->kind = default_kind[group];
	t->max_points = max_points;
	t->status = TEST_SKIPPED;
	return t;
}

void grade_clear_analysis(struct grade *g)
{
	int kept = 0;
	for (int i = 0; i < g->n_tests; i++)
		if (g->tests[i].group != GROUP_ANALYSIS)
			g->tests[kept++] = g->tests[i];
	g->n_tests = kept;
	json_decref(g->analysis);
	g->analysis = NULL;
	figures_clear(&g->figures);
	g->bounds = (struct bounds_fault){ 0 };
}

static void set_message(struct test_result *t, const char *fmt, va_list ap)
{
	if (fmt)
		vsnprintf(t->message, sizeof(t->message), fmt, ap);
	else
		t->message[0] = '\0';
}

void test_pass(struct test_result *t, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	set_message(t, fmt, ap);
	va_end(ap);
	t->status = TEST_PASSED;
	t->points = t->max_points;
	memset(&t->failure, 0, sizeof(t->failure));
}

static void set_failed(struct test_result *t, enum failure_kind kind)
{
	t->status = TEST_FAILED;
	t->points = 0;
	memset(&t->failure, 0, sizeof(t->failure));
	t->failure.kind = kind;
}

void test_fail(struct test_result *t, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	set_message(t, fmt, ap);
	va_end(ap);
	set_failed(t, FAILURE_OTHER);
}

void test_fail_as(struct test_result *t, enum failure_kind kind, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	set_message(t, fmt, ap);
	va_end(ap);
	set_failed(t, kind);
}

double points_round(double v)
{
	double r = round(v * 100) / 100;
	return r == 0 ? 0 : r;	/* no -0 */
}

double points_share(double total, int n, int i)
{
	if (n <= 0)
		return 0;
	long cents = lround(total * 100), each = cents / n, extra = cents % n;
	return (double)(each + (i < extra)) / 100;
}

double grade_score(const struct grade *g)
{
	double s = 0;
	for (int i = 0; i < g->n_tests; i++)
		s += g->tests[i].points;
	return points_round(s);
}

double grade_max_score(const struct grade *g)
{
	double s = 0;
	for (int i = 0; i < g->n_tests; i++)
		s += g->tests[i].max_points;
	return points_round(s);
}

double grade_group_points(const struct grade *g, enum test_group group)
{
	double s = 0;
	for (int i = 0; i < g->n_tests; i++)
		if (g->tests[i].group == group)
			s += g->tests[i].points;
	return points_round(s);
}

void grade_replace_path(struct grade *g, const char *from, const char *to)
{
	text_replace_all(g->build_log, sizeof(g->build_log), from, to);
	text_replace_all(g->internal_message, sizeof(g->internal_message), from, to);
	text_replace_all(g->submission, sizeof(g->submission), from, to);
	for (int i = 0; i < g->n_tests; i++)
		text_replace_all(g->tests[i].message, sizeof(g->tests[i].message), from, to);
}

int grade_passed(const struct grade *g)
{
	if (g->build_failed || g->internal_error)
		return 0;
	for (int i = 0; i < g->n_tests; i++)
		if (g->tests[i].status == TEST_FAILED || g->tests[i].status == TEST_SKIPPED ||
		    (g->tests[i].status == TEST_NOT_MEASURED && g->tests[i].max_points > 0))
			return 0;
	return 1;
}

int grade_exit_status(const struct grade *g)
{
	if (g->build_failed)
		return 3;
	if (g->internal_error)
		return 4;
	return grade_passed(g) ? 0 : 1;
}

const enum test_group group_order[GROUP_COUNT] = {
	GROUP_BUILD, GROUP_INTEGRITY, GROUP_CORRECTNESS, GROUP_PERFORMANCE, GROUP_ANALYSIS,
};

const char *group_name(enum test_group group)
{
	switch (group) {
	case GROUP_BUILD: return "build";
	case GROUP_CORRECTNESS: return "correctness";
	case GROUP_PERFORMANCE: return "performance";
	case GROUP_ANALYSIS: return "analysis";
	case GROUP_INTEGRITY: return "integrity";
	}
	return "?";
}

const char *status_name(enum test_status s)
{
	switch (s) {
	case TEST_PASSED: return "passed";
	case TEST_FAILED: return "failed";
	case TEST_NOT_MEASURED: return "not measured";
	case TEST_SKIPPED: return "skipped";
	}
	return "?";
}

const char *backend_name(enum backend b)
{
	switch (b) {
	case BACKEND_AUTO: return "auto";
	case BACKEND_CUDA: return "cuda";
	case BACKEND_EMU: return "emu";
	}
	return "?";
}
