/*
 * What the harness's files share: the report channel's frames
 * (common/harness_report.h), kit_check() (harness_main.c), and predict.c.
 */
#ifndef GRADER_HARNESS_HARNESS_H
#define GRADER_HARNESS_HARNESS_H

#include <cuda_runtime_api.h>
#include <stdint.h>

#include "../../common/harness_report.h"
#include "../../common/shape.h"

struct lab;

/* kit_fail() unless e is cudaSuccess. */
void kit_check(cudaError_t e, const char *where);

/* bench.c: the bench verb (each of shapes[0..n) timed, runs runs, beside a
 * copy) and lab 4's sweep; seed chooses the inputs and the checked runs
 * (common/bench_plan.h). One MSG_TIMING per size or point. */
#define HARNESS_MAX_BENCH 32	/* GRADE_MAX_BENCH */
void bench_sizes(const struct lab *lab, const struct shape *shapes, int n, int runs, uint64_t seed);
void bench_sweep(const struct lab *lab, const struct shape *s, int runs, uint64_t seed);

/* The SM count the emulated device reports in every run (correctness,
 * analysis, prediction alike): the predicted GPUs' (H100, H200), so that code
 * sizing its grid by it launches what it would there, and no run can be told
 * from another by it. */
#define HARNESS_EMU_SMS 132

/* harness_main.c: the monotonic clock, in milliseconds. */
double harness_now_ms(void);

/* harness_main.c: one correctness call of the entry point on the seed's
 * inputs, its output span sent back for the grader to judge. catch_exit:
 * an exit() from the entry point ends this size only (student_exit.h), as
 * in the correctness verbs; returns 1 when it did. first_in_process: no
 * size ran before it in this process (its output then comes back whole). */
int run_correct(const struct lab *lab, const struct shape *s, uint64_t seed, int catch_exit,
		int first_in_process);

/* output_send.c: the output span d_span (guard, n_out words, guard) as
 * MSG_OUTPUT or, where common/output_digest.h says so, MSG_OUTPUT_DIGEST.
 * Adds the time spent copying from the device to *copy_ms and writing to
 * *write_ms. */
void output_send(const uint32_t *d_span, size_t n_out, int first_in_process, double *copy_ms,
		 double *write_ms);

/* On a GPU, output_send's two pinned buffers made now, once a process:
 * before a size begins, so that pinning them, driver work that took up to
 * 0.36 s among 32 processes making contexts (12-19 ms alone, on an H200:
 * docs/results/gpu-2026-11-29-first-launch/), is in no size's own time. */
void output_send_prepare(void);

/* predict.c (emulator build): a correctness run with a seeded sample of each
 * launch's blocks traced, and the trace sent after it (MSG_METRICS). */
void run_predict(const struct lab *lab, const struct shape *s, uint64_t seed);

#endif
