/*
 * What the chart tests share (test_chart.c, the engine and the class's
 * charts; test_chart_kernel.c, the charts of the student's kernel): a lab 3
 * grade with four bandwidth points, a fresh folder for the charts, and the
 * message a chart writes.
 */
#ifndef TESTS_CHART_FIXTURE_H
#define TESTS_CHART_FIXTURE_H

#include <stddef.h>

#include "steps/grade.h"

struct chart_fixture {
	struct grade g;
	char dir[64];		/* /tmp/kit-chart-XXXXXX, removed after each test */
	char msg[1024];
};

extern struct chart_fixture fx;

void chart_setup(void);
void chart_teardown(void);

/* dir/name, in one of four rotating buffers. */
const char *in_dir(const char *name);

/* The whole file, NUL-terminated (freed at the next call); *len its size. */
char *slurp(const char *path, size_t *len);

/* Files in folder d, "." and ".." aside. */
int entries(const char *d);

/* path is a PNG of some substance. */
void assert_png(const char *path);

/* For a test that draws with the real gnuplot: skipped, saying why, where
 * gnuplot is not installed (it is optional). */
void need_gnuplot(void);

#endif
