/* What several test files build the same way: a harness's report of a
 * correct answer, a grade's tests and bandwidth points, the processes a fixture left,
 * scratch folders and files. */
#ifndef TESTS_TEST_SUPPORT_H
#define TESTS_TEST_SUPPORT_H

#include <stddef.h>
#include <stdint.h>

#include "steps/build.h"
#include "steps/grade.h"
#include "steps/harness_door.h"

/* A report whose output span (poison, the right answer for lab, s and seed,
 * poison) is what a correct harness run sends; *span_out is the span, to free. */
struct harness_report correct_report(const struct lab *lab, const struct shape *s, uint64_t seed,
				     uint32_t **span_out);

/* Processes whose name (/proc/PID/comm) starts with prefix: what a hostile
 * fixture left running ("hostile-bomb", fork_bomb_hidden.cu's children). */
int processes_named(const char *prefix);

/* Compiles source (C) with cc into dir/name; its path in exe. */
void compile_c_program(const char *dir, const char *name, const char *source, char *exe, size_t len);

/* Appends a rows x cols bandwidth point to g (negative GB/s: not measured). */
void add_bench_point(struct grade *g, size_t rows, size_t cols, double student, double reference,
		     double copy);

/* Loads lab 3's rubric into r, makes the temporary folder work (a mkdtemp
 * template) and builds FILE (relative to the kit) there for the emulator:
 * b->harness is the linked harness. Asserts on any failure. */
void emu_lab3_build(const char *file, struct rubric *r, char *work, struct build_result *b);
/* After it: the rubric freed and the work folder removed. */
void emu_lab3_done(struct rubric *r, const char *work);

/* Appends a test of group to g, with its status, points, most points and message. */
void add_graded_test(struct grade *g, const char *name, enum test_group group, enum test_status st,
		     double points, double max, const char *message);

/* Runs the kit's check of its kernels (tests/gpu/device_hash_check.cu) at
 * the kit's path rel with args ("hash" or "fill"); asserts it held. */
void run_kit_kernel_check(const char *rel, const char *args);

/* Makes a fresh folder /tmp/NAME-XXXXXX; its path in out (the test fails if it
 * cannot). It is removed when the test's process exits, also after a skip,
 * which a suite's .fini does not follow. */
void test_temp_dir(char *out, size_t len, const char *name);

/* Writes text to path (the test fails if it cannot). */
void test_write_file(const char *path, const char *text);

/* Lab 3's rubric written to path with the correctness limit cut to
 * correctness_s and, when analysis_s > 0, the analysis run's to analysis_s:
 * an endless loop costs seconds, not the minutes a real rubric allows. */
void lab3_fast_rubric(const char *path, int correctness_s, int analysis_s);

/* The integrity check of source (C, compiled with cc) against lab 3's
 * rubric on backend, into g (grade_init'ed for lab 3); its result. */
int integrity_of_c(const char *source, enum backend backend, struct grade *g);

/* 1 when the CUDA toolkit's header name (a header-only one, such as
 * cuda_occupancy.h) is where the emulator's compiler looks for it: under
 * CUDA_HOME or /usr/local/cuda, beside the nvcc on PATH, or in the system's
 * include folders. Tests of files that include it say why they skip where
 * it is not (a machine without the toolkit). */
int toolkit_header_present(const char *name);

#endif
