/*
 * The kit's kernels against the C functions they stand for:
 *  - the hash (grader/harness/device_hash.cu) against bench_output_hash()
 *    (common/bench_plan.c): the same 64 bits for seeded random words of
 *    each size asked, from an aligned start and from one word in;
 *  - the input's fill (grader/harness/device_fill.cu) against
 *    rng_fill_words() (common/rng.c): the same words, bit for bit, for both
 *    kinds of input, from word 0 and from words further on (past 2^32 too),
 *    nothing written outside the range, a chunk refilled as bench.c undoes a
 *    run's, and another seed giving other words;
 *  - on the GPU, neither kernel's launches are in the launch log, while a
 *    launch of this program's own is.
 *
 *   device-hash-check [hash | fill] [N ...]
 *     (both by default; sizes by default 0 1 31 1023 2^20+7 2^26)
 *
 * Built twice by the Makefile: with nvcc, linked as a harness is (the
 * launch log's --wrap), and with the emulator's compiler, which runs the
 * same kernels on the CPU (the launch log is the GPU's only). Run by
 * tests/test_device_hash.c and tests/test_device_fill.c. Prints a PASS or
 * FAIL line per check, then a last line; exit 0 when all held, else 1.
 */
#include <cuda_runtime.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern "C" {
#include "../../common/bench_plan.h"
#include "../../common/rng.h"
}
#include "../../grader/harness/device_fill.h"
#include "../../grader/harness/device_hash.h"
#ifndef CUEMU
#include "../../grader/harness/launch_log.h"
#endif

static int failures;

/* One check's line: PASS or FAIL, then what was checked. */
static void report(int ok, const char *what)
{
	printf("%s %s\n", ok ? "PASS" : "FAIL", what);
	failures += !ok;
}

/* ---- the hash ------------------------------------------------------------ */

/* The n - skip words from h + skip (host) and d + skip (device). */
static void check_hash(const uint32_t *h, const uint32_t *d, size_t n, size_t skip)
{
	char line[256];
	uint64_t want = bench_output_hash(h + skip, n - skip), got = 1;
	cudaError_t e = kit_device_hash(d + skip, n - skip, &got);
	snprintf(line, sizeof(line), "hash n=%zu from word %zu: device %016llx, C %016llx%s%s", n - skip, skip,
		 (unsigned long long)got, (unsigned long long)want, e != cudaSuccess ? ": " : "",
		 e != cudaSuccess ? cudaGetErrorString(e) : "");
	report(e == cudaSuccess && got == want, line);
}

/* Words seeded by n, so that each size has inputs of its own. */
static void check_hash_size(size_t n)
{
	char line[128];
	uint32_t *h = (uint32_t *)malloc((n ? n : 1) * 4), *d = NULL;
	if (!h || (n && (cudaMalloc((void **)&d, n * 4) != cudaSuccess))) {
		snprintf(line, sizeof(line), "hash n=%zu: no memory", n);
		report(0, line);
		free(h);
		return;
	}
	rng_fill_u32(h, n, 0x68617368ull ^ n);	/* "hash" */
	if (n && cudaMemcpy(d, h, n * 4, cudaMemcpyHostToDevice) != cudaSuccess) {
		snprintf(line, sizeof(line), "hash n=%zu: cudaMemcpy", n);
		report(0, line);
	}
	check_hash(h, d, n, 0);
	/* From one word in: a pointer 4-byte aligned only, and indices that
	 * start again from 0 there. */
	if (n > 1)
		check_hash(h, d, n, 1);
	/* One word changed changes the hash (rng_mix64 is a bijection): what
	 * the harness's input check relies on. */
	if (n) {
		uint64_t before = 0, after = 0;
		uint32_t flipped = ~h[n / 2];
		kit_device_hash(d, n, &before);
		cudaMemcpy(d + n / 2, &flipped, 4, cudaMemcpyHostToDevice);
		kit_device_hash(d, n, &after);
		snprintf(line, sizeof(line), "hash n=%zu: one word changed changes the hash", n);
		report(before != after, line);
	}
	cudaFree(d);
	free(h);
}

/* ---- the fill ------------------------------------------------------------ */

#define FILL_GUARD 64		/* words either side of a range, which must stay as they were */
#define GUARD_BYTE 0xa5

static const enum rng_kind kinds[] = { RNG_U32, RNG_F32 };

static const char *kind_name(enum rng_kind kind)
{
	return kind == RNG_U32 ? "u32" : "f32";
}

/* The first of n words where a and b differ, or n. */
static size_t first_difference(const uint32_t *a, const uint32_t *b, size_t n)
{
	size_t i = 0;
	while (i < n && a[i] == b[i])
		i++;
	return i;
}

/* Words [first, first + count) of seed's stream: the kernel's, written
 * between guard words, against the C function's between the same guards. */
static void check_fill(enum rng_kind kind, size_t first, size_t count, uint64_t seed)
{
	char line[256];
	size_t total = count + 2 * FILL_GUARD;
	uint32_t *want = (uint32_t *)malloc(total * 4), *got = (uint32_t *)malloc(total * 4), *d = NULL;
	cudaError_t e = want && got ? cudaMalloc((void **)&d, total * 4) : cudaErrorMemoryAllocation;
	if (e == cudaSuccess) {
		memset(want, GUARD_BYTE, total * 4);
		rng_fill_words(want + FILL_GUARD, first, count, kind, seed);
		e = cudaMemset(d, GUARD_BYTE, total * 4);
	}
	if (e == cudaSuccess)
		e = kit_device_fill(d + FILL_GUARD, first, count, kind, seed);
	if (e == cudaSuccess)
		e = cudaMemcpy(got, d, total * 4, cudaMemcpyDeviceToHost);
	size_t at = e == cudaSuccess ? first_difference(got, want, total) : 0;
	int n = snprintf(line, sizeof(line), "fill %s words [%zu, %zu + %zu)", kind_name(kind), first, first,
			 count);
	if (e != cudaSuccess)
		snprintf(line + n, sizeof(line) - n, ": %s", cudaGetErrorString(e));
	else if (at < total)
		snprintf(line + n, sizeof(line) - n, ": %s word %lld: device %08x, C %08x",
			 at < FILL_GUARD || at >= FILL_GUARD + count ? "guard" : "stream",
			 (long long)at - FILL_GUARD, got[at], want[at]);
	else
		snprintf(line + n, sizeof(line) - n, ": the C function's, bit for bit; guards untouched");
	report(e == cudaSuccess && at == total, line);
	cudaFree(d);
	free(want);
	free(got);
}

/* bench.c's undo of a run's chunk: n words filled, a chunk of them
 * overwritten, then only the chunk filled again; all n are the C fill's. */
static void check_chunk_refill(enum rng_kind kind, size_t n, size_t at, size_t len, uint64_t seed)
{
	char line[256];
	uint32_t *want = (uint32_t *)malloc(n * 4), *got = (uint32_t *)malloc(n * 4), *d = NULL;
	cudaError_t e = want && got ? cudaMalloc((void **)&d, n * 4) : cudaErrorMemoryAllocation;
	if (e == cudaSuccess) {
		rng_fill_words(want, 0, n, kind, seed);
		e = kit_device_fill(d, 0, n, kind, seed);
	}
	if (e == cudaSuccess)
		e = cudaMemset(d + at, 0x5a, len * 4);
	if (e == cudaSuccess)
		e = kit_device_fill(d + at, at, len, kind, seed);
	if (e == cudaSuccess)
		e = cudaMemcpy(got, d, n * 4, cudaMemcpyDeviceToHost);
	size_t diff = e == cudaSuccess ? first_difference(got, want, n) : 0;
	snprintf(line, sizeof(line), "fill %s: %zu words, [%zu, %zu + %zu) overwritten and refilled: %s",
		 kind_name(kind), n, at, at, len,
		 e != cudaSuccess ? cudaGetErrorString(e) : diff < n ? "a word differs" : "as filled");
	report(e == cudaSuccess && diff == n, line);
	cudaFree(d);
	free(want);
	free(got);
}

/* Another seed, other words: the kernel does use its seed. */
static void check_seed_matters(enum rng_kind kind)
{
	enum { N = 4096 };
	static uint32_t a[N], b[N];
	uint32_t *d = NULL;
	char line[160];
	cudaError_t e = cudaMalloc((void **)&d, 2 * N * 4);
	if (e == cudaSuccess)
		e = kit_device_fill(d, 0, N, kind, 7);
	if (e == cudaSuccess)
		e = kit_device_fill(d + N, 0, N, kind, 8);
	if (e == cudaSuccess)
		e = cudaMemcpy(a, d, N * 4, cudaMemcpyDeviceToHost);
	if (e == cudaSuccess)
		e = cudaMemcpy(b, d + N, N * 4, cudaMemcpyDeviceToHost);
	int same = 0;
	for (int i = 0; i < N; i++)
		same += a[i] == b[i];
	/* 24 random bits a word at the least: a handful alike by chance at most. */
	snprintf(line, sizeof(line), "fill %s: seeds 7 and 8 give other words (%d of %d alike)%s%s",
		 kind_name(kind), same, N, e != cudaSuccess ? ": " : "",
		 e != cudaSuccess ? cudaGetErrorString(e) : "");
	report(e == cudaSuccess && same < 8, line);
	cudaFree(d);
}

/* Both kinds: n words from word 0, and from word 12345. */
static void check_fill_size(size_t n)
{
	for (int k = 0; k < 2; k++) {
		check_fill(kinds[k], 0, n, 0x66696c6cull ^ n);	/* "fill" */
		check_fill(kinds[k], 12345, n, 0x66696c6cull ^ n);
	}
}

/* Ranges that start elsewhere: one word in, and across word 2^32 (a
 * 32-bit index would wrap there); a chunk undone; the seed used. */
static void check_fill_ranges(void)
{
	for (int k = 0; k < 2; k++) {
		check_fill(kinds[k], 1, 1023, 42);
		check_fill(kinds[k], ((size_t)1 << 32) - 500, 1000, 42);
		check_chunk_refill(kinds[k], ((size_t)1 << 20) + 7, 777777, 64, 99);
		check_seed_matters(kinds[k]);
	}
}

/* ---- the launch log ------------------------------------------------------ */

#ifndef CUEMU
static __global__ void own_kernel(unsigned int *p)
{
	if (p)
		p[threadIdx.x] = threadIdx.x;
}

/* The kit's launches leave the log empty; this program's own launch is
 * there, so the log does see launches in this link. */
static void check_launch_log(void)
{
	static char json[8192];
	char line[8400];
	uint32_t *d = NULL;
	uint64_t h = 0;
	cudaMalloc((void **)&d, 4096 * 4);
	cudaMemset(d, 0, 4096 * 4);
	launch_log_reset();
	cudaError_t e = kit_device_hash(d, 4096, &h);	/* launched: else the check below says nothing */
	launch_log_json(json, sizeof(json), 0);
	snprintf(line, sizeof(line), "the hash is not in the launch log: %s", json);
	report(e == cudaSuccess && strstr(json, "\"launches\":[]") != NULL, line);
	launch_log_reset();
	e = kit_device_fill(d, 0, 4096, RNG_U32, 1);
	if (e == cudaSuccess)
		e = kit_device_fill(d + 100, 100, 64, RNG_F32, 2);
	launch_log_json(json, sizeof(json), 0);
	snprintf(line, sizeof(line), "the fill is not in the launch log: %s", json);
	report(e == cudaSuccess && strstr(json, "\"launches\":[]") != NULL, line);
	own_kernel<<<1, 32>>>(NULL);
	cudaDeviceSynchronize();
	launch_log_json(json, sizeof(json), 0);
	snprintf(line, sizeof(line), "a launch of this program's own is: %s", json);
	report(strstr(json, "\"count\":1") != NULL && strstr(json, "\"launches\":[]") == NULL, line);
	/* What the grader compares with the emulator's launches (grader/steps/
	 * launch_match.h): the demangled name (a static kernel may be in an internal namespace) and the grid's and block's x, y, z. */
	snprintf(line, sizeof(line), "the launch's name or shape is not in the log: %s", json);
	report(strstr(json, "own_kernel(") != NULL && strstr(json, "\"grid_dims\":[1,1,1]") != NULL &&
	       strstr(json, "\"block_dims\":[32,1,1]") != NULL, line);
	cudaFree(d);
}
#endif

int main(int argc, char **argv)
{
	static const size_t sizes[] = { 0, 1, 31, 1023, ((size_t)1 << 20) + 7, (size_t)1 << 26 };
	int a = 1, hash = 1, fill = 1;
	if (a < argc && (strcmp(argv[a], "hash") == 0 || strcmp(argv[a], "fill") == 0)) {
		hash = strcmp(argv[a], "hash") == 0;
		fill = !hash;
		a++;
	}
	size_t n_sizes = a < argc ? (size_t)(argc - a) : sizeof(sizes) / sizeof(sizes[0]);
	for (size_t i = 0; i < n_sizes; i++) {
		size_t n = a < argc ? (size_t)strtoull(argv[a + i], NULL, 0) : sizes[i];
		if (hash)
			check_hash_size(n);
		if (fill)
			check_fill_size(n);
	}
	if (fill)
		check_fill_ranges();
#ifndef CUEMU
	check_launch_log();
#endif
	if (failures)
		printf("kit kernels: FAILED (%d checks)\n", failures);
	else
		printf("kit kernels: all checks held\n");
	return failures ? 1 : 0;
}
