/*
 * The active warp-steps of the handouts (lab 1 and lab 2, section 3),
 * measured by the emulator in the kit's scans graded as a student's file:
 * one block of the block scan, its barrier intervals in order (docs/
 * emu-metrics.md, "Active warp-steps"), and each line's steps where the
 * handout's table puts them.
 */
#include <criterion/criterion.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grade_runner.h"
#include "sys/kit_paths.h"

/* ./grade LAB in the emulator: file, or the answer key when NULL. */
static void graded_in_the_emulator(const char *lab, const char *file, struct graded *g)
{
	if (!have_emulator())
		cr_skip_test("the emulator is not built");
	cr_assert_eq(run_grade(lab, file, "emu", NULL, g), 0);
	cr_assert_not_null(g->report, "%s", g->output);
}

/* The block-scan launch of a graded file (totals.block_scan_launch): its
 * one block's warps storing to shared memory, interval by interval. */
static json_t *block_scan_steps(json_t *report, char *stores, size_t len)
{
	json_t *analysis = json_object_get(report, "analysis"), *iv;
	json_t *index = json_object_get(json_object_get(analysis, "totals"), "block_scan_launch");
	json_t *launch = json_array_get(json_object_get(analysis, "launches"),
					(size_t)json_integer_value(index));
	size_t k, o = 0;
	cr_assert(json_is_integer(index) && launch, "no block-scan launch in the analysis");
	json_array_foreach(json_object_get(launch, "intervals"), k, iv)
		o += (size_t)snprintf(stores + o, len - o, "%s%lld", k ? " " : "",
				      json_integer_value(json_object_get(iv, "warps_shared_store")));
	return launch;
}

/* A line's steps of the per-line rule, "warps@interval ...", and its total. */
static long line_steps(json_t *launch, const char *code, const char *file, char *steps, size_t len)
{
	char *text = kit_file_text(file);
	cr_assert_not_null(text, "%s cannot be read", file);
	char *at = strstr(text, code);
	cr_assert_not_null(at, "%s has no line '%s'", file, code);
	long line = 1, total = -1;
	for (char *p = text; p < at; p++)
		line += *p == '\n';
	free(text);
	size_t i, k, o = 0;
	json_t *row;
	steps[0] = '\0';
	json_array_foreach(json_object_get(launch, "active_warps_per_line"), i, row) {
		if (json_integer_value(json_object_get(row, "line")) != line)
			continue;
		json_t *warps = json_object_get(row, "steps"), *where = json_object_get(row, "interval_indices");
		for (k = 0; k < json_array_size(warps); k++)
			o += (size_t)snprintf(steps + o, len - o, "%s%lld@%lld", k ? " " : "",
					      json_integer_value(json_array_get(warps, k)),
					      json_integer_value(json_array_get(where, k)));
		total = json_integer_value(json_object_get(row, "total"));
	}
	return total;
}

/* Lab 2's handout, section 3, in the emulator: one block of the answer key
 * works 16 8 4 2 1 1 1 1 1 (up-sweep, steps 1-9), 1 (root, step 10), 1 1 1 1
 * 1 2 4 8 16 (down-sweep, steps 11-19) after its load step (step 0: the 16
 * warps storing the loaded elements), and stores no shared word in its
 * last interval: 71 warp-steps, 87 with the load (section 8), once per block
 * however many launches the scan takes. */
Test(warp_steps, lab2_answer_key, .timeout = 300)
{
	struct graded g;
	char stores[256], steps[512];
	graded_in_the_emulator("lab2", NULL, &g);
	json_t *launch = block_scan_steps(g.report, stores, sizeof stores);
	cr_expect_str_eq(stores, "16 16 8 4 2 1 1 1 1 1 1 1 1 1 1 1 2 4 8 16 0");
	json_t *totals = json_object_get(json_object_get(g.report, "analysis"), "totals");
	cr_expect_eq(json_integer_value(json_object_get(totals, "active_warp_steps")), 87);
	long up = line_steps(launch, "temp[PADDED(b)] += temp[PADDED(a)];",
			     "solutions/lab2-blelloch-scan/answer-key/scan.cu", steps, sizeof steps);
	cr_expect_eq(up, 35);
	cr_expect_str_eq(steps, "16@1 8@2 4@3 2@4 1@5 1@6 1@7 1@8 1@9");
	long down = line_steps(launch, "temp[PADDED(b)] += t;",
			       "solutions/lab2-blelloch-scan/answer-key/scan.cu", steps, sizeof steps);
	cr_expect_eq(down, 35);
	cr_expect_str_eq(steps, "1@11 1@12 1@13 1@14 1@15 2@16 4@17 8@18 16@19");
	graded_free(&g);
}

/* Lab 1's handout, section 3: the line that adds buf[cur][tid - d] keeps 289
 * warp-steps busy in steps 1-10; every warp stores in each step (the copying
 * threads too) and in the load step: 11 x 32 = 352 (lab 2's handout, section 8). */
Test(warp_steps, lab1_answer_key, .timeout = 300)
{
	struct graded g;
	char stores[256], steps[512];
	graded_in_the_emulator("lab1", NULL, &g);
	json_t *launch = block_scan_steps(g.report, stores, sizeof stores);
	cr_expect_str_eq(stores, "32 32 32 32 32 32 32 32 32 32 32 0");
	json_t *totals = json_object_get(json_object_get(g.report, "analysis"), "totals");
	cr_expect_eq(json_integer_value(json_object_get(totals, "active_warp_steps")), 352);
	long add = line_steps(launch, "x += buf[cur][tid - d];", "solutions/lab1-naive-scan/scan.cu",
			      steps, sizeof steps);
	cr_expect_eq(add, 289);
	cr_expect_str_eq(steps, "32@1 32@2 32@3 32@4 32@5 31@6 30@7 28@8 24@9 16@10");
	graded_free(&g);
}

/* The handout's "natural-looking alternative" (section 3): one thread per
 * element, the right child's thread working, (tid + 1) % (2 * offset). Its
 * up-sweep's line keeps 191 warp-steps busy in steps 1-10 (offset 1 to 512),
 * its down-sweep's as many in steps 12-21, after the root step (11). */
Test(warp_steps, lab2_strided_indexing, .timeout = 300)
{
	const char *file = "tests/fixtures/lab2/blelloch_strided.cu";
	struct graded g;
	char stores[256], steps[512];
	graded_in_the_emulator("lab2", file, &g);
	json_t *launch = block_scan_steps(g.report, stores, sizeof stores);
	cr_expect_str_eq(stores, "32 32 32 32 32 32 16 8 4 2 1 1 1 2 4 8 16 32 32 32 32 32 0");
	long up = line_steps(launch, "x[tid] += x[tid - offset];", file, steps, sizeof steps);
	cr_expect_eq(up, 191);
	cr_expect_str_eq(steps, "32@1 32@2 32@3 32@4 32@5 16@6 8@7 4@8 2@9 1@10");
	long down = line_steps(launch, "x[tid] += t;", file, steps, sizeof steps);
	cr_expect_eq(down, 191);
	cr_expect_str_eq(steps, "1@12 2@13 4@14 8@15 16@16 32@17 32@18 32@19 32@20 32@21");
	json_t *totals = json_object_get(json_object_get(g.report, "analysis"), "totals");
	cr_expect_eq(json_integer_value(json_object_get(totals, "active_warp_steps")), 415);
	graded_free(&g);
}
