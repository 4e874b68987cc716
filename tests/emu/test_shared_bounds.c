/*
 * Static __shared__ arrays have red zones: an access past an array (or
 * before it) is an illegal address naming the array and the line, in traced
 * and untraced blocks alike; the legal idioms (a 2-D array walked through a
 * flat pointer, dynamic shared memory carved into arrays, shared variables
 * of device functions) are not; and the red zones change neither the
 * shared memory a kernel reports nor the banks of its accesses.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "emu_test.h"

cudaError_t sb_short_by_one(void);
cudaError_t sb_tile_row_past(void);
cudaError_t sb_before_start(void);
cudaError_t sb_last_block_past(int blocks);
cudaError_t sb_odd_chars(int threads);
cudaError_t sb_copy_in(int words);
long sb_legal(void);
long sb_two_arrays(void);

static char where[64];

static void expect_fault(const char *marker, const char *words)
{
	snprintf(where, sizeof where, "shared_bounds.cu:%d", marker_line("shared_bounds.cu", marker));
	const char *f = cuemu_last_fault();
	cr_assert_not_null(f, "no fault recorded");
	cr_expect(strstr(f, where) != NULL, "fault does not name %s: %s", where, f);
	cr_expect(strstr(f, words) != NULL, "fault does not say '%s': %s", words, f);
}

Test(shared_bounds, one_word_past_an_array_names_it)
{
	cr_assert_eq(sb_short_by_one(), cudaErrorIllegalAddress);
	expect_fault("@short", "out-of-bounds shared store of 4 bytes, 1 word past the end of temp");
	expect_fault("@short", "a __shared__ array of 508 bytes");
	expect_fault("@short", "thread (63,0,0)");
}

Test(shared_bounds, one_word_past_while_tracing)
{
	cuemu_set_tracing(1);
	cr_assert_eq(sb_short_by_one(), cudaErrorIllegalAddress);
	expect_fault("@short", "1 word past the end of temp");
}

Test(shared_bounds, a_row_past_a_two_dimensional_tile)
{
	cr_assert_eq(sb_tile_row_past(), cudaErrorIllegalAddress);
	expect_fault("@tile", "past the end of tile (a __shared__ array of 4096 bytes");
}

Test(shared_bounds, before_the_start)
{
	cr_assert_eq(sb_before_start(), cudaErrorIllegalAddress);
	expect_fault("@before", "out-of-bounds shared load of 4 bytes, 1 word before the start of s");
}

/* Only the grid's last block overruns; it is not among the traced ones. */
Test(shared_bounds, untraced_blocks_check_too)
{
	cuemu_set_tracing(1);
	cuemu_set_traced_blocks(1);
	cr_assert_eq(sb_last_block_past(64), cudaErrorIllegalAddress);
	expect_fault("@last_block", "block (63,0,0)");
	expect_fault("@last_block", "1 word past the end of s");
}

/* char c[5]: bytes 0..4 are the array's (a granule it shares with the red
 * zone), byte 5 is not. */
Test(shared_bounds, a_byte_past_an_odd_sized_array)
{
	cr_assert_eq(sb_odd_chars(5), cudaSuccess);
	cr_assert_eq(sb_odd_chars(6), cudaErrorIllegalAddress);
	expect_fault("@odd", "shared store of 1 bytes, 1 byte past the end of c");
}

/* A memcpy is one range outside traced blocks, many pieces inside them. */
Test(shared_bounds, a_copy_past_an_array)
{
	cr_assert_eq(sb_copy_in(32), cudaSuccess, "%s", cuemu_last_fault());
	cr_assert_eq(sb_copy_in(40), cudaErrorIllegalAddress);
	expect_fault("@copy", "past the end of s");
}

Test(shared_bounds, a_copy_past_an_array_while_tracing)
{
	cuemu_set_tracing(1);
	cr_assert_eq(sb_copy_in(32), cudaSuccess, "%s", cuemu_last_fault());
	cr_assert_eq(sb_copy_in(40), cudaErrorIllegalAddress);
	expect_fault("@copy", "1 word past the end of s");
}

Test(shared_bounds, legal_idioms_are_not_flagged)
{
	cr_expect_eq(sb_legal(), 0, "%s", cuemu_last_fault() ? cuemu_last_fault() : "wrong values");
	cuemu_set_tracing(1);
	cr_expect_eq(sb_legal(), 0, "%s", cuemu_last_fault() ? cuemu_last_fault() : "wrong values");
}

/* The span of static shared memory the model sees is the arrays' (400 +
 * 112 bytes), not the red zone between them; their accesses are
 * conflict-free, as they would be on a GPU. */
Test(shared_bounds, red_zones_change_no_figure)
{
	cuemu_set_tracing(1);
	cuemu_metrics_reset();
	cr_assert_eq(sb_two_arrays(), 0, "%s", cuemu_last_fault());
	json_t *m = metrics_now(), *l = launch_of(m, "two_arrays");
	cr_assert_not_null(l);
	json_t *model = json_object_get(l, "model");
	cr_expect_eq(json_integer_value(json_object_get(model, "static_shared_bytes")), 512);
	cr_expect_eq(json_integer_value(json_object_get(model, "shared_wavefronts")),
		     json_integer_value(json_object_get(model, "shared_requests")));
	json_decref(m);
}
