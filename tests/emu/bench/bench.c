/*
 * The emulator's speed: elements per second for the transposes of a
 * 1024 x 1024 matrix and the scans of 2^20 elements, with lockstep off
 * (mode 0), on for the first 4 blocks of each launch (the grader's
 * analysis), and on for every block. Checks each result, prints a
 * Markdown table (docs/results/emu-speed.md).
 *
 *   build/tests/emu/emu-bench [REPEATS]
 */
#include <cuda_runtime_api.h>
#include <cuemu.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

void bench_transpose(int tiled, const float *d_in, float *d_out, int rows, int cols);
void bench_scan(int blelloch, const unsigned *d_in, unsigned *d_out, size_t n, unsigned *scratch);

#define DIM 1024
#define N (1u << 20)

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);	/* CPU time: steady on a busy machine */
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void *dev(size_t bytes)
{
	void *p;
	if (cudaMalloc(&p, bytes) != cudaSuccess) {
		fprintf(stderr, "cudaMalloc failed\n");
		exit(1);
	}
	return p;
}

static int check_transpose(const float *in, const float *out)
{
	for (int r = 0; r < DIM; r++)
		for (int c = 0; c < DIM; c++)
			if (out[(size_t)c * DIM + r] != in[(size_t)r * DIM + c])
				return 0;
	return 1;
}

static int check_scan(int exclusive, const unsigned *in, const unsigned *out)
{
	unsigned sum = 0;
	for (size_t i = 0; i < N; i++) {
		if (exclusive && out[i] != sum)
			return 0;
		sum += in[i];
		if (!exclusive && out[i] != sum)
			return 0;
	}
	return 1;
}

/* Runs kernel k (0 naive, 1 tiled, 2 Hillis-Steele, 3 Blelloch) once in
 * the current mode; returns the seconds, or -1 if the result is wrong. */
static double run(int k, void *h_in, void *h_out, void *d_in, void *d_out, unsigned *scratch)
{
	size_t bytes = (size_t)N * 4;
	cudaMemset(d_out, 0, bytes);
	cuemu_metrics_reset();
	double t0 = now();
	if (k < 2)
		bench_transpose(k, d_in, d_out, DIM, DIM);
	else
		bench_scan(k == 3, d_in, d_out, N, scratch);
	double t = now() - t0;
	if (cudaGetLastError() != cudaSuccess ||
	    cudaMemcpy(h_out, d_out, bytes, cudaMemcpyDeviceToHost) != cudaSuccess)
		return -1;
	int ok = k < 2 ? check_transpose(h_in, h_out) : check_scan(k == 3, h_in, h_out);
	return ok ? t : -1;
}

int main(int argc, char **argv)
{
	static const char *names[] = { "transpose 1024x1024, naive", "transpose 1024x1024, tiled [32][33]",
				       "scan 2^20, Hillis-Steele (block scan + sums + add)",
				       "scan 2^20, Blelloch (block scan + sums + add)" };
	int repeats = argc > 1 ? atoi(argv[1]) : 3;
	size_t bytes = (size_t)N * 4;
	unsigned *h_in = malloc(bytes), *h_out = malloc(bytes);
	for (size_t i = 0; i < N; i++)
		h_in[i] = (unsigned)(i * 2654435761u) >> 4;
	float *f_in = malloc(bytes);
	for (size_t i = 0; i < N; i++)
		f_in[i] = (float)i;
	void *d_f = dev(bytes), *d_u = dev(bytes), *d_out = dev(bytes);
	unsigned *scratch = dev(4 * N / 1024 * 4 + 4096);
	cudaMemcpy(d_f, f_in, bytes, cudaMemcpyHostToDevice);
	cudaMemcpy(d_u, h_in, bytes, cudaMemcpyHostToDevice);

	printf("| kernel | lockstep off (mode 0) | lockstep, first 4 blocks | lockstep, every block |\n");
	printf("| --- | --- | --- | --- |\n");
	for (int k = 0; k < 4; k++) {
		printf("| %s |", names[k]);
		for (int m = 0; m < 3; m++) {
			cuemu_set_tracing(m > 0);
			cuemu_set_traced_blocks(m == 2 ? -1 : 4);
			double best = 1e30;
			for (int r = 0; r < repeats; r++) {
				double t = k < 2 ? run(k, f_in, h_out, d_f, d_out, scratch)
						 : run(k, h_in, h_out, d_u, d_out, scratch);
				if (t < 0) {
					fprintf(stderr, "%s: wrong result (mode %d)\n", names[k], m);
					return 1;
				}
				if (t < best)
					best = t;
			}
			printf(" %.2f M/s (%.3f s) |", N / best / 1e6, best);
			fflush(stdout);
		}
		printf("\n");
	}
	return 0;
}
