/*
 * The analysis run's size (grader/steps/analysis_shape.c), and its output
 * checked like a correctness test's: a file that recognises the analysis
 * run and shows it a decoy is not believed.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "grade_runner.h"
#include "labs/lab.h"
#include "steps/analysis_shape.h"
#include "steps/traced_sizes.h"
#include "sys/kit_paths.h"

static struct rubric lab3_like(const char *const *emu, int n)
{
	struct rubric r;
	memset(&r, 0, sizeof(r));
	char err[128];
	cr_assert_eq(shape_parse("96x64", &r.analysis_shape, err, sizeof(err)), 0);
	for (int i = 0; i < n; i++)
		cr_assert_eq(shape_parse(emu[i], &r.emu_shapes[i], err, sizeof(err)), 0);
	r.n_emu_shapes = n;
	return r;
}

Test(analysis_shape, a_graded_size_large_enough)
{
	const char *emu[] = { "1x1", "32x32", "1000x1000", "1023x2049", "8192x8192" };
	struct rubric r = lab3_like(emu, 5);
	int seen[5] = { 0 };
	for (uint64_t seed = 1; seed < 200; seed++) {
		struct shape s = analysis_shape_choose(&r, seed);
		int k = -1;
		for (int i = 0; i < 5; i++)
			if (shape_equal(&s, &r.emu_shapes[i]))
				k = i;
		cr_assert(k == 2 || k == 3, "seed %llu: %zux%zu", (unsigned long long)seed, s.dim[0], s.dim[1]);
		seen[k]++;
		struct shape again = analysis_shape_choose(&r, seed);
		cr_assert(shape_equal(&s, &again), "the same seed chose two sizes");
	}
	cr_expect(seen[2] > 0 && seen[3] > 0, "the seed does not choose: %d, %d", seen[2], seen[3]);
}

Test(analysis_shape, the_rubrics_own_when_it_is_graded)
{
	const char *emu[] = { "1x1", "96x64", "1000x1000" };
	struct rubric r = lab3_like(emu, 3);
	for (uint64_t seed = 1; seed < 20; seed++) {
		struct shape s = analysis_shape_choose(&r, seed);
		cr_expect(shape_equal(&s, &r.analysis_shape));
	}
}

Test(analysis_shape, a_seeded_size_near_the_rubrics_when_none_is_graded)
{
	const char *emu[] = { "1x1", "31x33", "32x32" };
	struct rubric r = lab3_like(emu, 3);
	int moved = 0;
	for (uint64_t seed = 1; seed < 100; seed++) {
		struct shape s = analysis_shape_choose(&r, seed);
		cr_assert(s.rank == 2 && s.dim[0] >= 96 && s.dim[0] <= 144 && s.dim[1] >= 64 && s.dim[1] <= 96,
			  "%zux%zu", s.dim[0], s.dim[1]);
		moved += !shape_equal(&s, &r.analysis_shape);
	}
	cr_expect_gt(moved, 90, "the size moved only %d times in 99", moved);
}

/* lab3's rubric with no graded size as large as the analysis's: the
 * analysis runs at a seeded size no correctness test uses, where
 * decoy_analysis_shape.cu shows its decoy, a copy: the run's output is
 * wrong, and the figures are not graded. */
Test(analysis_shape, a_decoy_is_not_believed, .timeout = 300)
{
	if (!have_emulator())
		cr_skip_test("the emulator is not built (build/emu/cuemu-cc): run make emu");
	char src[1024], rubric[64], line[1024], arg[96];
	snprintf(rubric, sizeof(rubric), "/tmp/test-analysis-shape-%d.ini", (int)getpid());
	FILE *in = fopen(kit_path(src, sizeof(src), "labs/lab3-transpose/lab.ini"), "r");
	FILE *out = fopen(rubric, "w");
	cr_assert(in && out);
	while (fgets(line, sizeof(line), in))
		fputs(strncmp(line, "emu_shapes", 10) == 0 ? "emu_shapes = 1x1 31x33 32x32\n" : line, out);
	fclose(in);
	fclose(out);
	snprintf(arg, sizeof(arg), "--rubric=%s", rubric);
	struct graded g;
	cr_assert_eq(run_grade("lab3", "tests/fixtures/hostile/decoy_analysis_shape.cu", "emu", arg, &g), 0);
	unlink(rubric);
	cr_assert_not_null(g.report, "%s", g.output);
	cr_expect_str_eq(group_verdict(g.report, "correctness"), "pass", "%s", g.output);
	cr_expect_str_eq(group_verdict(g.report, "analysis"), "fail", "%s", g.output);
	cr_expect(strstr(g.output, "figures are not graded") && strstr(g.output, "first wrong element"),
		  "%s", g.output);
	graded_free(&g);
}

/* The emulator's sizes past 2^20+7 (lab 1's 2^22+5, 2^24, lab 3's 4097x1023
 * and 8191x3073) only check results: in the kit's rubrics the analysis and
 * the prediction's traces stay at sizes of at most 2^21 elements, the
 * largest of them the one they always were. */
Test(analysis_shape, the_kits_rubrics_trace_and_analyse_no_size_past_2_21)
{
	const char *ids[] = { "lab1", "lab2", "lab3", "lab4" };
	const char *largest_traced[] = { "2^20+7", "2^20+7", "1024x2048", "2^20+7" };
	for (int l = 0; l < 4; l++) {
		const struct lab *lab = lab_find(ids[l]);
		char ini[1024], rel[256], err[256], text[64];
		struct rubric r;
		snprintf(rel, sizeof(rel), "labs/%s/lab.ini", lab->dir);
		cr_assert_eq(rubric_load(kit_path(ini, sizeof(ini), rel), lab->rank, &r, err, sizeof(err)), 0,
			     "%s", err);
		size_t past = 0;	/* an emulator size past 2^21 elements: the rubric has one */
		for (int i = 0; i < r.n_emu_shapes; i++)
			if (shape_elements(&r.emu_shapes[i]) > past)
				past = shape_elements(&r.emu_shapes[i]);
		cr_expect_gt(past, (size_t)1 << 21, "%s", ids[l]);
		for (uint64_t seed = 1; seed < 64; seed++) {
			struct shape s = analysis_shape_choose(&r, seed);
			cr_expect_leq(shape_elements(&s), ANALYSIS_MAX_ELEMENTS, "%s seed %llu: %s", ids[l],
				      (unsigned long long)seed, shape_format(&s, text, sizeof(text)));
		}
		int pick[2], n = traced_sizes_pick(&r, lab, pick);
		cr_assert_eq(n, 2, "%s", ids[l]);
		cr_expect_str_eq(shape_format(&r.emu_shapes[pick[1]], text, sizeof(text)), largest_traced[l],
				 "%s", ids[l]);
	}
}
