/*
 * An access past a __shared__ array reaches the student with its file and
 * line: in every correctness test it broke (where it used to be only "first
 * wrong element", or nothing at all) and in the analysis; the legal idioms
 * of tests/fixtures/lab3/shared_idioms.cu are not taken for one. A fault
 * at every size stops its process the same way at each: the sizes the
 * plan did not run point at those that did (steps/correctness_plan.h).
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "grade_runner.h"
#include "sys/kit_paths.h"

/* The message of the report's test named name, or "". */
static const char *test_message(json_t *report, const char *name)
{
	size_t i;
	json_t *t;
	json_array_foreach(json_object_get(report, "tests"), i, t)
		if (strcmp(json_string_value(json_object_get(t, "name")) ?: "", name) == 0)
			return json_string_value(json_object_get(t, "message")) ?: "";
	return "";
}

/* "scan.cu:61": the graded name of the fixture's line that holds marker. */
static const char *marked_line(const char *fixture, const char *shown, const char *marker, char *buf,
			       size_t len)
{
	char path[1024], line[512];
	FILE *f = fopen(kit_path(path, sizeof(path), fixture), "r");
	cr_assert_not_null(f, "%s", fixture);
	int n = 0, found = 0;
	while (!found && fgets(line, sizeof(line), f)) {
		n++;
		found = strstr(line, marker) != NULL;
	}
	fclose(f);
	cr_assert(found, "no %s in %s", marker, fixture);
	snprintf(buf, len, "%s:%d", shown, n);
	return buf;
}

static void expect_named(const char *message, const char *where, const char *words)
{
	cr_expect(strstr(message, where) != NULL, "does not name %s: %s", where, message);
	cr_expect(strstr(message, words) != NULL, "does not say '%s': %s", words, message);
}

/* Every correctness test the fault broke names it, or was not run and says
 * it ends its process the same way as the sizes that did; at least two
 * name it. */
static void expect_named_where_run(json_t *report, const char *where, const char *words)
{
	size_t i;
	json_t *t;
	int named = 0;
	json_array_foreach(json_object_get(report, "tests"), i, t) {
		const char *name = json_string_value(json_object_get(t, "name")) ?: "";
		const char *message = json_string_value(json_object_get(t, "message")) ?: "";
		if (strncmp(name, "correctness ", 12) != 0 || !json_is_false(json_object_get(t, "passed")))
			continue;
		if (strstr(message, "not run: ") && strstr(message, "ended its process the same way at"))
			continue;
		if (strstr(message, words) == NULL)
			continue;	/* failed on its output alone, as a size too small to reach the store */
		expect_named(message, where, words);
		named++;
	}
	cr_expect_geq(named, 2, "%d correctness tests name %s", named, where);
}

Test(shared_oob, blelloch_one_word_short_names_the_store, .timeout = 300)
{
	if (!have_emulator())
		cr_skip_test("the emulator is not built (build/emu/cuemu-cc): run make");
	const char *fixture = "tests/fixtures/emu_faults/shared_past_blelloch.cu";
	char where[64];
	struct graded g;
	marked_line(fixture, "scan.cu", "past the end for tid 255", where, sizeof where);
	cr_assert_eq(run_grade("lab2", fixture, "emu", NULL, &g), 0);
	cr_assert_not_null(g.report, "%s", g.output);
	expect_named(test_message(g.report, "correctness 1"), where, "1 word past the end of temp");
	expect_named_where_run(g.report, where, "out-of-bounds shared store");
	expect_named(test_message(g.report, "analysis"), where, "1 word past the end of temp");
	graded_free(&g);
}

Test(shared_oob, a_row_past_a_tile_names_the_store, .timeout = 300)
{
	if (!have_emulator())
		cr_skip_test("the emulator is not built (build/emu/cuemu-cc): run make");
	const char *fixture = "tests/fixtures/emu_faults/shared_past_tile.cu";
	char where[64];
	struct graded g;
	marked_line(fixture, "transpose.cu", "one row down: past the end", where, sizeof where);
	cr_assert_eq(run_grade("lab3", fixture, "emu", NULL, &g), 0);
	cr_assert_not_null(g.report, "%s", g.output);
	/* 1x1 fills no 32nd row: that test fails on its output alone. */
	expect_named_where_run(g.report, where, "past the end of tile");
	expect_named(test_message(g.report, "analysis"), where, "past the end of tile");
	graded_free(&g);
}

Test(shared_oob, past_the_dynamic_area_names_the_store, .timeout = 300)
{
	if (!have_emulator())
		cr_skip_test("the emulator is not built (build/emu/cuemu-cc): run make");
	const char *fixture = "tests/fixtures/emu_faults/shared_past_dynamic.cu";
	char where[64];
	struct graded g;
	marked_line(fixture, "transpose.cu", "past the area", where, sizeof where);
	cr_assert_eq(run_grade("lab3", fixture, "emu", NULL, &g), 0);
	cr_assert_not_null(g.report, "%s", g.output);
	expect_named_where_run(g.report, where, "dynamic shared memory");
	expect_named(test_message(g.report, "analysis"), where, "dynamic shared memory");
	graded_free(&g);
}

Test(shared_oob, legal_idioms_grade_in_full, .timeout = 300)
{
	if (!have_emulator())
		cr_skip_test("the emulator is not built (build/emu/cuemu-cc): run make");
	struct graded g;
	cr_assert_eq(run_grade("lab3", "tests/fixtures/lab3/shared_idioms.cu", "emu", NULL, &g), 0);
	cr_assert_not_null(g.report, "%s", g.output);
	cr_expect_str_eq(group_verdict(g.report, "correctness"), "pass", "%s", g.output);
	cr_expect_str_eq(group_verdict(g.report, "analysis"), "pass", "%s", g.output);
	cr_expect_null(strstr(g.output, "out-of-bounds"), "%s", g.output);
	graded_free(&g);
}
