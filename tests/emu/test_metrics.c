/*
 * The lessons' figures, measured by the emulator on textbook kernels
 * (kernels/transpose.cu, kernels/scan.cu); the numbers are those of
 * docs/emu-metrics.md.
 */
#include <criterion/criterion.h>

#include "emu_test.h"

static json_t *traced(long (*run)(int, int, int), int variant, int rows, int cols)
{
	cuemu_set_tracing(1);
	cuemu_metrics_reset();
	cr_assert_eq(run(variant, rows, cols), 0, "wrong results");
	return metrics_now();
}

static double per_request(json_t *launch, int line, const char *space, const char *kind)
{
	json_t *row = line_row(launch, line, space, kind);
	cr_assert_not_null(row, "no %s %s row for line %d", space, kind, line);
	const char *key = strcmp(space, "global") == 0 ? "sectors_per_request" : "wavefronts_per_request";
	return json_real_value(json_object_get(row, key));
}

Test(metrics, naive_transpose_stores_32_sectors)
{
	json_t *m = traced(tk_transpose, 0, 256, 256), *l = launch_of(m, "transpose_naive");
	int line = marker_line("transpose.cu", "@naive");
	cr_assert_not_null(l);
	cr_expect_float_eq(per_request(l, line, "global", "load"), 4.0, 1e-9);
	cr_expect_float_eq(per_request(l, line, "global", "store"), 32.0, 1e-9);
	cr_expect_eq(json_integer_value(json_object_get(l, "traced_blocks")), 4);
	json_t *t = json_object_get(m, "totals");
	cr_expect_float_eq(json_real_value(json_object_get(t, "global_store_sectors_per_request")), 32.0, 1e-9);
	cr_expect_float_eq(json_real_value(json_object_get(t, "global_load_sectors_per_request")), 4.0, 1e-9);
	cr_expect_eq(json_integer_value(json_object_get(t, "races")), 0);
	json_decref(m);
}

Test(metrics, padded_tile_coalesces_without_conflicts)
{
	json_t *m = traced(tk_transpose, 1, 256, 256), *l = launch_of(m, "transpose_tiled");
	int in = marker_line("transpose.cu", "@tile_in"), out = marker_line("transpose.cu", "@tile_out");
	cr_assert_not_null(l);
	cr_expect_float_eq(per_request(l, in, "global", "load"), 4.0, 1e-9);
	cr_expect_float_eq(per_request(l, out, "global", "store"), 4.0, 1e-9);
	cr_expect_float_eq(per_request(l, in, "shared", "store"), 1.0, 1e-9);
	cr_expect_float_eq(per_request(l, out, "shared", "load"), 1.0, 1e-9);
	json_t *t = json_object_get(m, "totals");
	cr_expect_float_eq(json_real_value(json_object_get(t, "shared_wavefronts_per_request")), 1.0, 1e-9);
	cr_expect_eq(json_integer_value(json_object_get(t, "races")), 0);
	cr_expect_eq(json_integer_value(json_object_get(t, "uninit_shared_reads")), 0);
	json_decref(m);
}

Test(metrics, unpadded_tile_has_32_way_bank_conflicts)
{
	json_t *m = traced(tk_transpose, 2, 256, 256), *l = launch_of(m, "transpose_tiled");
	int in = marker_line("transpose.cu", "@tile_in"), out = marker_line("transpose.cu", "@tile_out");
	cr_assert_not_null(l);
	cr_expect_float_eq(per_request(l, out, "shared", "load"), 32.0, 1e-9);
	cr_expect_float_eq(per_request(l, in, "shared", "store"), 1.0, 1e-9);
	cr_expect_float_eq(per_request(l, out, "global", "store"), 4.0, 1e-9);
	json_decref(m);
}

Test(metrics, tile_without_barrier_races_and_reads_uninitialised)
{
	cuemu_set_tracing(1);
	cuemu_metrics_reset();
	tk_transpose(3, 256, 256);	/* its result is wrong, or right by luck */
	json_t *m = metrics_now(), *t = json_object_get(m, "totals");
	json_t *l = launch_of(m, "transpose_nosync");
	int out = marker_line("transpose.cu", "@nosync_out");
	cr_expect_gt(json_integer_value(json_object_get(t, "races")), 0);
	cr_expect_gt(json_integer_value(json_object_get(t, "uninit_shared_reads")), 0);
	json_t *u = json_array_get(json_object_get(l, "uninit_shared_reads"), 0);
	cr_expect_eq(json_integer_value(json_object_get(u, "line")), out, "uninitialised reads at line %lld",
		     json_integer_value(json_object_get(u, "line")));
	json_decref(m);
}

static json_t *scan_launch(int variant, const char *kernel, json_t **m)
{
	cuemu_set_tracing(1);
	cuemu_metrics_reset();
	long bad = sk_scan(variant);
	if (variant != 1)
		cr_assert_eq(bad, 0, "%s: %ld wrong results", kernel, bad);
	*m = metrics_now();
	json_t *l = launch_of(*m, kernel);
	cr_assert_not_null(l, "no launch of %s", kernel);
	return l;
}

/* The per-line rule for one line: its steps and their total. */
static long line_total(json_t *launch, int line, char *steps, size_t len)
{
	size_t i, k;
	json_t *a, *s;
	json_array_foreach(json_object_get(launch, "active_warps_per_line"), i, a) {
		if (json_integer_value(json_object_get(a, "line")) != line)
			continue;
		size_t at = 0;
		json_array_foreach(json_object_get(a, "steps"), k, s)
			at += (size_t)snprintf(steps + at, len - at, "%lld ", json_integer_value(s));
		return json_integer_value(json_object_get(a, "total"));
	}
	return -1;
}

/* The barrier intervals where one line's steps are (interval_indices), as
 * "1 2 3 ". */
static void line_intervals(json_t *launch, int line, char *at, size_t len)
{
	size_t i, k, o = 0;
	json_t *a, *x;
	json_array_foreach(json_object_get(launch, "active_warps_per_line"), i, a)
		if (json_integer_value(json_object_get(a, "line")) == line)
			json_array_foreach(json_object_get(a, "interval_indices"), k, x)
				o += (size_t)snprintf(at + o, len - o, "%lld ", json_integer_value(x));
}

Test(metrics, hillis_steele_keeps_289_warp_steps_busy)
{
	json_t *m, *l = scan_launch(0, "hillis_steele", &m);
	char steps[256] = "";
	long total = line_total(l, marker_line("scan.cu", "@hs_add"), steps, sizeof steps);
	cr_expect_eq(total, 289, "steps %s", steps);
	cr_expect_str_eq(steps, "32 32 32 32 32 31 30 28 24 16 ");
	cr_expect_eq(json_integer_value(json_object_get(json_object_get(m, "totals"), "races")), 0);
	cr_expect_eq(json_integer_value(json_object_get(l, "traced_blocks")), 1);
	json_decref(m);
}

Test(metrics, blelloch_keeps_71_warp_steps_busy)
{
	json_t *m, *l = scan_launch(2, "blelloch", &m);
	char up[256] = "", down[256] = "";
	long u = line_total(l, marker_line("scan.cu", "@up"), up, sizeof up);
	long d = line_total(l, marker_line("scan.cu", "@down"), down, sizeof down);
	long root = interval_warps(l, marker_line("scan.cu", "@root"));
	cr_expect_eq(u, 35, "up-sweep steps %s", up);
	cr_expect_eq(root, 1);
	cr_expect_eq(d, 35, "down-sweep steps %s", down);
	cr_expect_eq(u + root + d, 71);
	cr_expect_str_eq(up, "16 8 4 2 1 1 1 1 1 ");
	cr_expect_str_eq(down, "1 1 1 1 1 2 4 8 16 ");
	cr_expect_eq(json_integer_value(json_object_get(json_object_get(m, "totals"), "races")), 0);
	json_decref(m);
}

/* The steps in the handout's order: interval 0 loads, the up-sweep is
 * intervals 1-9, the root 10, the down-sweep 11-19 (not 1-9 again); one
 * block's warps storing to shared memory add up to the handout's 71 plus
 * the 16 of the load step. */
Test(metrics, blelloch_steps_in_the_handouts_order)
{
	json_t *m, *l = scan_launch(2, "blelloch", &m);
	char up[128] = "", down[128] = "", stores[256] = "";
	size_t k, o = 0;
	json_t *iv;
	line_intervals(l, marker_line("scan.cu", "@up"), up, sizeof up);
	line_intervals(l, marker_line("scan.cu", "@down"), down, sizeof down);
	cr_expect_str_eq(up, "1 2 3 4 5 6 7 8 9 ");
	cr_expect_str_eq(down, "11 12 13 14 15 16 17 18 19 ");
	json_array_foreach(json_object_get(l, "intervals"), k, iv)
		o += (size_t)snprintf(stores + o, sizeof stores - o, "%lld ",
				      json_integer_value(json_object_get(iv, "warps_shared_store")));
	cr_expect_str_eq(stores, "16 16 8 4 2 1 1 1 1 1 1 1 1 1 1 1 2 4 8 16 0 ");
	cr_expect_eq(json_integer_value(json_object_get(l, "active_warp_steps")), 87);
	json_t *t = json_object_get(m, "totals");
	cr_expect_eq(json_integer_value(json_object_get(t, "active_warp_steps")), 87);
	cr_expect_eq(json_integer_value(json_object_get(t, "block_scan_launch")), 0);
	json_decref(m);
}

Test(metrics, single_buffer_hillis_steele_races)
{
	json_t *m, *l = scan_launch(1, "hillis_steele_racy", &m);
	int line = marker_line("scan.cu", "@racy");
	long at_line = 0;
	size_t i;
	json_t *r;
	json_array_foreach(json_object_get(l, "races"), i, r) {
		cr_expect_eq(json_integer_value(json_object_get(json_object_get(r, "second"), "line")), line);
		at_line += json_integer_value(json_object_get(r, "count"));
	}
	cr_expect_eq(at_line, 8194);
	cr_expect_eq(json_integer_value(json_object_get(json_object_get(m, "totals"), "races")), 8194);
	json_decref(m);
}

Test(metrics, example_request_lists_each_lane)
{
	json_t *m = traced(tk_transpose, 0, 256, 256), *l = launch_of(m, "transpose_naive");
	size_t i;
	json_t *e, *store = NULL;
	json_array_foreach(json_object_get(l, "example_requests"), i, e)
		if (strcmp(json_string_value(json_object_get(e, "kind")), "store") == 0)
			store = e;
	cr_assert_not_null(store);
	json_t *lanes = json_object_get(store, "lane_addresses");
	cr_assert_eq(json_array_size(lanes), 32);
	/* Neighbouring lanes write a whole column of 256 floats apart. */
	json_int_t a0 = json_integer_value(json_array_get(lanes, 0));
	json_int_t a1 = json_integer_value(json_array_get(lanes, 1));
	cr_expect_eq(a1 - a0, 256 * 4);
	json_decref(m);
}

Test(metrics, mode_0_records_nothing)
{
	cuemu_set_tracing(0);
	cuemu_metrics_reset();
	cr_assert_eq(tk_transpose(1, 64, 64), 0);
	json_t *m = metrics_now();
	cr_expect_eq(json_array_size(json_object_get(m, "launches")), 0);
	json_decref(m);
}

Test(metrics, every_block_traced_when_asked)
{
	cuemu_set_traced_blocks(-1);
	json_t *m = traced(tk_transpose, 1, 128, 96), *l = launch_of(m, "transpose_tiled");
	cr_expect_eq(json_integer_value(json_object_get(l, "traced_blocks")), 3 * 4);
	json_decref(m);
}

Test(metrics, awkward_shapes_are_right_in_every_mode)
{
	static const int shapes[][2] = { { 1, 1 }, { 31, 33 }, { 33, 31 }, { 1, 1000 }, { 100, 3 } };
	for (int mode = 0; mode < 2; mode++)
		for (int v = 0; v < 3; v++)
			for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
				cuemu_set_tracing(mode);
				cr_expect_eq(tk_transpose(v, shapes[s][0], shapes[s][1]), 0,
					     "variant %d, %dx%d, mode %d", v, shapes[s][0], shapes[s][1], mode);
			}
}

/* Work (docs/emu-metrics.md): the thread-operations that combine values.
 * Hillis-Steele adds 1023 + 1022 + 1020 + ... + 512 = 9217 times; its copies
 * (tid < off) and the loads and stores of the block cost nothing. Element 0
 * of this input is 0, and a sum with it equals a value just loaded, so it
 * counts as a move: thread off's add in each of the 10 steps. */
Test(metrics, hillis_steele_combines_9207_times)
{
	json_t *m, *l = scan_launch(0, "hillis_steele", &m);
	cr_expect_eq(json_integer_value(json_object_get(l, "combining_ops")), 9217 - 10);
	cr_expect_eq(json_number_value(json_object_get(json_object_get(m, "totals"), "combining_ops")),
		     9217 - 10);
	json_decref(m);
}

/* Blelloch: 1022 adds in each sweep (its root step is written out) and the
 * root's store; the down-sweep's swap is a move. Sums with element 0's 0
 * (the leftmost node of the up-sweep's first step, the leftmost path of the
 * down-sweep, the root's 0, which thread 0 loaded) are moves too: 10. */
Test(metrics, blelloch_combines_about_twice_per_element)
{
	json_t *m, *l = scan_launch(2, "blelloch", &m);
	json_int_t ops = json_integer_value(json_object_get(l, "combining_ops"));
	cr_expect_eq(ops, 1022 + 1 + 1022 - 10, "%lld combining operations", (long long)ops);
	json_decref(m);
}
