/*
 * The kit's hash kernel (grader/harness/device_hash.cu) against the C
 * function it stands for, bench_output_hash() (common/bench_plan.c): the
 * same 64 bits for seeded random words of each size asked, from an aligned
 * start and from one word in; and on the GPU, the kernel's launches are
 * not in the launch log, while a launch of this program's own is.
 *
 *   device-hash-check [N ...]     (default: 0 1 31 1023 2^20+7 2^26)
 *
 * Built twice by the Makefile: with nvcc, linked as a harness is (the
 * launch log's --wrap), and with the emulator's compiler, which runs the
 * same kernel on the CPU (the launch log is the GPU's only). Run by
 * tests/test_device_hash.c. Prints a line per check; exit 0 when all held.
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
#include "../../grader/harness/device_hash.h"
#ifndef CUEMU
#include "../../grader/harness/launch_log.h"
#endif

static int failures;

/* The n - skip words from h + skip (host) and d + skip (device). */
static void check_hash(const uint32_t *h, const uint32_t *d, size_t n, size_t skip)
{
	uint64_t want = bench_output_hash(h + skip, n - skip), got = 1;
	cudaError_t e = kit_device_hash(d + skip, n - skip, &got);
	int ok = e == cudaSuccess && got == want;
	printf("%s n=%zu from word %zu: device %016llx, C %016llx%s%s\n", ok ? "ok  " : "FAIL", n - skip, skip,
	       (unsigned long long)got, (unsigned long long)want, e != cudaSuccess ? ": " : "",
	       e != cudaSuccess ? cudaGetErrorString(e) : "");
	failures += !ok;
}

/* Words seeded by n, so that each size has inputs of its own. */
static void check_size(size_t n)
{
	uint32_t *h = (uint32_t *)malloc((n ? n : 1) * 4), *d = NULL;
	if (!h || (n && (cudaMalloc((void **)&d, n * 4) != cudaSuccess))) {
		printf("FAIL n=%zu: no memory\n", n);
		failures++;
		free(h);
		return;
	}
	rng_fill_u32(h, n, 0x68617368ull ^ n);	/* "hash" */
	if (n && cudaMemcpy(d, h, n * 4, cudaMemcpyHostToDevice) != cudaSuccess) {
		printf("FAIL n=%zu: cudaMemcpy\n", n);
		failures++;
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
		int ok = before != after;
		printf("%s n=%zu: one word changed changes the hash\n", ok ? "ok  " : "FAIL", n);
		failures += !ok;
	}
	cudaFree(d);
	free(h);
}

#ifndef CUEMU
static __global__ void own_kernel(unsigned int *p)
{
	if (p)
		p[threadIdx.x] = threadIdx.x;
}

/* The hash's launches leave the log empty; this program's own launch is
 * there, so the log does see launches in this link. */
static void check_launch_log(void)
{
	static char json[8192];
	uint32_t *d = NULL;
	uint64_t h = 0;
	cudaMalloc((void **)&d, 4096 * 4);
	cudaMemset(d, 0, 4096 * 4);
	launch_log_reset();
	cudaError_t e = kit_device_hash(d, 4096, &h);	/* launched: else the check below says nothing */
	launch_log_json(json, sizeof(json), 0);
	int ok = e == cudaSuccess && strstr(json, "\"launches\":[]") != NULL;
	printf("%s the hash is not in the launch log: %s\n", ok ? "ok  " : "FAIL", json);
	failures += !ok;
	own_kernel<<<1, 32>>>(NULL);
	cudaDeviceSynchronize();
	launch_log_json(json, sizeof(json), 0);
	ok = strstr(json, "\"count\":1") != NULL && strstr(json, "\"launches\":[]") == NULL;
	printf("%s a launch of this program's own is: %s\n", ok ? "ok  " : "FAIL", json);
	failures += !ok;
	cudaFree(d);
}
#endif

int main(int argc, char **argv)
{
	static const size_t sizes[] = { 0, 1, 31, 1023, ((size_t)1 << 20) + 7, (size_t)1 << 26 };
	if (argc > 1) {
		for (int i = 1; i < argc; i++)
			check_size((size_t)strtoull(argv[i], NULL, 0));
	} else {
		for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
			check_size(sizes[i]);
	}
#ifndef CUEMU
	check_launch_log();
#endif
	printf("%s\n", failures ? "device hash: FAILED" : "device hash: all checks held");
	return failures ? 1 : 0;
}
