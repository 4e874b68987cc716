/*
 * What the emulator gives the performance model: a seeded sample of blocks
 * spread over the grid (sample.c), prediction runs that skip the rest, the
 * predicted GPU's SM count, and each launch's "model" figures (perf.c).
 */
#include <criterion/criterion.h>
#include <stdlib.h>

#include "emu_test.h"

#define GRID 1000

/* Runs mark<<<grid>>> in a prediction run with 4 traced blocks and seed;
 * the blocks that ran, into seen. Returns how many. */
static int sampled_of(int grid, unsigned long long seed, unsigned int *seen)
{
	cuemu_set_tracing(1);
	cuemu_set_traced_blocks(4);
	cuemu_set_sample_seed(seed);
	cuemu_set_skip_untraced(1);
	cuemu_metrics_reset();
	cr_assert_eq(mk_which_blocks(grid, seen), 0);
	int n = 0;
	for (int b = 0; b < grid; b++)
		n += seen[b] != 0;
	return n;
}

static int sampled(unsigned long long seed, unsigned int *seen)
{
	return sampled_of(GRID, seed, seen);
}

Test(model_figures, traced_blocks_are_block_0_and_one_in_each_quarter)
{
	unsigned int seen[GRID], again[GRID];
	cr_assert_eq(sampled(7, seen), 4, "a prediction run runs its traced blocks only");
	cr_expect(seen[0], "block 0 is always traced (the analysis reads its intervals)");
	for (int q = 0; q < 4; q++) {
		int in = 0;
		for (int b = q * GRID / 4; b < (q + 1) * GRID / 4; b++)
			in += seen[b] != 0;
		cr_expect_eq(in, 1, "quarter %d of the grid holds %d traced blocks", q, in);
	}
	sampled(7, again);
	cr_expect_arr_eq(seen, again, sizeof seen, "the same seed traces the same blocks");
	int differs = 0;
	for (unsigned long long s = 8; s < 12 && !differs; s++) {
		sampled(s, again);
		differs = memcmp(seen, again, sizeof seen) != 0;
	}
	cr_expect(differs, "another seed traces other blocks");
	json_t *m = metrics_now(), *l = launch_of(m, "mark");
	cr_expect_eq(json_integer_value(json_object_get(l, "traced_blocks")), 4);
	json_decref(m);
}

/* A grid of ceil(n / per_block) blocks leaves its last block partial or
 * idle: traced for a quarter of the grid, it would hide a quarter of the
 * work. 257 blocks: a quarter holds 64, so 1,000 seeds would draw it with
 * odds 1 - (63/64)^1000 if it could be drawn (seeds 511, 582, ... do). */
Test(model_figures, the_grids_last_block_is_not_drawn)
{
	unsigned int seen[257];
	for (unsigned long long s = 0; s < 1000; s++) {
		cr_assert_eq(sampled_of(257, s, seen), 4);
		cr_assert_eq(seen[256], 0, "seed %llu traced the grid's last block", s);
	}
	cr_assert_eq(sampled_of(5, 1, seen), 4);
	cr_expect(seen[4], "a quarter of one block traces that block: 5 blocks, 4 quarters");
}

Test(model_figures, device_reports_the_predicted_sm_count)
{
	int sms = 0;
	cr_assert_eq(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0), cudaSuccess);
	cr_expect_eq(sms, 1, "the emulator is one SM unless a prediction run says otherwise");
	cuemu_set_device_sms(132);
	cr_assert_eq(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0), cudaSuccess);
	cr_expect_eq(sms, 132);
}

static double figure(json_t *launch, const char *key)
{
	json_t *v = json_object_get(json_object_get(launch, "model"), key);
	cr_assert(json_is_integer(v), "model figure %s missing", key);
	return (double)json_integer_value(v);
}

Test(model_figures, naive_transpose_stores_merge_in_the_block)
{
	cuemu_set_tracing(1);
	cuemu_metrics_reset();
	cr_assert_eq(tk_transpose(0, 256, 256), 0);
	json_t *m = metrics_now(), *l = launch_of(m, "transpose_naive");
	double blocks = (double)json_integer_value(json_object_get(l, "traced_blocks"));
	cr_assert_eq(blocks, 4);
	/* Each store request: 32 lanes in 32 rows, 32 sectors in 32 lines. */
	cr_expect_float_eq(figure(l, "store_sectors") / figure(l, "store_requests"), 32, 1e-9);
	cr_expect_float_eq(figure(l, "store_lines") / figure(l, "store_requests"), 32, 1e-9);
	/* A block's 32 x 32 patch of the output: 32 rows of 128 bytes, 4 sectors each. */
	cr_expect_float_eq(figure(l, "store_block_sectors"), blocks * 32 * 4, 1e-9);
	cr_expect_float_eq(figure(l, "load_block_sectors"), blocks * 32 * 4, 1e-9);
	/* Load, store, load, store: one load in flight at a time. */
	cr_expect_float_eq(figure(l, "load_runs"), figure(l, "load_requests"), 1e-9);
	cr_expect_float_eq(figure(l, "intervals"), blocks, 1e-9);
	json_decref(m);
}

/* A sector a block touched a few of its sectors ago is counted once, in
 * every process: each of add_sum's 16 warps loads the block's word of sums
 * and 8 sectors of its own data, 129 sectors a block. When the table of
 * touched sectors was slotted by the absolute address alone, the sums'
 * sector shared a slot with one of the 128 others in about one block in
 * 500, wherever mmap put the heap, and was counted again (lab 2's
 * prediction: 36.68 points in place of 36.69 about one grade in 150). */
Test(model_figures, a_sector_the_block_touched_lately_counts_once)
{
	const int blocks = 4096;
	cuemu_set_tracing(1);
	cuemu_set_traced_blocks(-1);
	cuemu_metrics_reset();
	cr_assert_eq(mk_add_sum(blocks), 0);
	json_t *m = metrics_now(), *l = launch_of(m, "add_sum");
	cr_assert_not_null(l);
	cr_assert_eq(json_integer_value(json_object_get(l, "traced_blocks")), blocks);
	cr_expect_float_eq(figure(l, "load_block_sectors"), blocks * (1.0 + 16 * 8), 1e-9);
	cr_expect_float_eq(figure(l, "store_block_sectors"), blocks * 16.0 * 8, 1e-9);
	json_decref(m);
	cuemu_set_traced_blocks(4);
}

Test(model_figures, tiles_count_wavefronts_barriers_and_shared_bytes)
{
	cuemu_set_tracing(1);
	cuemu_metrics_reset();
	cr_assert_eq(tk_transpose(2, 256, 256), 0);	/* unpadded: [32][32] */
	json_t *m = metrics_now(), *l = launch_of(m, "transpose_tiled");
	double blocks = (double)json_integer_value(json_object_get(l, "traced_blocks"));
	/* Row stores 1 wavefront, column loads 32: (1 + 32) / 2 on average. */
	cr_expect_float_eq(figure(l, "shared_wavefronts") / figure(l, "shared_requests"), 33.0 / 2, 1e-9);
	cr_expect_float_eq(figure(l, "intervals"), 2 * blocks, 1e-9);
	cr_expect_eq(figure(l, "static_shared_bytes"), 32 * 32 * 4);
	/* The four loads of a thread are in flight together (the shared stores between them do not wait). */
	cr_expect_float_eq(figure(l, "load_requests") / figure(l, "load_runs"), 4, 1e-9);
	json_decref(m);
}

Test(model_figures, independent_loads_make_one_run)
{
	for (int ilp4 = 0; ilp4 < 2; ilp4++) {
		cuemu_set_tracing(1);
		cuemu_metrics_reset();
		cr_assert_eq(mk_copy4(ilp4), 0);
		json_t *m = metrics_now(), *l = launch_of(m, "copy4");
		cr_assert_not_null(l);
		cr_expect_float_eq(figure(l, "load_requests") / figure(l, "load_runs"), ilp4 ? 4 : 1, 1e-9,
				   "ILP %d", ilp4 ? 4 : 1);
		json_decref(m);
	}
}

/* The bytes every block accessed, traced or not, beside the sample's: the
 * model scales the sample to the grid's mean block by them
 * (grader/model/model_scale.h). Blocks 0 and 1 of the grid-stride copy make
 * three passes, the rest two: 832 words read and written in all, whichever
 * blocks the seed traces; the sample (block 0, and one of each other
 * stratum of three, all of two passes) reads 9 passes of 128 bytes, more
 * than its share. */
Test(model_figures, the_grids_bytes_are_counted_whole)
{
	for (unsigned long long seed = 1; seed <= 4; seed++) {
		cuemu_set_tracing(1);
		cuemu_set_traced_blocks(4);
		cuemu_set_sample_seed(seed);
		cuemu_set_skip_untraced(0);
		cuemu_metrics_reset();
		cr_assert_eq(mk_uneven_copy(), 0);
		json_t *m = metrics_now(), *l = launch_of(m, "uneven_copy");
		cr_assert_not_null(l);
		cr_expect_eq(figure(l, "grid_load_bytes"), 832 * 4, "seed %llu", seed);
		cr_expect_eq(figure(l, "grid_store_bytes"), 832 * 4, "seed %llu", seed);
		cr_expect_eq(figure(l, "grid_atomic_bytes"), 0);
		cr_expect_eq(figure(l, "load_bytes"), 9 * 128, "seed %llu", seed);
		json_decref(m);
	}
}
