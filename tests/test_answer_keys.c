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
		char *key = kit_file_text(rel), *skel = kit_file_text(skel_rel);
		cr_assert(key && skel, "%s or %s cannot be read", rel, skel_rel);
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
Test(answer_keys, lab2_full_marks, .timeout = 300) { grade_key("lab2", 100); }
Test(answer_keys, lab3_full_marks, .timeout = 300) { grade_key("lab3", 100); }
Test(answer_keys, lab4_full_marks, .timeout = 300) { grade_key("lab4", 100); }

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
		char *text = kit_file_text(files[i]);
		cr_assert_not_null(text, "%s cannot be read", files[i]);
		for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n"))
			cr_expect(!(strstr(line, "static") && strchr(line, '*') && strstr(line, "= NULL")),
				  "%s keeps a buffer from call to call: %s", files[i], line);
		free(text);
	}
}
