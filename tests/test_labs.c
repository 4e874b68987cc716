/* The lab descriptions the grader and the harness share. */
#include <criterion/criterion.h>
#include <glob.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "labs/lab.h"

Test(labs, table_and_lookup)
{
	cr_expect_str_eq(lab_find("lab1")->entry, "scan_inclusive");
	cr_expect_str_eq(lab_find("lab2")->entry, "scan_exclusive");
	cr_expect_str_eq(lab_find("lab3-transpose")->entry, "transpose");
	cr_expect_str_eq(lab_find("lab4-occupancy")->entry, "stream_scale");
	cr_expect_null(lab_find("lab5"));
	cr_expect_null(lab_find(""));
	char ids[64];
	cr_expect_str_eq(lab_ids(ids, sizeof(ids)), "lab1, lab2, lab3, lab4");
}

Test(labs, minimum_bytes_moved)
{
	struct shape n = { 1, { 1u << 28 } }, m = { 2, { 16384, 16384 } };
	cr_expect_float_eq(lab_find("lab1")->min_bytes(&n), 2.0 * (1u << 28) * 4, 0);
	cr_expect_float_eq(lab_find("lab2")->min_bytes(&n), 2.0 * (1u << 28) * 4, 0);
	cr_expect_float_eq(lab_find("lab3")->min_bytes(&m), 2.0 * 16384 * 16384 * 4, 0);
}

Test(labs, references_follow_the_definitions)
{
	struct shape s = { 1, { 5 } };
	uint32_t in[5], inc[5], exc[5];
	lab_fill_input(lab_find("lab1"), in, &s, 9);
	lab_find("lab1")->reference(in, inc, &s);
	lab_find("lab2")->reference(in, exc, &s);
	cr_expect_eq(exc[0], 0u);
	for (int i = 1; i < 5; i++) {
		cr_expect_eq(inc[i], inc[i - 1] + in[i]);
		cr_expect_eq(exc[i], inc[i - 1]);
	}
}

Test(labs, transpose_inputs_are_floats_and_messages_name_both_ends)
{
	const struct lab *l = lab_find("lab3");
	struct shape s = { 2, { 3, 5 } };
	uint32_t in[15], out[15];
	lab_fill_input(l, in, &s, 1);
	l->reference(in, out, &s);
	float f;
	memcpy(&f, &in[7], 4);
	cr_expect(isfinite(f) && f >= -1 && f < 1);
	cr_expect_eq(out[1 * 3 + 2], in[2 * 5 + 1], "out[1][2] = in[2][1]");
	char buf[128];
	l->describe_index(&s, 1 * 3 + 2, buf, sizeof(buf));
	cr_expect_str_eq(buf, "out[1][2] (should be in[2][1])");
	lab_format_word(ELEM_F32, 0x3f800000u, buf, sizeof(buf));
	cr_expect_str_eq(buf, "1 (0x3f800000)");
	lab_format_word(ELEM_U32, 7, buf, sizeof(buf));
	cr_expect_str_eq(buf, "7 (0x00000007)");
}

Test(labs, every_lab_has_a_hint_for_slow_kernels)
{
	for (int i = 0; lab_table[i]; i++)
		cr_expect(lab_table[i]->slow_hint && strlen(lab_table[i]->slow_hint) > 40, "%s", lab_table[i]->id);
}

/* The Makefile's lab targets come from the folders under labs/: each must be
 * a lab of the table, and each lab of the table must have its folder. */
Test(labs, folders_and_table_agree)
{
	glob_t g;
	cr_assert_eq(glob("labs/lab*-*", GLOB_ONLYDIR, NULL, &g), 0, "no lab folder under labs/");
	int n = 0;
	while (lab_table[n])
		n++;
	cr_expect_eq((int)g.gl_pathc, n, "%zu folders under labs/, %d labs in the table", g.gl_pathc, n);
	for (size_t i = 0; i < g.gl_pathc; i++)
		cr_expect_not_null(lab_find(g.gl_pathv[i] + strlen("labs/")), "%s is not in the lab table",
				   g.gl_pathv[i]);
	globfree(&g);
	for (int i = 0; lab_table[i]; i++) {
		char dir[256];
		struct stat st;
		snprintf(dir, sizeof(dir), "labs/%s", lab_table[i]->dir);
		cr_expect(stat(dir, &st) == 0 && S_ISDIR(st.st_mode), "%s has no folder %s", lab_table[i]->id, dir);
		size_t n_id = strlen(lab_table[i]->id);
		cr_expect(strncmp(lab_table[i]->dir, lab_table[i]->id, n_id) == 0 && lab_table[i]->dir[n_id] == '-',
			  "the Makefile names %s's target after its folder %s", lab_table[i]->id, lab_table[i]->dir);
	}
}
