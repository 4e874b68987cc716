#include <criterion/criterion.h>

#include "../common/reference.h"

Test(reference, inclusive_and_exclusive)
{
	uint32_t in[] = { 3, 1, 7, 0, 4 }, out[5];
	uint32_t inc[] = { 3, 4, 11, 11, 15 }, exc[] = { 0, 3, 4, 11, 11 };
	ref_scan_inclusive(in, out, 5);
	cr_expect_arr_eq(out, inc, sizeof(inc));
	ref_scan_exclusive(in, out, 5);
	cr_expect_arr_eq(out, exc, sizeof(exc));
}

Test(reference, wraps_modulo_2_32)
{
	uint32_t in[] = { 0xffffffffu, 2, 0x80000000u, 0x80000000u }, out[4];
	ref_scan_inclusive(in, out, 4);
	cr_expect_eq(out[1], 1u);
	cr_expect_eq(out[3], 1u);
}

Test(reference, single_element)
{
	uint32_t in = 9, out = 1234;
	ref_scan_exclusive(&in, &out, 1);
	cr_expect_eq(out, 0u);
	ref_scan_inclusive(&in, &out, 1);
	cr_expect_eq(out, 9u);
}

/* Against the textbook definition, on shapes that cross the 32-wide blocks,
 * and large ones that are split over the machine's cores (parallel.h). */
Test(reference, transpose_matches_definition)
{
	size_t shapes[][2] = { { 1, 1 }, { 1, 130 }, { 130, 1 }, { 65, 127 }, { 200, 64 },
			       { 2049, 1023 }, { 1023, 2049 }, { 4097, 1281 }, { 33, 70000 } };
	for (size_t k = 0; k < sizeof(shapes) / sizeof(shapes[0]); k++) {
		size_t rows = shapes[k][0], cols = shapes[k][1];
		float *in = malloc(rows * cols * sizeof(float)), *out = malloc(rows * cols * sizeof(float));
		for (size_t i = 0; i < rows * cols; i++)
			in[i] = (float)i;
		ref_transpose(in, out, rows, cols);
		for (size_t r = 0; r < rows; r++)
			for (size_t c = 0; c < cols; c++)
				cr_assert_eq(out[c * rows + r], in[r * cols + c], "%zux%zu at (%zu,%zu)", rows,
					     cols, r, c);
		free(in);
		free(out);
	}
}
