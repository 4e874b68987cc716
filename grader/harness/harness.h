/*
 * What the harness's files share: the report channel's frames
 * (common/harness_report.h), check() (harness_main.c), and predict.c.
 */
#ifndef GRADER_HARNESS_HARNESS_H
#define GRADER_HARNESS_HARNESS_H

#include <cuda_runtime_api.h>
#include <stdint.h>

#include "../../common/harness_report.h"
#include "../../common/shape.h"

struct lab;

/* fail() unless e is cudaSuccess. */
void check(cudaError_t e, const char *where);

/* predict.c (emulator build): the performance model's trace of one call;
 * computed: every block runs, not only the traced sample. */
void run_predict(const struct lab *lab, const struct shape *s, uint64_t seed, int sms, int computed);

#endif
