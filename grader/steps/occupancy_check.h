/*
 * Lab 4's occupancy calculator, checked against the CUDA occupancy API:
 * against the tables the kit stores (grader/labs/occupancy/sm_*.txt), and on
 * a GPU against this GPU's own API, asked afresh by build/harness/occupancy-api.
 * The student's code answers in the harness, on the CPU; the grader compares.
 */
#ifndef GRADER_OCCUPANCY_CHECK_H
#define GRADER_OCCUPANCY_CHECK_H

#include <stddef.h>

#include "occupancy_table.h"
#include "steps/correctness.h"
#include "steps/grade.h"

/* One test per table (see rubric.h, [occupancy]). live_path: this GPU's
 * answers, already asked (a batch asks once per GPU model); NULL: ask now. */
void occupancy_check_run(const struct run_context *ctx, enum backend backend, const char *live_path,
			 struct grade *g);

/* Asks this GPU's occupancy API every question, into the table at path:
 * the kit's probe, run under tools (isolation_for_tools) with gpu as its
 * CUDA_VISIBLE_DEVICES (NULL: the grader's own). */
int occupancy_live_table(const char *path, const struct isolation_policy *tools, const char *gpu,
			 char *err, size_t errlen);

/* How many of got[0..t->n_rows) differ from the table, with the first few
 * described in msg: the configuration, what was expected and what came, and
 * a hint on the granularity that usually explains it. */
int occupancy_compare(const struct occ_table *t, const struct occ_result *got, char *msg, size_t len);

/* The questions file the harness reads (harness_main.c, run_occupancy). */
int occupancy_write_questions(const char *path, const struct occ_table *t, char *err, size_t errlen);

#endif
