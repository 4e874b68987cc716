/* What several test files build the same way: a harness's report of a
 * correct answer, a grade's tests and bandwidth points, scratch folders and files. */
#ifndef TESTS_TEST_SUPPORT_H
#define TESTS_TEST_SUPPORT_H

#include <stdint.h>

#include "steps/grade.h"
#include "steps/harness_door.h"

/* A report whose output span (poison, the right answer for lab, s and seed,
 * poison) is what a correct harness run sends; *span_out is the span, to free. */
struct harness_report correct_report(const struct lab *lab, const struct shape *s, uint64_t seed,
				     uint32_t **span_out);

/* Appends a rows x cols bandwidth point to g (negative GB/s: not measured). */
void add_bench_point(struct grade *g, size_t rows, size_t cols, double student, double reference,
		     double copy);

/* Appends a test of group to g, with its status, points, most points and message. */
void add_graded_test(struct grade *g, const char *name, enum test_group group, enum test_status st,
		     double points, double max, const char *message);

/* Makes a fresh folder /tmp/NAME-XXXXXX; its path in out (the test fails if it cannot). */
void test_temp_dir(char *out, size_t len, const char *name);

/* Writes text to path (the test fails if it cannot). */
void test_write_file(const char *path, const char *text);

#endif
