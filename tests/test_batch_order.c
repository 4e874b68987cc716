/*
 * A batch starts its longest students first (grader/batch/batch_order.c):
 * what a student took last time, else a slow build's time for a file that
 * includes Thrust, CUB or libcu++ headers; the roster's order among equals.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>

#include "batch/batch.h"
#include "sys/kit_paths.h"
#include "test_support.h"

static char dir[64];

static void setup(void)
{
	test_temp_dir(dir, sizeof(dir), "test-batch-order");
}

static void teardown(void)
{
	remove_tree(dir);
}

TestSuite(batch_order, .init = setup, .fini = teardown);

/* dir/NAME.cu holding text; its path into path. */
static void source(const char *name, const char *text, char *path, size_t len)
{
	snprintf(path, len, "%s/%s.cu", dir, name);
	test_write_file(path, text);
}

#define BODY "__global__ void k(float *x) { x[0] = 1; }\n"

Test(batch_order, a_file_that_includes_a_template_library_is_guessed_slow)
{
	static const struct {
		const char *name, *text;
		int heavy;
	} files[] = {
		{ "plain", "#include <cuda_runtime.h>\n#include <stdio.h>\n" BODY, 0 },
		{ "thrust", "#include <cuda_runtime.h>\n#include <thrust/sort.h>\n" BODY, 1 },
		{ "cub_quoted", "  #  include \"cub/cub.cuh\"\n" BODY, 1 },
		{ "libcu", "#include <cuda/std/atomic>\n" BODY, 1 },
		{ "commented", "// #include <thrust/sort.h>\n" BODY, 0 },
		{ "cuda_h", "#include <cuda.h>\n#include <cuda_fp16.h>\n" BODY, 0 },
	};
	char path[256];
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		source(files[i].name, files[i].text, path, sizeof(path));
		double s = batch_guess_seconds(path, 0);
		if (files[i].heavy)
			cr_expect_gt(s, 0, "%s: guessed no slower than any file", files[i].name);
		else
			cr_expect_eq(s, 0, "%s: guessed %.1f s", files[i].name, s);
	}
	/* What the student took last time comes first, whatever it includes. */
	source("again", "#include <thrust/sort.h>\n" BODY, path, sizeof(path));
	cr_expect_eq(batch_guess_seconds(path, 3.5), 3.5);
	cr_expect_eq(batch_guess_seconds("/nonexistent/file.cu", 0), 0);
}

Test(batch_order, the_longest_start_first_and_equals_keep_the_roster_order)
{
	/* Roster indices 0-6; students 2 and 6 are already graded. */
	double guess[7] = { 0, 10, 99, 0, 20, 10, 99 };
	int todo[] = { 0, 1, 3, 4, 5 };
	cr_assert_eq(batch_order_longest_first(todo, guess, 5), 0);
	int want[] = { 4, 1, 5, 0, 3 };
	for (int i = 0; i < 5; i++)
		cr_expect_eq(todo[i], want[i], "position %d: student %d, not %d", i, todo[i], want[i]);
}
