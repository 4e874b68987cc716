/* The fixture the chart tests share: a lab-3 grade in a scratch folder, and file checks. */
#ifndef TESTS_CHART_FIXTURE_H
#define TESTS_CHART_FIXTURE_H

#include <stddef.h>

#include "steps/grade.h"

/* A lab-3 grade with four bandwidth points (out of order on purpose) on an H100,
 * and a fresh folder /tmp/kit-chart-XXXXXX in dir. */
void chart_fixture_setup(struct grade *g, char *dir, size_t len);
void chart_fixture_teardown(struct grade *g, const char *dir);

/* dir/name, in one of four buffers that are reused in turn. */
const char *chart_fixture_path(const char *dir, const char *name);

/* The whole file, NUL-terminated (valid until the next call), or NULL; *len its size. */
char *chart_slurp(const char *path, size_t *len);

/* Files in folder d, "." and ".." aside. */
int chart_entries(const char *d);

/* path is a PNG of more than 10000 bytes. */
void chart_assert_png(const char *path);

/* For a test that draws with the real gnuplot: skips it where there is none. */
void chart_need_gnuplot(void);

#endif
