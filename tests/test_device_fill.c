/*
 * A test's input generated on the GPU (grader/harness/device_fill.cu) is
 * the grader's own, bit for bit. Here: the C side, which both follow (the
 * per-word functions of common/rng.h, rng_fill_words over any range, and
 * the lab's fill, which follows its input kind alone), pinned to the words
 * the kit generated before the GPU made them; then the kernel itself, run
 * by the emulator (any machine) and on a GPU where there is one, against
 * rng_fill_words for both kinds, from word 0 and from words further on,
 * and with another seed (tests/gpu/device_hash_check.cu, "fill").
 */
#include <criterion/criterion.h>
#include <string.h>

#include "../common/rng.h"
#include "grade_runner.h"
#include "labs/lab.h"
#include "test_support.h"

/* Words 1000 to 1003 of seed 42, and of seed 0x66696c6c, as the kit's
 * fills (rng_fill_u32, rng_fill_f32) gave them before this file existed:
 * every grade's inputs are these streams, on the host and the GPU alike. */
static const uint32_t u32_42[] = { 0xcac6f28b, 0x12378321, 0xc6f6a254, 0xb8b42206 };
static const uint32_t f32_42[] = { 0x3f158de4, 0xbf5b90fa, 0x3f0ded44, 0x3ee2d088 };
static const uint32_t u32_fill[] = { 0xe30dbf9a, 0xb1fdef9d, 0x758c9e12, 0x552159fe };
static const uint32_t f32_fill[] = { 0x3f461b7e, 0x3ec7f7bc, 0xbda73620, 0xbeab7a9c };

Test(device_fill, the_streams_are_the_kits_as_before)
{
	uint32_t w[4];
	rng_fill_words(w, 1000, 4, RNG_U32, 42);
	cr_expect_arr_eq(w, u32_42, sizeof(w));
	rng_fill_words(w, 1000, 4, RNG_F32, 42);
	cr_expect_arr_eq(w, f32_42, sizeof(w));
	rng_fill_words(w, 1000, 4, RNG_U32, 0x66696c6c);
	cr_expect_arr_eq(w, u32_fill, sizeof(w));
	rng_fill_words(w, 1000, 4, RNG_F32, 0x66696c6c);
	cr_expect_arr_eq(w, f32_fill, sizeof(w));
	/* Past word 2^32: the index is 64 bits wide all the way. */
	rng_fill_words(w, 0xffffffffull, 2, RNG_U32, 42);
	cr_expect(w[0] == 0x423cba85u && w[1] == 0xb436680eu, "%08x %08x", w[0], w[1]);
	rng_fill_words(w, 0x10000000003ull, 1, RNG_F32, 42);
	cr_expect_eq(w[0], 0xbe626448u, "%08x", w[0]);
}

/* The range [first, first + count) is the whole fill's slice, for both
 * kinds, and each word is rng_word's: what the kernel computes. */
Test(device_fill, a_range_is_the_slice_of_the_whole)
{
	enum { N = 3 << 20, FIRST = 12345, COUNT = (2 << 20) + 7 };	/* several pieces of parallel_for */
	static uint32_t whole[N], part[COUNT];
	const enum rng_kind kinds[] = { RNG_U32, RNG_F32 };
	for (int k = 0; k < 2; k++) {
		rng_fill_words(whole, 0, N, kinds[k], 5);
		rng_fill_words(part, FIRST, COUNT, kinds[k], 5);
		cr_assert_arr_eq(part, whole + FIRST, sizeof(part), "kind %d", k);
		uint64_t key = rng_key(5);
		for (size_t i = 0; i < N; i += 4099)
			cr_assert_eq(whole[i], rng_word(kinds[k], key, i), "kind %d, word %zu", k, i);
	}
}

/* The host's own fills are the same streams: rng_fill_u32 the RNG_U32
 * words, rng_fill_f32 floats with the RNG_F32 words' bits. */
Test(device_fill, the_fills_of_words_and_of_floats_agree)
{
	enum { N = 4096 };
	static uint32_t w[N], u[N];
	static float f[N];
	rng_fill_words(w, 0, N, RNG_U32, 77);
	rng_fill_u32(u, N, 77);
	cr_expect_arr_eq(w, u, sizeof(w));
	rng_fill_words(w, 0, N, RNG_F32, 77);
	rng_fill_f32(f, N, 77);
	cr_expect_arr_eq(w, f, sizeof(w));
}

/* A lab's input is its kind's stream: the grader's (lab_fill_input) and
 * the GPU's follow lab->input alone. */
Test(device_fill, a_labs_input_follows_its_kind)
{
	struct shape vec = { 1, { 1000 } }, mat = { 2, { 20, 50 } };
	uint32_t in[1000], want[1000];
	const char *ids[] = { "lab1", "lab2", "lab3", "lab4" };
	for (int i = 0; i < 4; i++) {
		const struct lab *lab = lab_find(ids[i]);
		const struct shape *s = lab->rank == 1 ? &vec : &mat;
		lab_fill_input(lab, in, s, 9);
		rng_fill_words(want, 0, 1000, lab->input, 9);
		cr_expect_arr_eq(in, want, sizeof(in), "%s", ids[i]);
	}
	cr_expect_eq(lab_find("lab3")->input, RNG_F32, "a transpose's input: floats, compared bit for bit");
	cr_expect_eq(lab_find("lab1")->input, RNG_U32);
}

Test(device_fill, another_seed_other_words)
{
	enum { N = 1024 };
	uint32_t a[N], b[N];
	const enum rng_kind kinds[] = { RNG_U32, RNG_F32 };
	for (int k = 0; k < 2; k++) {
		rng_fill_words(a, 500, N, kinds[k], 1);
		rng_fill_words(b, 500, N, kinds[k], 2);
		int same = 0;
		for (int i = 0; i < N; i++)
			same += a[i] == b[i];
		cr_expect_lt(same, 4, "kind %d: %d of %d words alike", k, same, N);
	}
}

/* The kernel, run by the emulator: its arithmetic, on any machine. */
Test(device_fill, emulator_kernel_equals_c, .timeout = 300)
{
	if (!have_emulator())
		cr_skip_test("the emulator is not built (build/emu/cuemu-cc): run make");
	run_kit_kernel_check("build/tests/device-hash-check-emu", "fill");
}

/* On a GPU: the same checks, and the fill's launches out of the launch log. */
Test(device_fill, gpu_kernel_equals_c, .timeout = 300)
{
	char why[512];
	if (!have_gpu(why, sizeof(why)))
		cr_skip_test("needs a CUDA GPU: %s", why);
	run_kit_kernel_check("build/tests/device-hash-check", "fill");
}
