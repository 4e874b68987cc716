/*
 * The answer keys (solutions/README.md): ./grade LAB --solution grades the
 * skeleton completed the way the handout teaches, which is the skeleton
 * itself but for its TODOs, and scores what solutions/README.md says in the
 * emulator: full marks, but lab 2's, which earns part of the performance
 * points by design. The tuned references stay where the band's reference is
 * looked for (solutions/LAB/FILE), and keep nothing from call to call.
 */
#include <criterion/criterion.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "grade_runner.h"
#include "labs/lab.h"
#include "sys/kit_paths.h"

static char *slurp(const char *rel)
{
	char path[PATH_MAX];
	FILE *f = fopen(kit_path(path, sizeof(path), rel), "r");
	cr_assert_not_null(f, "%s", path);
	char *text = calloc(1, 1 << 20);
	text[fread(text, 1, (1 << 20) - 1, f)] = '\0';
	fclose(f);
	return text;
}

/* The answer key's path, as --solution finds it. */
static void answer_key(const struct lab *lab, char *rel, size_t len)
{
	char path[PATH_MAX];
	snprintf(rel, len, "solutions/%s/answer-key/%s", lab->dir, lab->file);
	if (access(kit_path(path, sizeof(path), rel), F_OK) != 0)
		snprintf(rel, len, "solutions/%s/%s", lab->dir, lab->file);
}

/* Every line of the skeleton that is not about a TODO is in the answer key:
 * the key completes the skeleton, it is not another design. */
Test(answer_keys, complete_the_skeletons)
{
	for (int i = 0; lab_table[i]; i++) {
		const struct lab *lab = lab_table[i];
		char rel[PATH_MAX], skel_rel[PATH_MAX];
		answer_key(lab, rel, sizeof(rel));
		snprintf(skel_rel, sizeof(skel_rel), "labs/%s/%s", lab->dir, lab->file);
		if (strcmp(lab->id, "lab4") == 0)
			continue;	/* lab 4's key keeps the skeleton's API and knobs, rewritten (see its header) */
		char *key = slurp(rel), *skel = slurp(skel_rel);
		int missing = 0, lines = 0;
		char first[256] = "";
		for (char *line = strtok(skel, "\n"); line; line = strtok(NULL, "\n")) {
			if (!strstr(line, "__global__") && !strstr(line, "<<<") && !strstr(line, "for ("))
				continue;	/* the code's skeleton: its kernels, launches and loops */
			lines++;
			if (!strstr(key, line)) {
				if (!missing)
					snprintf(first, sizeof(first), "%s", line);
				missing++;
			}
		}
		cr_expect_geq(lines, 3, "%s: nothing to compare", skel_rel);
		cr_expect_eq(missing, 0, "%s is not %s completed: %d lines differ, first '%s'", rel, skel_rel,
			     missing, first);
		cr_expect_null(strstr(key, "TODO:"), "%s still has a TODO", rel);
		free(key);
		free(skel);
	}
}

static void grade_key(const char *id, double expect_min)
{
	if (!have_emulator())
		cr_skip_test("the emulator is not built");
	struct graded g;
	cr_assert_eq(run_grade(id, NULL, "emu", NULL, &g), 0);
	cr_assert_not_null(g.report, "%s", g.output);
	const char *sub = json_string_value(json_object_get(g.report, "submission"));
	const struct lab *lab = lab_find(id);
	char rel[PATH_MAX];
	answer_key(lab, rel, sizeof(rel));
	cr_expect(sub && strstr(sub, rel), "--solution graded %s, not the answer key %s", sub, rel);
	cr_expect_str_eq(group_verdict(g.report, "correctness"), "pass", "%s", g.output);
	cr_expect_str_eq(group_verdict(g.report, "analysis"), "pass", "%s", g.output);
	double score = json_number_value(json_object_get(g.report, "score"));
	cr_expect_geq(score, expect_min, "%s --solution scored %g: %s", id, score, g.output);
	graded_free(&g);
}

Test(answer_keys, lab1_full_marks, .timeout = 300) { grade_key("lab1", 100); }
Test(answer_keys, lab2_correct_and_work_efficient, .timeout = 300) { grade_key("lab2", 60); }
Test(answer_keys, lab3_full_marks, .timeout = 300) { grade_key("lab3", 100); }
Test(answer_keys, lab4_full_marks, .timeout = 300) { grade_key("lab4", 100); }

/* The block-scan launch of a graded answer key (totals.block_scan_launch):
 * its one block's warps storing to shared memory, interval by interval. */
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
	char *text = slurp(file), *at = strstr(text, code);
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
Test(answer_keys, lab2_active_warps_step_by_step, .timeout = 300)
{
	if (!have_emulator())
		cr_skip_test("the emulator is not built");
	struct graded g;
	char stores[256], steps[512];
	cr_assert_eq(run_grade("lab2", NULL, "emu", NULL, &g), 0);
	cr_assert_not_null(g.report, "%s", g.output);
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
Test(answer_keys, lab1_active_warps_step_by_step, .timeout = 300)
{
	if (!have_emulator())
		cr_skip_test("the emulator is not built");
	struct graded g;
	char stores[256], steps[512];
	cr_assert_eq(run_grade("lab1", NULL, "emu", NULL, &g), 0);
	cr_assert_not_null(g.report, "%s", g.output);
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

/* No solution keeps device memory from one call to the next: no static
 * pointer filled by cudaMalloc. */
Test(answer_keys, no_solution_keeps_memory_between_calls)
{
	const char *files[] = { "solutions/lab1-naive-scan/scan.cu", "solutions/lab2-blelloch-scan/scan.cu",
				"solutions/lab2-blelloch-scan/answer-key/scan.cu",
				"solutions/lab3-transpose/transpose.cu",
				"solutions/lab3-transpose/answer-key/transpose.cu",
				"solutions/lab4-occupancy/occupancy.cu" };
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		char *text = slurp(files[i]);
		for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n"))
			cr_expect(!(strstr(line, "static") && strchr(line, '*') && strstr(line, "= NULL")),
				  "%s keeps a buffer from call to call: %s", files[i], line);
		free(text);
	}
}
