/*
 * The latencies lab 4's section 4 quotes, measured on this GPU:
 *
 *   - dependent arithmetic: one thread, a chain of FP32 FMAs, each needing the
 *     one before (fma.rn.f32 in inline PTX, so the compiler can neither fold
 *     nor reorder the chain); cycles by clock64() over the chain;
 *   - a global load from DRAM and from the L2: one thread chasing pointers
 *     (each load's address is the value the previous one returned), loads
 *     that skip the L1 (ld.global.cg), through a random cycle of slots 512
 *     bytes apart in a 16 MiB window (few TLB pages, far over the L1). DRAM:
 *     the L2 flushed before each run by writing a buffer larger than it; L2:
 *     the same walk again, the window now in the L2.
 *
 * Prints a markdown table, one row per figure, keyed by this GPU's
 * architecture (sm_90_fma_cycles ...), the format of docs/results/latency.md.
 * Built and run by tests/gpu/latency.sh.
 */
#include <cuda_runtime.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define CHECK(x)                                                                            \
	do {                                                                                \
		cudaError_t e_ = (x);                                                       \
		if (e_ != cudaSuccess) {                                                    \
			fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x,          \
				cudaGetErrorString(e_));                                    \
			exit(1);                                                            \
		}                                                                           \
	} while (0)

#define FMA_CHAIN 4096	/* FMAs per timed chain */
#define RUNS 9		/* the first is a warm-up; the median of the rest counts */
#define CHASE_STEPS 20000
#define WINDOW_BYTES (16u << 20)
#define SLOT_BYTES 512u

__global__ void fma_chain(float a, float b, float *out, long long *cycles)
{
	float x = (float)threadIdx.x;
	long long c0 = clock64();
#pragma unroll 1
	for (int k = 0; k < FMA_CHAIN / 64; k++) {
#pragma unroll
		for (int u = 0; u < 64; u++)
			asm volatile("fma.rn.f32 %0, %0, %1, %2;" : "+f"(x) : "f"(a), "f"(b));
	}
	long long c1 = clock64();
	*out = x;
	*cycles = c1 - c0;
}

/* The loop's own cost: the same loop without the chain. */
__global__ void empty_loop(float *out, long long *cycles)
{
	float x = (float)threadIdx.x;
	long long c0 = clock64();
#pragma unroll 1
	for (int k = 0; k < FMA_CHAIN / 64; k++)
		asm volatile("" : "+f"(x));
	long long c1 = clock64();
	*out = x;
	*cycles = c1 - c0;
}

__global__ void chase(const unsigned *next, unsigned start, int steps, unsigned *out, long long *cycles)
{
	unsigned i = start;
	long long c0 = clock64();
	for (int s = 0; s < steps; s++)
		i = __ldcg(next + i);
	long long c1 = clock64();
	*out = i;
	*cycles = c1 - c0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static double median(double *v, int n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* A random cycle through the window's slots, as element indices. */
static void make_cycle(unsigned *d_next)
{
	size_t elems = WINDOW_BYTES / 4, spread = SLOT_BYTES / 4, count = elems / spread;
	unsigned *h = (unsigned *)calloc(elems, sizeof(*h));
	unsigned *order = (unsigned *)malloc(count * sizeof(*order));
	if (!h || !order) {
		fprintf(stderr, "latency: out of host memory\n");
		exit(1);
	}
	for (size_t k = 0; k < count; k++)
		order[k] = (unsigned)k;
	uint64_t x = 88172645463325252ull;
	for (size_t k = count - 1; k > 0; k--) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		size_t j = x % (k + 1);
		unsigned t = order[k];
		order[k] = order[j];
		order[j] = t;
	}
	for (size_t k = 0; k < count; k++)
		h[order[k] * spread] = (unsigned)(order[(k + 1) % count] * spread);
	CHECK(cudaMemcpy(d_next, h, elems * sizeof(*h), cudaMemcpyHostToDevice));
	free(h);
	free(order);
}

/* Cycles per step of the chase; flush: the L2 emptied before each run. */
static double chase_cycles(const unsigned *d_next, void *d_flush, size_t flush_bytes, int flush,
			   unsigned *d_out, long long *d_cycles)
{
	double c[RUNS];
	for (int r = 0; r < RUNS; r++) {
		if (flush)
			CHECK(cudaMemset(d_flush, r, flush_bytes));
		chase<<<1, 1>>>(d_next, 0, CHASE_STEPS, d_out, d_cycles);
		CHECK(cudaGetLastError());
		long long cyc;
		CHECK(cudaMemcpy(&cyc, d_cycles, sizeof(cyc), cudaMemcpyDeviceToHost));
		c[r] = (double)cyc / CHASE_STEPS;
	}
	return median(c + 1, RUNS - 1);
}

int main(void)
{
	cudaDeviceProp p;
	int dev = 0, clock_khz = 0;
	CHECK(cudaGetDevice(&dev));
	CHECK(cudaGetDeviceProperties(&p, dev));
	CHECK(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, dev));
	char arch[16];
	snprintf(arch, sizeof(arch), "sm_%d%d", p.major, p.minor);
	int max_warps = p.maxThreadsPerMultiProcessor / 32;

	float *d_f;
	long long *d_cycles;
	unsigned *d_out;
	CHECK(cudaMalloc(&d_f, sizeof(float)));
	CHECK(cudaMalloc(&d_cycles, sizeof(long long)));
	CHECK(cudaMalloc(&d_out, sizeof(unsigned)));

	double fma[RUNS], loop[RUNS];
	for (int r = 0; r < RUNS; r++) {
		long long cyc;
		fma_chain<<<1, 32>>>(1.0001f, 0.5f, d_f, d_cycles);
		CHECK(cudaGetLastError());
		CHECK(cudaMemcpy(&cyc, d_cycles, sizeof(cyc), cudaMemcpyDeviceToHost));
		fma[r] = (double)cyc;
		empty_loop<<<1, 32>>>(d_f, d_cycles);
		CHECK(cudaGetLastError());
		CHECK(cudaMemcpy(&cyc, d_cycles, sizeof(cyc), cudaMemcpyDeviceToHost));
		loop[r] = (double)cyc;
	}
	double fma_cycles = (median(fma + 1, RUNS - 1) - median(loop + 1, RUNS - 1)) / FMA_CHAIN;

	unsigned *d_next;
	void *d_flush;
	size_t flush_bytes = (size_t)(p.l2CacheSize > 0 ? p.l2CacheSize : 64 << 20) * 4;
	CHECK(cudaMalloc(&d_next, WINDOW_BYTES));
	CHECK(cudaMalloc(&d_flush, flush_bytes));
	make_cycle(d_next);
	double dram = chase_cycles(d_next, d_flush, flush_bytes, 1, d_out, d_cycles);
	double l2 = chase_cycles(d_next, d_flush, flush_bytes, 0, d_out, d_cycles);

	/* One instruction per scheduler per cycle (sm_70 on), four schedulers per
	 * SM: a chain of dependent instructions L cycles apart needs about L warps
	 * per scheduler to issue every cycle, 4 L per SM (rounded up). */
	int warps = (int)ceil(4 * fma_cycles - 1e-9);
	double ghz = clock_khz / 1e6;
	printf("| key | value | what |\n| --- | --- | --- |\n");
	printf("| %s_device | %s | the GPU measured, %d SMs, clock %.2f GHz (cudaDevAttrClockRate) |\n", arch,
	       p.name, p.multiProcessorCount, ghz);
	printf("| %s_fma_cycles | %.1f | dependent FP32 FMA, cycles from one to the next |\n", arch,
	       fma_cycles);
	printf("| %s_fma_warps | %d | warps per SM that hide it: 4 schedulers x that many cycles, rounded up |\n", arch,
	       warps);
	printf("| %s_fma_occupancy_pct | %.1f | those warps, of the SM's %d |\n", arch,
	       100.0 * warps / max_warps, max_warps);
	printf("| %s_global_cycles | %.0f | dependent global load from DRAM (L2 flushed), cycles |\n", arch,
	       dram);
	printf("| %s_global_ns | %.0f | the same in ns at that clock |\n", arch, dram / ghz);
	printf("| %s_l2_cycles | %.0f | dependent global load that hits the L2, cycles |\n", arch, l2);
	CHECK(cudaFree(d_next));
	CHECK(cudaFree(d_flush));
	CHECK(cudaFree(d_f));
	CHECK(cudaFree(d_cycles));
	CHECK(cudaFree(d_out));
	return 0;
}
