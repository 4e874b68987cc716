/* What several test files build the same way: a harness's report of a
 * correct answer, and a grade's bandwidth points. */
#ifndef TESTS_TEST_SUPPORT_H
#define TESTS_TEST_SUPPORT_H

#include <stdint.h>

#include "steps/build.h"
#include "steps/grade.h"
#include "steps/harness_door.h"

/* A report whose output span (poison, the right answer for lab, s and seed,
 * poison) is what a correct harness run sends; *span_out is the span, to free. */
struct harness_report correct_report(const struct lab *lab, const struct shape *s, uint64_t seed,
				     uint32_t **span_out);

/* Appends a rows x cols bandwidth point to g (negative GB/s: not measured). */
void add_bench_point(struct grade *g, size_t rows, size_t cols, double student, double reference,
		     double copy);

/* Loads lab 3's rubric into r, makes the temporary folder work (a mkdtemp
 * template) and builds FILE (relative to the kit) there for the emulator:
 * b->harness is the linked harness. Asserts on any failure. */
void emu_lab3_build(const char *file, struct rubric *r, char *work, struct build_result *b);

#endif
