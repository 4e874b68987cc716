/*
 * grader/model/: the performance model's pieces on synthetic traces (a
 * coalesced copy, a stride-32 store, a 32-way bank conflict, a single-warp
 * kernel), its occupancy arithmetic, its GPU files and its input from the
 * emulator's metrics.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "model/gpu.h"
#include "model/model.h"
#include "model/model_input.h"
#include "model/model_explain.h"
#include "model/model_scale.h"
#include "sys/kit_paths.h"

static struct gpu_model h100(void)
{
	struct gpu_model g;
	char path[1024], err[512];
	snprintf(path, sizeof path, "%s/grader/model/gpus/h100-80gb-hbm3.ini", kit_root());
	cr_assert_eq(gpu_model_load(path, &g, err, sizeof err), 0, "%s", err);
	return g;
}

#define N_ELEMS (1u << 28)	/* the labs' graded size: 2^28 4-byte words */
#define MIN_BYTES (2.0 * 4 * N_ELEMS)

/* A one-element-per-thread kernel over N_ELEMS with 256-thread blocks, four
 * blocks traced: each warp loads 32 consecutive words (4 sectors, one line)
 * and stores them at store_sectors sectors (and as many lines) a request,
 * the L2 merging what the block's warps store into the same sectors. */
static struct model_launch stream(double store_sectors)
{
	struct model_launch l;
	memset(&l, 0, sizeof l);
	l.grid_blocks = N_ELEMS / 256;
	l.block_threads = 256;
	l.sampled_blocks = 4;
	double warps = 4 * 8;
	l.load_requests = l.store_requests = warps;
	l.load_sectors = 4 * warps;
	l.load_lines = warps;
	l.load_block_sectors = l.store_block_sectors = 4 * warps;
	l.store_sectors = store_sectors * warps;
	l.store_bytes = 32 * 4 * warps;
	l.store_lines = (store_sectors > 4 ? store_sectors : 1) * warps;
	l.load_runs = warps;
	l.intervals = 4;
	return l;
}

Test(model, coalesced_copy_is_dram_bound_near_the_ceiling)
{
	struct gpu_model g = h100();
	struct model_launch l = stream(4);
	struct model_prediction p;
	cr_assert_eq(model_predict(&g, &l, 1, MIN_BYTES, &p), 0);
	cr_assert_float_eq(p.dram_bytes, MIN_BYTES, 1, "bytes moved: %g", p.dram_bytes);
	cr_assert_eq(p.bound, BOUND_DRAM, "bound %s", model_bound_name(p.bound));
	/* Lab 4's skeleton is this kernel: 80.6% of copy on the H100 (docs/results/lab4-h100.md). */
	cr_assert(p.percent_of_copy > 80.6 - 10 && p.percent_of_copy <= 100 * g.stream_efficiency,
		  "a coalesced copy kernel: %.1f%% of copy", p.percent_of_copy);
	cr_assert_float_eq(p.copy_ns, MIN_BYTES / g.copy_gbps, 1e-6);
}

Test(model, stride_32_store_is_bound_by_its_sectors)
{
	struct gpu_model g = h100();
	struct model_launch good = stream(4), bad = stream(32);
	struct model_prediction pg, pb;
	model_predict(&g, &good, 1, MIN_BYTES, &pg);
	model_predict(&g, &bad, 1, MIN_BYTES, &pb);
	/* The L2 merges the partial sectors: DRAM sees the same bytes ... */
	cr_assert_float_eq(pb.dram_bytes, pg.dram_bytes, 1);
	/* ... but every lane's sector is a write of its own: 8x the sectors of a
	 * coalesced store, each dearer by (8)^(exponent - 1). */
	cr_assert_eq(pb.bound, BOUND_STORE_SECTORS, "bound %s", model_bound_name(pb.bound));
	cr_assert_float_eq(pb.worst_terms.t[BOUND_STORE_SECTORS],
			   8 * pow(8, g.store_exponent - 1) * pg.worst_terms.t[BOUND_STORE_SECTORS], 1e-3);
	cr_assert(pb.percent_of_copy < pg.percent_of_copy / 3, "%.1f%% against %.1f%%", pb.percent_of_copy,
		  pg.percent_of_copy);
}

/* A tiled transpose's figures: one shared store per element, and one shared
 * load of `ways` wavefronts per request. */
static struct model_launch tiled(double ways)
{
	struct model_launch l = stream(4);
	l.shared_requests = 2 * l.load_requests;
	l.shared_wavefronts = l.load_requests * (1 + ways);
	l.intervals = 8;
	l.shared_bytes = 32 * (ways > 1 ? 32 : 33) * 4;
	return l;
}

Test(model, bank_conflict_32_way_is_shared_bound)
{
	struct gpu_model g = h100();
	struct model_launch padded = tiled(1), conflicted = tiled(32);
	struct model_prediction pp, pc;
	model_predict(&g, &padded, 1, MIN_BYTES, &pp);
	model_predict(&g, &conflicted, 1, MIN_BYTES, &pc);
	cr_assert_eq(pp.bound, BOUND_DRAM, "padded: bound %s", model_bound_name(pp.bound));
	cr_assert_eq(pc.bound, BOUND_SHARED, "conflicted: bound %s", model_bound_name(pc.bound));
	cr_assert_float_eq(pc.worst_terms.t[BOUND_SHARED] / pp.worst_terms.t[BOUND_SHARED], 33.0 / 2, 1e-9);
	cr_assert(pc.percent_of_copy < pp.percent_of_copy - 20, "%.1f%% against %.1f%%", pc.percent_of_copy,
		  pp.percent_of_copy);
}

/* A grid-stride kernel of `blocks` blocks walking all N_ELEMS, coalesced,
 * one load in flight per warp, one block traced. */
static struct model_launch grid_stride(double blocks, double threads)
{
	struct model_launch l;
	memset(&l, 0, sizeof l);
	l.grid_blocks = blocks;
	l.block_threads = threads;
	l.sampled_blocks = 1;
	l.load_requests = l.store_requests = N_ELEMS / 32 / blocks;
	l.load_sectors = l.store_sectors = 4 * l.load_requests;
	l.load_block_sectors = l.store_block_sectors = 4 * l.load_requests;
	l.load_lines = l.store_lines = l.load_requests;
	l.store_bytes = 32 * 4 * l.store_requests;
	l.load_runs = l.load_requests;
	l.intervals = 1;
	return l;
}

Test(model, single_warp_kernel_is_latency_bound)
{
	struct gpu_model g = h100();
	/* One block of one warp walks all N_ELEMS, one load in flight at a time. */
	struct model_launch l = grid_stride(1, 32);
	struct model_prediction p;
	model_predict(&g, &l, 1, MIN_BYTES, &p);
	cr_assert_eq(p.bound, BOUND_LATENCY, "bound %s", model_bound_name(p.bound));
	cr_assert_float_eq(p.worst_terms.warps_per_sm, 1, 1e-9);
	cr_assert_float_eq(p.worst_terms.loads_in_flight, 1, 1e-9);
	/* Each of the 2^23 loads waits a round trip. */
	cr_assert(p.time_ns >= (N_ELEMS / 32) * g.latency_ns, "%g ns", p.time_ns);
	cr_assert(p.percent_of_copy < 1, "%.3f%% of copy", p.percent_of_copy);
}

Test(model, more_loads_in_flight_hide_latency)
{
	struct gpu_model g = h100();
	/* Lab 4's lesson: 132 blocks of 8 warps, each warp with 1 or 32 loads in flight. */
	struct model_launch l = grid_stride(132, 256);
	struct model_prediction one, many;
	l.load_runs = l.load_requests;
	model_predict(&g, &l, 1, MIN_BYTES, &one);
	l.load_runs = l.load_requests / 32;
	model_predict(&g, &l, 1, MIN_BYTES, &many);
	cr_assert_eq(one.bound, BOUND_LATENCY);
	cr_assert(many.percent_of_copy > 2.5 * one.percent_of_copy, "32 loads %.1f%%, 1 load %.1f%%",
		  many.percent_of_copy, one.percent_of_copy);
}

Test(model, blocks_per_sm_follow_the_handout)
{
	struct gpu_model g = h100();
	struct model_launch l;
	memset(&l, 0, sizeof l);
	l.block_threads = 256;
	cr_assert_eq(model_blocks_per_sm(&g, &l), 8);
	l.block_threads = 100;	/* 4 warps */
	cr_assert_eq(model_blocks_per_sm(&g, &l), 16);
	l.block_threads = 1024;
	cr_assert_eq(model_blocks_per_sm(&g, &l), 2);
	l.block_threads = 32;	/* block slots: 32 */
	cr_assert_eq(model_blocks_per_sm(&g, &l), 32);
	l.block_threads = 256;
	l.shared_bytes = 32768;	/* 33792 with the reserve: 6, not 7 */
	cr_assert_eq(model_blocks_per_sm(&g, &l), 6);
	l.shared_bytes = 116736;	/* lab 4's one block per SM */
	cr_assert_eq(model_blocks_per_sm(&g, &l), 1);
}

Test(model, launch_overhead_adds_per_launch)
{
	struct gpu_model g = h100();
	g.launch_us = 5;
	struct model_launch l[3] = { stream(4), stream(4), stream(4) };
	struct model_prediction one, three;
	model_predict(&g, l, 1, MIN_BYTES, &one);
	model_predict(&g, l, 3, MIN_BYTES, &three);
	cr_assert_float_eq(three.time_ns, 3 * one.time_ns, 1e-3);
	cr_assert_float_eq(one.worst_terms.t[BOUND_LAUNCH], 5000, 1e-9);
	cr_assert_eq(model_predict(&g, l, 0, MIN_BYTES, &one), -1, "no launch: nothing to predict");
}

/* ---- the GPU files ----------------------------------------------------------------- */

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	cr_assert(f);
	fputs(text, f);
	fclose(f);
}

Test(model_gpu, shipped_files_load_and_are_found_by_name)
{
	struct gpu_model g;
	char dir[1024], err[512];
	snprintf(dir, sizeof dir, "%s/grader/model/gpus", kit_root());
	cr_assert_eq(gpu_model_find(dir, "NVIDIA H100 80GB HBM3", &g, err, sizeof err), 0, "%s", err);
	cr_assert_eq(g.sms, 132);
	cr_assert_eq(gpu_model_find(dir, "NVIDIA H200", &g, err, sizeof err), 0, "%s", err);
	cr_assert(g.copy_gbps > 4000);
	cr_assert_eq(gpu_model_find(dir, "NVIDIA A100-SXM4-80GB", &g, err, sizeof err), -1);
	cr_assert(strstr(err, "NVIDIA H100 80GB HBM3") && strstr(err, "A100"), "%s", err);
}

Test(model_gpu, bad_files_name_the_line_and_key)
{
	char src[1024], path[] = "/tmp/kit-model-gpu-XXXXXX", err[512];
	struct gpu_model g;
	cr_assert(mkdtemp(path));
	char file[1100];
	snprintf(file, sizeof file, "%s/bad.ini", path);
	snprintf(src, sizeof src, "%s/grader/model/gpus/h100-80gb-hbm3.ini", kit_root());
	FILE *in = fopen(src, "r");
	cr_assert(in);
	char text[16384];
	size_t n = fread(text, 1, sizeof text - 1, in);
	fclose(in);
	text[n] = 0;
	/* A value out of range, on its own line. */
	char *at = strstr(text, "\nsms = 132");
	cr_assert(at);
	char bad[16500];
	snprintf(bad, sizeof bad, "%.*s\nsms = 0%s", (int)(at - text), text, at + strlen("\nsms = 132"));
	write_file(file, bad);
	cr_assert_eq(gpu_model_load(file, &g, err, sizeof err), -1);
	cr_assert(strstr(err, "bad.ini:") && strstr(err, "'sms'") && strstr(err, "out of range"), "%s", err);
	/* A key missing. */
	snprintf(bad, sizeof bad, "%.*s%s", (int)(at - text), text, at + strlen("\nsms = 132"));
	write_file(file, bad);
	cr_assert_eq(gpu_model_load(file, &g, err, sizeof err), -1);
	cr_assert(strstr(err, "[device] sms is missing"), "%s", err);
	/* An unknown key. */
	snprintf(bad, sizeof bad, "%s\nwarp_speed = 9\n", text);
	write_file(file, bad);
	cr_assert_eq(gpu_model_load(file, &g, err, sizeof err), -1);
	cr_assert(strstr(err, "warp_speed") && strstr(err, "unknown key"), "%s", err);
	remove(file);
	rmdir(path);
}

/* ---- the emulator's metrics ------------------------------------------------------------- */

Test(model_input, launches_from_metrics)
{
	const char *text =
		"{\"launches\":[{\"kernel\":\"k\",\"grid\":[4,2,1],\"block\":[32,8,1],"
		"\"dynamic_shared_bytes\":100,\"traced_blocks\":2,\"model\":{\"load_requests\":16,"
		"\"load_sectors\":64,\"load_lines\":16,\"store_requests\":16,\"store_sectors\":512,"
		"\"store_lines\":512,\"store_bytes\":2048,\"atomic_requests\":0,\"atomic_sectors\":0,\"atomic_lines\":0,"
		"\"load_block_sectors\":64,\"store_block_sectors\":64,\"shared_requests\":0,"
		"\"shared_wavefronts\":0,\"load_runs\":16,\"intervals\":2,\"static_shared_bytes\":4224}},"
		"{\"kernel\":\"untraced\",\"grid\":[1,1,1],\"block\":[1,1,1],\"dynamic_shared_bytes\":0,"
		"\"traced_blocks\":0,\"model\":null}]}";
	json_error_t je;
	json_t *m = json_loads(text, 0, &je);
	cr_assert(m, "%s", je.text);
	struct model_launch *l;
	char err[256];
	cr_assert_eq(model_launches_from_metrics(m, &l, err, sizeof err), 1, "%s", err);
	cr_assert_str_eq(l[0].kernel, "k");
	cr_assert_float_eq(l[0].grid_blocks, 8, 0);
	cr_assert_float_eq(l[0].block_threads, 256, 0);
	cr_assert_float_eq(l[0].shared_bytes, 4324, 0);
	cr_assert_float_eq(l[0].store_lines, 512, 0);
	cr_assert_float_eq(l[0].sampled_blocks, 2, 0);
	free(l);
	/* A figure that is not a number is an error, never a zero. */
	json_object_set_new(json_object_get(json_array_get(json_object_get(m, "launches"), 0), "model"),
			    "load_runs", json_string("many"));
	cr_assert_eq(model_launches_from_metrics(m, &l, err, sizeof err), -1);
	cr_assert(strstr(err, "load_runs"), "%s", err);
	json_decref(m);
}

/* A store request of 16 sectors costs the L2's measured request rate at 16
 * sectors, whatever its sectors' bytes: halving that rate doubles the term. */
Test(model, sixteen_sector_stores_cost_the_l2_request_rate)
{
	struct gpu_model g = h100();
	struct model_launch l = stream(16);
	struct model_terms t, slow;
	model_launch_cost(&g, &l, &t);
	double requests = l.store_requests * l.grid_blocks / l.sampled_blocks;
	cr_assert(t.t[BOUND_STORE_SECTORS] >= requests / g.store_requests_per_ns_16 * (1 - 1e-9),
		  "%g ns for %g requests", t.t[BOUND_STORE_SECTORS], requests);
	g.store_requests_per_ns_16 /= 2;
	model_launch_cost(&g, &l, &slow);
	cr_assert_float_eq(slow.t[BOUND_STORE_SECTORS], 2 * requests / g.store_requests_per_ns_16 / 2, 1e-3);
	/* A coalesced request has no such term: DRAM bounds it. */
	struct model_launch c = stream(4);
	model_launch_cost(&g, &c, &t);
	cr_assert_eq(t.bound, BOUND_DRAM, "bound %s", model_bound_name(t.bound));
}

/* A run of loads that a barrier closes waits barrier_latency_ns, and so does
 * the run a one-shot block's end closes (its slot frees when its slowest load
 * is back); in a loop of loads without a barrier only the last run is closed,
 * the others wait latency_ns: the loop's path grows exactly as much as the
 * one-shot kernel's. */
Test(model, a_closed_run_waits_the_barrier_latency)
{
	struct gpu_model g = h100();
	struct model_launch tile = stream(4), plain = stream(4), loop = stream(4);
	tile.intervals = 2 * tile.sampled_blocks;	/* one barrier a block */
	plain.intervals = loop.intervals = plain.sampled_blocks;
	loop.load_runs *= 4;				/* four runs a warp, one load each */
	loop.load_requests *= 4;
	struct model_terms t0, t1, p0, p1, l0, l1;
	g.barrier_latency_ns = g.latency_ns;
	model_launch_cost(&g, &tile, &t0);
	model_launch_cost(&g, &plain, &p0);
	model_launch_cost(&g, &loop, &l0);
	g.barrier_latency_ns = g.latency_ns + 1000;
	model_launch_cost(&g, &tile, &t1);
	model_launch_cost(&g, &plain, &p1);
	model_launch_cost(&g, &loop, &l1);
	cr_assert(t1.t[BOUND_LATENCY] > t0.t[BOUND_LATENCY] + 1, "%g against %g", t1.t[BOUND_LATENCY],
		  t0.t[BOUND_LATENCY]);
	double grew = p1.t[BOUND_LATENCY] - p0.t[BOUND_LATENCY];
	cr_assert(grew > 1, "%g", grew);
	cr_assert_float_eq(l1.t[BOUND_LATENCY] - l0.t[BOUND_LATENCY], grew, 1e-6 * grew);
}

/* model_physics's tile.* kernel without a barrier: 2^26 words, one-shot blocks
 * of `threads` threads, k coalesced words a thread loaded (all in flight) and
 * stored; the traced block as physics_traces.py writes it. */
static struct model_launch one_shot(double threads, double k)
{
	struct model_launch l;
	memset(&l, 0, sizeof l);
	double warps = threads / 32;
	l.grid_blocks = (1u << 26) / (threads * k);
	l.block_threads = threads;
	l.sampled_blocks = 1;
	l.load_requests = l.store_requests = l.load_lines = l.store_lines = warps * k;
	l.load_sectors = l.store_sectors = l.load_block_sectors = l.store_block_sectors = 4 * warps * k;
	l.store_bytes = 128 * warps * k;
	l.load_runs = warps;
	l.intervals = 1;
	return l;
}

/* One word a thread, the H100 measured 80.7, 75.3 and 68.9% of a 2962.6 GB/s
 * copy at 8, 16 and 32 warps a block (docs/results/gpu-2026-11-26b/
 * call2-h100/physics.txt): the block waits for its slowest load, later the
 * more warps it has. The shipped file predicts each within 3.5 points of the
 * file's copy, and the fall from 8 to 32 warps. Four words a thread hide the
 * wait behind DRAM: the per-warp term moves them less than 2.5 points. */
Test(model, a_one_shot_blocks_slowest_load_grows_with_its_warps)
{
	struct gpu_model g = h100();
	const double threads[3] = { 256, 512, 1024 }, measured[3] = { 80.7, 75.3, 68.9 };
	const double bytes = 8.0 * (1u << 26);
	struct model_prediction p[3];
	for (int i = 0; i < 3; i++) {
		struct model_launch l = one_shot(threads[i], 1);
		cr_assert_eq(model_predict(&g, &l, 1, bytes, &p[i]), 0);
		double want = measured[i] * 2962.6 / g.copy_gbps;
		cr_assert(fabs(p[i].percent_of_copy - want) < 3.5, "%g threads: %.1f%% against %.1f%%",
			  threads[i], p[i].percent_of_copy, want);
	}
	cr_assert(p[0].percent_of_copy - p[2].percent_of_copy > 8, "%.1f%% at 8 warps, %.1f%% at 32",
		  p[0].percent_of_copy, p[2].percent_of_copy);
	struct model_launch wide = one_shot(1024, 4);
	struct model_prediction with, without;
	model_predict(&g, &wide, 1, bytes, &with);
	g.slowest_load_ns_per_warp = 0;
	model_predict(&g, &wide, 1, bytes, &without);
	cr_assert_eq(with.bound, BOUND_DRAM, "bound %s", model_bound_name(with.bound));
	cr_assert(fabs(with.percent_of_copy - without.percent_of_copy) < 2.5, "%.1f%% against %.1f%%",
		  with.percent_of_copy, without.percent_of_copy);
}

/* From a traced correctness size to the graded size: a kernel whose grid grew
 * between the two traces gets factor times the blocks; one whose grid stayed
 * (a grid-stride loop) keeps it, and its blocks do factor times the work and
 * pass factor times their barriers. */
Test(model_scale, grids_that_follow_the_data_grow_others_work_more)
{
	struct model_launch big[2], small[2];
	memset(big, 0, sizeof big);
	memset(small, 0, sizeof small);
	snprintf(big[0].kernel, sizeof big[0].kernel, "tile");
	snprintf(small[0].kernel, sizeof small[0].kernel, "tile");
	snprintf(big[1].kernel, sizeof big[1].kernel, "loop");
	snprintf(small[1].kernel, sizeof small[1].kernel, "loop");
	big[0].grid_blocks = 1025;
	small[0].grid_blocks = 64;
	big[1].grid_blocks = small[1].grid_blocks = 132;
	for (int i = 0; i < 2; i++) {
		big[i].sampled_blocks = 4;
		big[i].load_requests = 100;
		big[i].load_runs = 10;
		big[i].intervals = 4 * 3;	/* two barriers a block */
	}
	model_scale_to_graded(big, 2, small, 2, 256);
	cr_assert_float_eq(big[0].grid_blocks, 1025 * 256, 1e-9);
	cr_assert_float_eq(big[0].load_requests, 100, 1e-9);
	cr_assert_float_eq(big[1].grid_blocks, 132, 1e-9);
	cr_assert_float_eq(big[1].load_requests, 100 * 256, 1e-9);
	cr_assert_float_eq(big[1].load_runs, 10 * 256, 1e-9);
	cr_assert_float_eq(big[1].intervals, 4 + 8 * 256, 1e-9);
}

/* The words of a shared-memory bound follow its figures: conflicts are
 * named only where requests need more than one wavefront. */
Test(model_explain, shared_bound_names_conflicts_only_where_there_are_some)
{
	struct model_launch l;
	memset(&l, 0, sizeof l);
	struct model_prediction p;
	memset(&p, 0, sizeof p);
	p.bound = BOUND_SHARED;
	p.launches = 1;
	char words[512];
	l.shared_requests = 100;
	l.shared_wavefronts = 100;
	model_explain(&p, &l, words, sizeof words);
	cr_expect(!strstr(words, "conflicts)"), "conflict-free requests blamed on conflicts: %s", words);
	cr_expect(strstr(words, "conflict-free"), "%s", words);
	l.shared_wavefronts = 450;
	model_explain(&p, &l, words, sizeof words);
	cr_expect(strstr(words, "4.50 wavefronts") && strstr(words, "bank conflicts"), "%s", words);
}

/* The sample stands for the grid's mean block: a grid-stride launch of 12
 * blocks whose 4 traced blocks read 9 passes' bytes where the grid's 12
 * read 26 has its sampled figures times (26 / 12) / (9 / 4). A launch with
 * every block traced, or no count of the grid's bytes, is left alone. */
Test(model_scale, the_sample_stands_for_the_grids_mean_block)
{
	struct model_launch l[3];
	memset(l, 0, sizeof l);
	for (int i = 0; i < 3; i++) {
		l[i].grid_blocks = 12;
		l[i].sampled_blocks = 4;
		l[i].load_requests = 36;
		l[i].load_block_sectors = 144;
		l[i].intervals = 4;	/* no barrier: stays one a block */
		l[i].traced_bytes = 9 * 128;
		l[i].grid_bytes = 26 * 128;
	}
	l[1].sampled_blocks = 12;	/* every block traced */
	l[2].grid_bytes = 0;		/* the trace did not say */
	model_scale_to_grid(l, 3);
	double factor = (26.0 / 12) / (9.0 / 4);
	cr_expect_float_eq(l[0].load_requests, 36 * factor, 1e-9);
	cr_expect_float_eq(l[0].load_block_sectors, 144 * factor, 1e-9);
	cr_expect_float_eq(l[0].intervals, 4, 1e-9);
	cr_expect_float_eq(l[0].grid_blocks, 12, 1e-9);
	cr_expect_float_eq(l[1].load_requests, 36, 1e-9);
	cr_expect_float_eq(l[2].load_requests, 36, 1e-9);
}
