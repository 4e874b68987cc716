/*
 * Every idiom of memory access is traced like its plain form
 * (kernels/idioms.cu): a naive transpose whose copy is a memcpy of run-time
 * or constant size, a builtin, a memmove, a struct copy or the
 * _FORTIFY_SOURCE form stores 32 sectors a request, as the plain one does;
 * a transpose staged through a __device__ array is seen; a Hillis-Steele
 * scan whose steps store with memcpy does the plain one's work. And each
 * launch's "sampling" says whether its traced blocks ran the call sites the
 * others ran.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "emu_test.h"

long ik_transpose(int variant);
long ik_others(void);
cudaError_t ik_memcpy_overrun(void);

static json_t *traced_transpose(int variant)
{
	cuemu_set_tracing(1);
	cuemu_metrics_reset();
	cr_assert_eq(ik_transpose(variant), 0, "variant %d: wrong results", variant);
	return metrics_now();
}

static json_t *traced_others(void)
{
	cuemu_set_tracing(1);
	cuemu_metrics_reset();
	cr_assert_eq(ik_others(), 0, "wrong results");
	return metrics_now();
}

static json_t *row_at(json_t *launch, const char *marker, const char *space, const char *kind)
{
	int line = marker_line("idioms.cu", marker);
	json_t *row = line_row(launch, line, space, kind);
	cr_assert_not_null(row, "no %s %s row at %s (line %d)", space, kind, marker, line);
	return row;
}

static long long field(json_t *row, const char *key)
{
	return (long long)json_number_value(json_object_get(row, key));
}

/* The k-th launch (from 0) of kernel. */
static json_t *nth_launch(json_t *m, const char *kernel, int k)
{
	size_t i;
	json_t *l;
	json_array_foreach(json_object_get(m, "launches"), i, l)
		if (strcmp(json_string_value(json_object_get(l, "kernel")), kernel) == 0 && k-- == 0)
			return l;
	cr_assert_fail("no launch %d of %s", k, kernel);
	return NULL;
}

static void same_as_plain(int variant, const char *marker)
{
	json_t *p = traced_transpose(0), *m = traced_transpose(variant);
	json_t *pl = launch_of(p, "transpose_idiom"), *ml = launch_of(m, "transpose_idiom");
	cr_assert_not_null(pl);
	cr_assert_not_null(ml);
	for (int k = 0; k < 2; k++) {
		const char *kind = k ? "store" : "load";
		json_t *a = row_at(pl, "@plain", "global", kind), *b = row_at(ml, marker, "global", kind);
		cr_expect_eq(field(b, "requests"), field(a, "requests"), "%s %s requests", marker, kind);
		cr_expect_eq(field(b, "sectors"), field(a, "sectors"), "%s %s sectors", marker, kind);
	}
	cr_expect_float_eq(json_real_value(json_object_get(row_at(ml, marker, "global", "store"),
							   "sectors_per_request")), 32.0, 1e-9);
	cr_expect_eq(json_integer_value(json_object_get(ml, "combining_ops")),
		     json_integer_value(json_object_get(pl, "combining_ops")));
	json_decref(p);
	json_decref(m);
}

Test(idioms, run_time_memcpy_is_traced_like_the_store) { same_as_plain(1, "@rt_memcpy"); }
Test(idioms, constant_memcpy_is_traced_like_the_store) { same_as_plain(2, "@const_memcpy"); }
Test(idioms, builtin_memcpy_is_traced_like_the_store) { same_as_plain(3, "@builtin"); }
Test(idioms, memmove_is_traced_like_the_store) { same_as_plain(4, "@memmove"); }
Test(idioms, struct_copy_is_traced_like_the_store) { same_as_plain(5, "@struct"); }
Test(idioms, fortified_memcpy_is_traced_like_the_store) { same_as_plain(6, "@chk"); }
Test(idioms, wide_wmemcpy_is_traced_like_the_store) { same_as_plain(8, "@wmemcpy"); }

Test(idioms, device_array_is_global_memory)
{
	json_t *m = traced_transpose(7), *l = launch_of(m, "transpose_idiom");
	cr_assert_not_null(l);
	json_t *st = row_at(l, "@stage", "global", "store");
	cr_expect_float_eq(json_real_value(json_object_get(st, "sectors_per_request")), 32.0, 1e-9);
	json_t *c = launch_of(m, "copy_out");
	cr_assert_not_null(c);
	cr_expect_float_eq(json_real_value(json_object_get(row_at(c, "@copy_out", "global", "load"),
							   "sectors_per_request")), 4.0, 1e-9);
	json_decref(m);
}

/* The same verdict: the same work and bank figures. Where the step's store
 * lies before its conditional load in the code, a warp whose lanes diverge
 * there issues the store in two requests (5 steps of 320): the compiler's
 * layout, which differs between the two forms. */
Test(idioms, memcpy_scan_does_the_plain_scans_work)
{
	json_t *m = traced_others();
	json_t *plain = nth_launch(m, "scan_idiom", 0), *copy = nth_launch(m, "scan_idiom", 1);
	cr_expect_eq(json_integer_value(json_object_get(copy, "combining_ops")),
		     json_integer_value(json_object_get(plain, "combining_ops")));
	json_t *a = row_at(plain, "@step", "shared", "store"), *b = row_at(copy, "@step", "shared", "store");
	cr_expect_leq(labs((long)(field(b, "requests") - field(a, "requests"))), 5);
	cr_expect_float_eq(json_real_value(json_object_get(b, "wavefronts_per_request")), 1.0, 1e-9);
	cr_expect_eq(json_array_size(json_object_get(copy, "races")), 0);
	json_decref(m);
}

/* A struct copy of 16 aligned bytes a lane: one 16-byte piece a lane, the
 * sectors of a plain copy of the same bytes, its work none (a move). */
Test(idioms, struct_copy_goes_in_aligned_pieces)
{
	json_t *m = traced_others(), *l = launch_of(m, "copy_wide");
	cr_assert_not_null(l);
	json_t *st = row_at(l, "@wide", "global", "store");
	/* 4 blocks traced of 8, 4 warps each: 16 requests of 512 bytes. */
	cr_expect_eq(field(st, "requests"), 16);
	cr_expect_eq(field(st, "sectors"), 16 * 16);
	cr_expect_eq(json_integer_value(json_object_get(l, "combining_ops")), 0);
	json_decref(m);
}

/* A float4 that g++ splits into a 4-byte access a field is one request of
 * 16 bytes a lane, as on the GPU: 16 sectors, 4 in 4-byte terms; its example
 * says 16 bytes. Two floats a lane read on two lines stay two requests. */
Test(idioms, split_float4_is_one_wide_request)
{
	json_t *m = traced_others(), *l = launch_of(m, "float4_fields");
	cr_assert_not_null(l);
	for (int k = 0; k < 2; k++) {
		json_t *row = row_at(l, k ? "@f4_store" : "@f4_load", "global", k ? "store" : "load");
		cr_expect_eq(field(row, "requests"), 16, "4 blocks of 4 warps, one request each");
		cr_expect_eq(field(row, "sectors"), 16 * 16);
		cr_expect_eq(field(row, "word_requests"), 4 * 16);
		cr_expect_float_eq(json_number_value(json_object_get(row, "sectors_per_word_request")), 4.0,
				   1e-9);
	}
	size_t i;
	json_t *e;
	int seen = 0;
	json_array_foreach(json_object_get(l, "example_requests"), i, e)
		if (field(e, "line") == marker_line("idioms.cu", "@f4_load")) {
			cr_expect_eq(field(e, "bytes"), 16);
			seen = 1;
		}
	cr_expect(seen, "no example request at @f4_load");
	for (int k = 0; k < 2; k++) {
		json_t *row = row_at(l, k ? "@pair_second" : "@pair_first", "global", "load");
		cr_expect_eq(field(row, "requests"), 16);
		cr_expect_eq(field(row, "word_requests"), 16);
		cr_expect_eq(field(row, "sectors"), 16 * 8, "lanes 8 bytes apart: 8 sectors a request");
	}
	json_decref(m);
}

/* A thread's adjacent shared words, one aligned 16 bytes, are one vector
 * access on the GPU (LDS.128): wavefronts counted by quarter warps, each
 * piece one request in 4-byte terms. */
Test(idioms, a_threads_adjacent_shared_words_are_one_vector_access)
{
	json_t *m = traced_others(), *l = launch_of(m, "shared_items");
	cr_assert_not_null(l);
	const struct {
		const char *marker, *kind;
		double per_request;
	} want[] = {
		{ "@items4", "load", 1.0 },	/* 4 wavefronts for 4 words, not 16 */
		{ "@items8", "load", 2.0 },	/* 2 x 8 for 8 words, not 64 */
		{ "@offset_pair", "load", 4.0 },	/* word by word: 4-way each */
		{ "@items4_store", "store", 1.0 },
	};
	for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
		json_t *row = row_at(l, want[i].marker, "shared", want[i].kind);
		cr_expect_float_eq(json_number_value(json_object_get(row, "wavefronts_per_request")),
				   want[i].per_request, 1e-9, "%s", want[i].marker);
	}
	json_t *model = json_object_get(l, "model");
	cr_assert_not_null(model);
	/* 4 traced blocks of 4 warps: (4 + 2 x 8 + 2 x 4 + 4) wavefronts a warp
	 * after the stores that fill the tile (8 x 1), and the final read (1). */
	cr_expect_eq(field(model, "shared_wavefronts"), 16 * (8 + 4 + 16 + 8 + 4 + 1));
	json_decref(m);
}

Test(idioms, memset_and_device_atomics_are_traced)
{
	json_t *m = traced_others();
	json_t *f = launch_of(m, "fill_idiom"), *c = launch_of(m, "count_idiom");
	cr_assert_not_null(f);
	cr_assert_not_null(c);
	cr_expect_float_eq(json_real_value(json_object_get(row_at(f, "@memset", "global", "store"),
							   "sectors_per_request")), 4.0, 1e-9);
	cr_expect_float_eq(json_real_value(json_object_get(row_at(f, "@own_section", "global", "store"),
							   "sectors_per_request")), 8.0, 1e-9);
	json_t *a = row_at(c, "@atomic", "global", "atomic");
	cr_expect_eq(field(a, "requests"), 16, "4 blocks of 4 warps");
	cr_expect_eq(field(row_at(c, "@gcc_atomic", "global", "atomic"), "requests"), 16);
	json_decref(m);
}

static json_t *sampling(json_t *launch)
{
	json_t *s = json_object_get(launch, "sampling");
	cr_assert_not_null(s, "no sampling object");
	return s;
}

Test(idioms, honest_launch_samples_the_same_call_sites)
{
	json_t *m = traced_transpose(0), *s = sampling(launch_of(m, "transpose_idiom"));
	cr_expect(json_is_true(json_object_get(s, "same_call_sites")));
	cr_expect_eq(json_integer_value(json_object_get(s, "untraced_blocks")), 64 - 4);
	cr_expect_eq(json_array_size(json_object_get(s, "untraced_only_lines")), 0);
	cr_expect_eq(json_array_size(json_object_get(s, "traced_only_lines")), 0);
	json_decref(m);
}

Test(idioms, last_block_code_is_explained_by_the_tail)
{
	json_t *m = traced_others(), *s = sampling(launch_of(m, "last_block_extra"));
	cr_expect(json_is_true(json_object_get(s, "same_call_sites")));
	json_decref(m);
}

Test(idioms, a_path_only_untraced_blocks_take_is_reported)
{
	json_t *m = traced_others(), *s = sampling(launch_of(m, "lockstep_probe"));
	cr_expect(json_is_false(json_object_get(s, "same_call_sites")));
	json_t *lines = json_object_get(s, "untraced_only_lines");
	cr_assert_eq(json_array_size(lines), 1);
	cr_expect_eq(json_integer_value(json_object_get(json_array_get(lines, 0), "line")),
		     marker_line("idioms.cu", "@unseen"));
	json_decref(m);
}

Test(idioms, all_blocks_traced_leaves_nothing_to_compare)
{
	cuemu_set_traced_blocks(-1);
	json_t *m = traced_others(), *s = sampling(launch_of(m, "lockstep_probe"));
	cr_expect(json_is_true(json_object_get(s, "same_call_sites")));
	cr_expect_eq(json_integer_value(json_object_get(s, "untraced_blocks")), 0);
	json_decref(m);
}

static void overrun_faults(int tracing)
{
	cuemu_set_tracing(tracing);
	cr_expect_eq(ik_memcpy_overrun(), cudaErrorIllegalAddress);
	const char *f = cuemu_last_fault();
	cr_assert_not_null(f);
	cr_expect(strstr(f, "out-of-bounds global store") != NULL, "%s", f);
	char at[64];
	snprintf(at, sizeof at, "idioms.cu:%d", marker_line("idioms.cu", "@overrun"));
	cr_expect(strstr(f, at) != NULL, "%s", f);
}

Test(idioms, memcpy_past_a_buffer_faults_untraced) { overrun_faults(0); }
Test(idioms, memcpy_past_a_buffer_faults_traced) { overrun_faults(1); }
