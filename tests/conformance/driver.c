/*
 * The conformance suite's driver: runs one fixture's entry point on seeded
 * inputs of one size and checks every element against the kit's CPU
 * reference. Built with each fixture, by the emulator's cuemu-cc (CI) and
 * by nvcc (tests/gpu/conformance.sh), so both run the same inputs.
 *
 *   driver SIZE SEED [OUT]   SIZE: n (a scan) or ROWSxCOLS (a transpose)
 *
 * Prints "pass", or "fail: ..." with the first wrong element; writes the
 * output's bytes to OUT when given (for a bitwise comparison of two builds).
 * Exit status 0 pass, 1 fail, 2 usage or CUDA error.
 */
#include <cuda_runtime_api.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reference.h"
#include "rng.h"
#include "shape.h"

/* A fixture defines one of the labs' entry points (grader/labs/README.md). */
void scan_inclusive(const unsigned int *d_in, unsigned int *d_out, size_t n) __attribute__((weak));
void scan_exclusive(const unsigned int *d_in, unsigned int *d_out, size_t n) __attribute__((weak));
void transpose(const float *d_in, float *d_out, int rows, int cols) __attribute__((weak));

static int cuda_failed(cudaError_t e, const char *what)
{
	if (e == cudaSuccess)
		return 0;
	printf("error: %s: %s\n", what, cudaGetErrorString(e));
	return 1;
}

/* Runs the entry point on in (n words); out gets the result. */
static int run(const struct shape *s, const void *in, void *out, size_t n)
{
	void *d_in, *d_out;
	size_t bytes = n * 4;
	if (cuda_failed(cudaMalloc(&d_in, bytes), "cudaMalloc") ||
	    cuda_failed(cudaMalloc(&d_out, bytes), "cudaMalloc") ||
	    cuda_failed(cudaMemcpy(d_in, in, bytes, cudaMemcpyHostToDevice), "cudaMemcpy") ||
	    cuda_failed(cudaMemset(d_out, 0xff, bytes), "cudaMemset"))
		return -1;
	if (transpose)
		transpose(d_in, d_out, (int)s->dim[0], (int)s->dim[1]);
	else if (scan_inclusive)
		scan_inclusive(d_in, d_out, n);
	else
		scan_exclusive(d_in, d_out, n);
	if (cuda_failed(cudaGetLastError(), "the launch") ||
	    cuda_failed(cudaDeviceSynchronize(), "the kernel") ||
	    cuda_failed(cudaMemcpy(out, d_out, bytes, cudaMemcpyDeviceToHost), "cudaMemcpy back"))
		return -1;
	cudaFree(d_in);
	cudaFree(d_out);
	return 0;
}

static int write_output(const char *path, const void *out, size_t bytes)
{
	FILE *f = fopen(path, "wb");
	if (!f || fwrite(out, 1, bytes, f) != bytes || fclose(f) != 0) {
		printf("error: cannot write %s\n", path);
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct shape s;
	char err[128];
	if (argc < 3 || shape_parse(argv[1], &s, err, sizeof err) < 0 ||
	    (s.rank == 2) != (transpose != NULL) || !(transpose || scan_inclusive || scan_exclusive)) {
		fprintf(stderr, "usage: %s SIZE SEED [OUT] (SIZE: n for a scan, RxC for a transpose)\n",
			argv[0]);
		return 2;
	}
	uint64_t seed = strtoull(argv[2], NULL, 0);
	size_t n = shape_elements(&s);
	uint32_t *in = malloc(n * 4), *out = malloc(n * 4), *want = malloc(n * 4);
	if (!in || !out || !want)
		return 2;
	if (transpose) {
		rng_fill_f32((float *)in, n, seed);
		ref_transpose((const float *)in, (float *)want, s.dim[0], s.dim[1]);
	} else {
		rng_fill_u32(in, n, seed);
		(scan_inclusive ? ref_scan_inclusive : ref_scan_exclusive)(in, want, n);
	}
	if (run(&s, in, out, n) < 0)
		return 2;
	if (argc > 3 && write_output(argv[3], out, n * 4) < 0)
		return 2;
	for (size_t i = 0; i < n; i++)
		if (out[i] != want[i]) {
			printf("fail: element %zu is 0x%08x, expected 0x%08x\n", i, out[i], want[i]);
			return 1;
		}
	printf("pass\n");
	return 0;
}
