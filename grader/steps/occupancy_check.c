/* Lab 4's calculator against the CUDA occupancy API (see occupancy_check.h). */
#include "steps/occupancy_check.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "steps/harness_door.h"
#include "steps/occupancy_digest.h"
#include "sys/isolation.h"
#include "sys/kit_paths.h"

/* Why a calculator usually gets a case of this kind wrong. */
static const char *hint_for(const struct occ_result *want)
{
	if (want->blocks_per_sm == 0)
		return "one block does not fit at all here: check each resource against what one block "
		       "may have before dividing";
	if (want->limits & KIT_OCC_LIMIT_REGISTERS)
		return "registers go to a warp in units of reg_alloc_unit (regs x 32 rounded up), and each "
		       "of the sub_partitions holds a quarter of the register file, whole warps only";
	if (want->limits & KIT_OCC_LIMIT_SHARED)
		return "each block also takes shared_reserved_per_block, and the total is rounded up to "
		       "shared_alloc_unit";
	if (want->limits & KIT_OCC_LIMIT_WARPS)
		return "a block takes whole warps: threads rounded up to a multiple of warp_size";
	return "an SM holds at most max_blocks_per_sm blocks, however small";
}

/* Describes row i (wrong) at the end of msg. */
static size_t describe_wrong(const struct occ_row *row, const struct occ_result *got, char *msg,
			     size_t len, size_t at)
{
	char k[96], want[160], have[160];
	struct occ_result g = *got;
	if (!isfinite(g.occupancy))
		g.occupancy = -1;
	if (at >= len)
		return at;
	if (row->digest[0])	/* the students' copy checks an answer, never says it */
		return at + (size_t)snprintf(msg + at, len - at, "%s%s: got %s, which is not the answer.",
					     at ? " " : "", occ_kernel_format(&row->k, k, sizeof(k)),
					     occ_result_format(&g, have, sizeof(have)));
	return at + (size_t)snprintf(msg + at, len - at, "%s%s: expected %s; got %s (%s).", at ? " " : "",
				     occ_kernel_format(&row->k, k, sizeof(k)),
				     occ_result_format(&row->r, want, sizeof(want)),
				     occ_result_format(&g, have, sizeof(have)), hint_for(&row->r));
}

/* Up to three wrong cases, each of a different kind where there are that many
 * (a skeleton gets thousands wrong, and three of one mistake teach one thing). */
int occupancy_compare(const struct occ_table *t, const struct occ_result *got, char *msg, size_t len)
{
	int wrong = 0, shown = 0, described[3] = { -1, -1, -1 };
	const char *hints[3];
	size_t at = 0;
	msg[0] = '\0';
	for (int i = 0; i < t->n_rows; i++) {
		if (occupancy_row_matches(t, &t->rows[i], &got[i]))
			continue;
		wrong++;
		const char *hint = hint_for(&t->rows[i].r);
		int seen = 0;
		for (int j = 0; j < shown; j++)
			seen |= hints[j] == hint;
		if (!seen && shown < 3) {
			hints[shown] = hint;
			described[shown++] = i;
		}
	}
	for (int i = 0; i < t->n_rows && shown < 3; i++)
		if (!occupancy_row_matches(t, &t->rows[i], &got[i]) && i != described[0] && i != described[1])
			described[shown++] = i;
	for (int j = 0; j < shown; j++)
		at = describe_wrong(&t->rows[described[j]], &got[described[j]], msg, len, at);
	return wrong;
}

int occupancy_write_questions(const char *path, const struct occ_table *t, char *err, size_t errlen)
{
	FILE *f = fopen(path, "wb");
	if (!f) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	int ok = fwrite("KITOCC1\n", 1, 8, f) == 8 && fwrite(&t->dev, sizeof(t->dev), 1, f) == 1 &&
		 fwrite(&t->n_rows, sizeof(t->n_rows), 1, f) == 1;
	for (int i = 0; ok && i < t->n_rows; i++)
		ok = fwrite(&t->rows[i].k, sizeof(t->rows[i].k), 1, f) == 1;
	if (fclose(f) != 0 || !ok) {
		snprintf(err, errlen, "%s: could not be written", path);
		return -1;
	}
	return 0;
}

int occupancy_live_table(const char *path, const struct isolation_policy *tools, const char *gpu,
			 char *err, size_t errlen)
{
	char probe[1024];
	kit_path(probe, sizeof(probe), "build/harness/occupancy-api");
	if (!file_exists(probe)) {
		snprintf(err, errlen, "%.400s is not built (make)", probe);
		return -1;
	}
	char *argv[] = { probe, (char *)path, NULL };
	struct sandbox_limits lim = { .wall_s = 120, .output_cap = 16 * 1024, .isolation = tools,
				      .gpu = gpu };
	struct child_result res;
	if (sandbox_run(argv, &lim, &res, err, errlen) < 0)
		return -1;
	int ok = res.exited && res.exit_status == 0;
	if (!ok) {
		char fate[128];
		snprintf(err, errlen, "the occupancy probe %s: %.300s", child_fate(&res, fate, sizeof(fate)),
			 child_output_tail(&res, 3));
	}
	child_result_free(&res);
	return ok ? 0 : -1;
}

/* Runs the student's calculator on every row of t and grades the answers. */
static void check_table(const struct run_context *ctx, const char *name, const struct occ_table *t,
			double points, struct grade *g)
{
	struct test_result *test = grade_add_test(g, name, GROUP_CORRECTNESS, points);
	test->kind = KIND_OCCUPANCY;
	char questions[1100], err[512];
	snprintf(questions, sizeof(questions), "%s/occupancy-questions.bin", ctx->work_dir);
	if (occupancy_write_questions(questions, t, err, sizeof(err)) < 0) {
		test_fail_as(test, FAILURE_GRADER, "the grader could not write its questions: %s", err);
		return;
	}
	struct harness_report rep;
	size_t want = (size_t)t->n_rows * sizeof(struct occ_result);
	if (harness_occupancy(ctx, questions, t->n_rows, &rep, err, sizeof(err)) < 0) {
		test_fail_as(test, FAILURE_NOT_STARTED, "the grader could not start the harness: %s", err);
		return;
	}
	char msg[TEST_MESSAGE_LEN - 128];
	if (rep.corrupt || !rep.done || rep.outputs != 1 || rep.output_words * 4 != want) {
		harness_explain_abort(&rep, "occupancy", name, msg, sizeof(msg));
		test_fail(test, "%s", msg);
		harness_abort_failure(&rep, &test->failure);
	} else {
		int wrong = occupancy_compare(t, (const struct occ_result *)rep.output, msg, sizeof(msg));
		if (wrong == 0) {
			test_pass(test, "%s", "");
		} else {
			test_fail(test, "%d of %d configurations of %s wrong. %s", wrong, t->n_rows, t->dev.name,
				  msg);
			test->points = points * (t->n_rows - wrong) / t->n_rows;
		}
	}
	harness_report_free(&rep);
}

void occupancy_check_run(const struct run_context *ctx, enum backend backend, const char *live_path,
			 struct grade *g)
{
	const struct rubric *r = ctx->rubric;
	if (!ctx->lab->has_calculator || r->occupancy_points <= 0)
		return;
	int n = r->n_occupancy_tables + (backend == BACKEND_CUDA);
	char path[1100], err[512], name[64];
	for (int i = 0; i < n; i++) {
		double points = points_share(r->occupancy_points, n, i);
		int live = i == r->n_occupancy_tables;
		if (live) {
			snprintf(name, sizeof(name), "occupancy API on this GPU");
			if (live_path)
				snprintf(path, sizeof(path), "%s", live_path);
			else
				snprintf(path, sizeof(path), "%s/occupancy-this-gpu.txt", ctx->work_dir);
		} else {
			char rel[128];
			snprintf(rel, sizeof(rel), "grader/labs/occupancy/%s.txt", r->occupancy_tables[i]);
			kit_path(path, sizeof(path), rel);
			snprintf(name, sizeof(name), "occupancy table %s", r->occupancy_tables[i]);
		}
		struct occ_table t;
		if ((live && !live_path && occupancy_live_table(path, isolation_for_tools(ctx->isolation), ctx->gpu, err,
					 sizeof(err)) < 0) ||
		    occ_table_load(path, &t, err, sizeof(err)) < 0) {
			struct test_result *test = grade_add_test(g, name, GROUP_CORRECTNESS, points);
			g->internal_error = 1;
			snprintf(g->internal_message, sizeof(g->internal_message), "%.500s", err);
			test->kind = KIND_OCCUPANCY;
			test_fail_as(test, FAILURE_GRADER, "the grader could not read its answers: %s", err);
			continue;
		}
		check_table(ctx, name, &t, points, g);
		occ_table_free(&t);
	}
}
