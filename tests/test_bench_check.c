/*
 * The timed runs' checks (common/bench_plan.h, grader/steps/bench_check.c):
 * the plan itself, and the whole path driven through the emulator's
 * harness (its bench verb is the GPU's, timed by the emulator's events):
 * an honest kernel's timings are believed; one that recognises repeated
 * calls and copies an earlier result is caught by a checked run.
 */
#include <criterion/criterion.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_plan.h"
#include "steps/bench_check.h"
#include "steps/performance.h"
#include "test_support.h"

extern const struct lab lab3_transpose;

Test(bench_plan, checked_runs_and_offsets)
{
	const struct shape s = { 2, { 1000, 1000 } };
	for (uint64_t seed = 1; seed < 50; seed++) {
		uint64_t stream = bench_seed(seed, &s, -1, 5);
		cr_assert_neq(stream, bench_seed(seed, &s, 0, 5), "the sweep's points share a stream");
		cr_assert_neq(stream, bench_seed(seed, &s, -1, 6), "the secret does not change the stream");
		int checked = 0, first = -1, last = -1;
		for (int run = 0; run < 50; run++) {
			struct bench_run_plan p, again;
			bench_plan_run(stream, 1000000, run, 50, BENCH_CHECKED_RUNS, &p);
			bench_plan_run(stream, 1000000, run, 50, BENCH_CHECKED_RUNS, &again);
			cr_assert_eq(memcmp(&p, &again, sizeof(p)), 0, "the plan is not a function of the seed");
			cr_assert_eq(p.out_offset % BENCH_OFFSET_STEP_WORDS, 0);
			cr_assert_lt(p.out_offset, BENCH_SLACK_WORDS);
			cr_assert_leq(p.chunk_at + p.chunk_words, 1000000);
			cr_assert_gt(p.chunk_words, 0);
			if (p.checked) {
				checked++;
				last = run;
				first = first < 0 ? run : first;
			}
		}
		cr_assert_eq(checked, BENCH_CHECKED_RUNS);
		cr_assert(first < 25 && last >= 25, "the checks are not spread: runs %d and %d", first, last);
		struct bench_run_plan warm;
		bench_plan_run(stream, 1000000, 50, 50, BENCH_CHECKED_RUNS, &warm);
		cr_assert(!warm.checked, "a warm-up run is checked");
	}
	/* Each point of lab 4's sweep: its own count of checks. */
	int sweep_checked = 0;
	for (int run = 0; run < 10; run++) {
		struct bench_run_plan p;
		bench_plan_run(bench_seed(3, &s, 4096, 5), 1000000, run, 10, BENCH_SWEEP_CHECKED_RUNS, &p);
		sweep_checked += p.checked;
	}
	cr_assert_eq(sweep_checked, BENCH_SWEEP_CHECKED_RUNS);
	/* The base input is the size's, whatever the sweep point; the secret changes it. */
	cr_assert_neq(bench_input_seed(3, &s, 5), bench_input_seed(3, &s, 6));
	cr_assert_neq(bench_input_seed(3, &s, 5), bench_seed(3, &s, -1, 5), "the input stream is the plan's");
	/* A tiny input: the chunk is all of it. */
	struct bench_run_plan p;
	bench_plan_run(7, 3, 0, 4, BENCH_CHECKED_RUNS, &p);
	cr_expect(p.chunk_at == 0 && p.chunk_words == 3);
}

Test(bench_plan, the_hash_sees_position_and_value)
{
	uint32_t a[4] = { 1, 2, 3, 4 }, b[4] = { 2, 1, 3, 4 }, c[4] = { 1, 2, 3, 5 };
	cr_expect_neq(bench_output_hash(a, 4), bench_output_hash(b, 4));
	cr_expect_neq(bench_output_hash(a, 4), bench_output_hash(c, 4));
	cr_expect_eq(bench_output_hash(a, 4), bench_output_hash(a, 4));
}

/* Builds FILE for the emulator and times it at 96x64, 4 runs. */
static int bench(const char *file, char *msg, size_t len)
{
	struct rubric r;
	char work[] = "/tmp/bench-check-XXXXXX";
	struct build_result b;
	emu_lab3_build(file, &r, work, &b);
	r.n_chart_shapes = 0;
	r.perf_shape = (struct shape){ 2, { 96, 64 } };
	r.runs = 4;
	r.bench_timeout_s = 120;
	struct run_context ctx = { .lab = &lab3_transpose, .rubric = &r, .harness = b.harness, .work_dir = work,
				   .backend = BACKEND_EMU, .seed = 11 };
	struct bench_run st;
	int rc = bench_harness(&ctx, b.harness, 0, &st, msg, len);
	bench_run_free(&st);
	char rm[1100];
	snprintf(rm, sizeof(rm), "rm -rf %s", work);
	cr_expect_eq(system(rm), 0);
	rubric_free(&r);
	return rc;
}

Test(bench_check, an_honest_kernel_is_believed, .timeout = 300)
{
	char msg[1024] = "";
	cr_expect_eq(bench("tests/fixtures/hostile/lab3_naive.cu", msg, sizeof(msg)), 0, "%s", msg);
}

Test(bench_check, a_repeated_call_that_copies_is_caught, .timeout = 300)
{
	char msg[1024] = "";
	cr_expect_eq(bench("tests/fixtures/hostile/gpu_repeat_copy.cu", msg, sizeof(msg)), -1);
	cr_expect(strstr(msg, "computed a wrong result"), "%s", msg);
}

Test(bench_check, a_reused_pointer_is_caught, .timeout = 300)
{
	char msg[1024] = "";
	cr_expect_eq(bench("tests/fixtures/hostile/gpu_pointer_reuse.cu", msg, sizeof(msg)), -1);
	cr_expect(strstr(msg, "computed a wrong result"), "%s", msg);
}

extern const struct lab lab4_occupancy;

/* The timing a harness would send for runs of s, its checked runs hashed
 * from the whole reference of their input; `off` is added to the last hash. */
static json_t *timing_of(const struct lab *lab, const struct shape *s, uint64_t seed, uint64_t secret,
			 int runs, int checks, uint64_t off)
{
	size_t n_in = lab->in_count(s), n_out = lab->out_count(s);
	uint32_t *in = malloc(n_in * 4), *out = malloc(n_out * 4);
	cr_assert(in && out);
	uint64_t stream = bench_seed(seed, s, -1, secret);
	char secret_text[32];
	snprintf(secret_text, sizeof(secret_text), "%016llx", (unsigned long long)secret);
	json_t *checked = json_array(), *last = NULL;
	for (int run = 0; run < runs; run++) {
		struct bench_run_plan p;
		bench_plan_run(stream, n_in, run, runs, checks, &p);
		if (!p.checked)
			continue;
		lab_fill_input(lab, in, s, bench_input_seed(seed, s, secret));
		bench_apply_chunk(in, &p);
		lab->reference(in, out, s);
		char hash[32];
		snprintf(hash, sizeof(hash), "%016llx", (unsigned long long)bench_output_hash(out, n_out));
		last = json_pack("{s:i, s:s}", "run", run, "hash", hash);
		json_array_append_new(checked, last);
	}
	if (last && off) {
		uint64_t h;
		sscanf(json_string_value(json_object_get(last, "hash")), "%" SCNx64, &h);
		char hash[32];
		snprintf(hash, sizeof(hash), "%016llx", (unsigned long long)(h + off));
		json_object_set_new(last, "hash", json_string(hash));
	}
	free(in);
	free(out);
	return json_pack("{s:i, s:s, s:o}", "extra_shared", -1, "secret", secret_text, "checked", checked);
}

/* lab's checks of each of sizes[0..n) against what the whole reference of
 * each run's input gives: the right hashes believed, a wrong one caught. */
static void checks_agree_with_the_whole_reference(const struct lab *lab, const struct shape *sizes, size_t n)
{
	char msg[512], where[64];
	for (size_t i = 0; i < n; i++) {
		struct bench_checker c;
		shape_format(&sizes[i], where, sizeof(where));
		cr_assert_eq(bench_checker_open(&c, lab, &sizes[i], msg, sizeof(msg)), 0);
		json_t *right = timing_of(lab, &sizes[i], 11, 0x5eed + i, 10, 3, 0);
		json_t *wrong = timing_of(lab, &sizes[i], 11, 0x5eed + i, 10, 3, 1);
		cr_expect_eq(bench_check_outputs(&c, 11, right, 10, 3, msg, sizeof(msg)), 0, "%s: %s", where, msg);
		cr_expect_eq(bench_check_outputs(&c, 11, wrong, 10, 3, msg, sizeof(msg)), -1,
			     "%s: a wrong hash was believed", where);
		json_decref(right);
		json_decref(wrong);
		bench_checker_close(&c);
	}
}

/* Lab 4's checks update the base output's hash by the changed chunk alone:
 * they must expect exactly what the whole reference of each run's input
 * gives, and catch one that differs. */
Test(bench_check, an_elementwise_lab_checks_by_the_chunk_alone)
{
	static const struct shape sizes[] = { { 1, { 1 } }, { 1, { 63 } }, { 1, { 100003 } },
					     { 1, { (1u << 20) + 7 } } };
	checks_agree_with_the_whole_reference(&lab4_occupancy, sizes, sizeof(sizes) / sizeof(sizes[0]));
}

/* Lab 3's checks hash the reference's output from the input, without the
 * transpose, and update that hash for each run's chunk alone: the same, on
 * square and ragged shapes. */
Test(bench_check, a_rearranging_lab_checks_by_the_chunk_alone)
{
	static const struct shape sizes[] = { { 2, { 1, 1 } },	 { 2, { 1, 1000 } }, { 2, { 1000, 1 } },
					     { 2, { 31, 33 } },	 { 2, { 97, 4099 } }, { 2, { 1024, 1024 } } };
	checks_agree_with_the_whole_reference(&lab3_transpose, sizes, sizeof(sizes) / sizeof(sizes[0]));
}
