/*
 * model_params: measure, on one GPU, the parameters of the kit's performance
 * model (grader/model/, docs/model.md). Prints a key=value table on stdout;
 * tests/gpu/model_params.sh builds it, runs it under `timeout` and keeps the
 * table under $OUT.
 *
 *   model_params [quick]
 *
 * Every figure is the median of many runs timed with CUDA events after a
 * warm-up; DRAM figures flush the L2 (a memset of a buffer 4x its size)
 * before each run. Bandwidths count the bytes read plus the bytes written,
 * as the grader does (a copy of B bytes moves 2B).
 *
 * Sections (keys):
 *   device.*        what the runtime reports (SMs, clocks, L2, limits)
 *   copy.*          cudaMemcpy device-to-device against size (L2 to far above)
 *   latency.*       dependent loads (pointer chase): DRAM, L2, shared
 *   smem.*          shared-memory wavefronts per SM per ns, k-way conflicts
 *   launch.*        empty launches back to back, launch + sync, block dispatch
 *   stream.*        out[i] = 3 in[i] + 1 with W warps per SM and K loads in
 *                   flight per thread (Little's law: bandwidth vs bytes in flight)
 *   scatter.*       a permutation whose stores (or loads) touch S sectors per
 *                   request: the cost of uncoalesced traffic
 */
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>

#define CHECK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { \
	fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_)); \
	exit(1); } } while (0)
#define CHECK_LAUNCH() do { CHECK(cudaGetLastError()); } while (0)

static int g_runs = 21;
static cudaEvent_t g_t0, g_t1;
static char *g_flush;
static size_t g_flush_bytes;

static int cmp_float(const void *a, const void *b)
{
	float x = *(const float *)a, y = *(const float *)b;
	return (x > y) - (x < y);
}

static float median(float *v, int n)
{
	qsort(v, n, sizeof *v, cmp_float);
	return n % 2 ? v[n / 2] : 0.5f * (v[n / 2 - 1] + v[n / 2]);
}

static void flush_l2(void)
{
	CHECK(cudaMemset(g_flush, 1, g_flush_bytes));
}

/* A timed action: run it once to warm up, then g_runs times; median in ms. */
typedef void (*action_fn)(void *ctx);

static float time_ms(action_fn f, void *ctx, int flush)
{
	float t[64];
	int runs = g_runs < 64 ? g_runs : 64;
	f(ctx);
	CHECK(cudaDeviceSynchronize());
	for (int r = 0; r < runs; r++) {
		if (flush)
			flush_l2();
		CHECK(cudaEventRecord(g_t0));
		f(ctx);
		CHECK(cudaEventRecord(g_t1));
		CHECK(cudaEventSynchronize(g_t1));
		CHECK(cudaEventElapsedTime(&t[r], g_t0, g_t1));
	}
	return median(t, runs);
}

/* ---- copy ---------------------------------------------------------------- */
struct copy_ctx { void *dst, *src; size_t bytes; };

static void do_copy(void *p)
{
	struct copy_ctx *c = (struct copy_ctx *)p;
	CHECK(cudaMemcpy(c->dst, c->src, c->bytes, cudaMemcpyDeviceToDevice));
}

/* ---- pointer chase --------------------------------------------------------- */
__global__ void chase(const unsigned *next, unsigned start, int steps, unsigned *out, long long *cycles)
{
	unsigned i = start;
	long long c0 = clock64();
	for (int s = 0; s < steps; s++)
		i = next[i];
	long long c1 = clock64();
	*out = i;
	*cycles = c1 - c0;
}

__global__ void chase_shared(int steps, unsigned *out, long long *cycles)
{
	__shared__ unsigned next[1024];
	for (int k = threadIdx.x; k < 1024; k += blockDim.x)
		next[k] = (k * 97 + 13) & 1023;
	__syncthreads();
	if (threadIdx.x != 0)
		return;
	unsigned i = 0;
	long long c0 = clock64();
	for (int s = 0; s < steps; s++)
		i = next[i];
	long long c1 = clock64();
	*out = i;
	*cycles = c1 - c0;
}

/* ---- shared-memory throughput ---------------------------------------------- */
/* Each warp's load touches `ways` distinct words in each of 32/ways banks:
 * exactly `ways` wavefronts per request. */
__global__ void smem_load(int ways, int iters, unsigned *out)
{
	__shared__ volatile unsigned s[4096];
	for (int k = threadIdx.x; k < 4096; k += blockDim.x)
		s[k] = k;
	__syncthreads();
	int lane = threadIdx.x & 31, banks = 32 / ways;
	unsigned base = (lane % banks) + (lane / banks) * 32 + (threadIdx.x >> 5) * 128;
	unsigned sum = 0;
	for (int it = 0; it < iters; it++)
		sum += s[(base + it) & 4095];
	if (sum == 0xdeadbeef)
		*out = sum;
}

/* ---- launches ---------------------------------------------------------------- */
__global__ void empty_kernel(void) {}

/* ---- stream: W warps per SM, K independent loads per thread ------------------ */
template <int K>
__global__ void stream_k(const unsigned *in, unsigned *out, size_t n)
{
	size_t stride = (size_t)gridDim.x * blockDim.x;
	size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
	for (; i + (K - 1) * stride < n; i += K * stride) {
		unsigned v[K];
#pragma unroll
		for (int k = 0; k < K; k++)
			v[k] = in[i + k * stride];
#pragma unroll
		for (int k = 0; k < K; k++)
			out[i + k * stride] = 3u * v[k] + 1u;
	}
	for (; i < n; i += stride)
		out[i] = 3u * in[i] + 1u;
}

/* ---- scatter: a transpose of an S x (n/S) matrix, one side coalesced ---------- */
__global__ void scatter_store(const float *in, float *out, size_t n, unsigned s)
{
	size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		out[(i % s) * (n / s) + i / s] = in[i];
}

__global__ void scatter_load(const float *in, float *out, size_t n, unsigned s)
{
	size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		out[i] = in[(i % s) * (n / s) + i / s];
}

struct kernel_ctx {
	int which, ilp, grid, block, ways, iters;
	unsigned s;
	void *in, *out;
	size_t n;
};

static void do_kernel(void *p)
{
	struct kernel_ctx *c = (struct kernel_ctx *)p;
	const unsigned *in = (const unsigned *)c->in;
	unsigned *out = (unsigned *)c->out;
	switch (c->which) {
	case 0:
		switch (c->ilp) {
		case 1: stream_k<1><<<c->grid, c->block>>>(in, out, c->n); break;
		case 2: stream_k<2><<<c->grid, c->block>>>(in, out, c->n); break;
		case 4: stream_k<4><<<c->grid, c->block>>>(in, out, c->n); break;
		case 8: stream_k<8><<<c->grid, c->block>>>(in, out, c->n); break;
		default: stream_k<16><<<c->grid, c->block>>>(in, out, c->n); break;
		}
		break;
	case 1:
		scatter_store<<<c->grid, c->block>>>((const float *)in, (float *)out, c->n, c->s);
		break;
	case 2:
		scatter_load<<<c->grid, c->block>>>((const float *)in, (float *)out, c->n, c->s);
		break;
	case 3:
		smem_load<<<c->grid, c->block>>>(c->ways, c->iters, out);
		break;
	case 4:
		for (int k = 0; k < c->iters; k++)
			empty_kernel<<<c->grid, c->block>>>();
		break;
	case 5:
		for (int k = 0; k < c->iters; k++) {
			empty_kernel<<<c->grid, c->block>>>();
			CHECK(cudaDeviceSynchronize());
		}
		break;
	}
	CHECK_LAUNCH();
}

/* A random cycle through `count` slots spaced `spread` elements apart. */
static void make_chase(unsigned *d_next, size_t elems, size_t count, size_t spread)
{
	unsigned *h = (unsigned *)calloc(elems, sizeof *h);
	unsigned *order = (unsigned *)malloc(count * sizeof *order);
	if (!h || !order) {
		fprintf(stderr, "out of host memory\n");
		exit(1);
	}
	for (size_t k = 0; k < count; k++)
		order[k] = (unsigned)k;
	uint64_t x = 88172645463325252ull;
	for (size_t k = count - 1; k > 0; k--) {
		x ^= x << 13; x ^= x >> 7; x ^= x << 17;
		size_t j = x % (k + 1);
		unsigned t = order[k]; order[k] = order[j]; order[j] = t;
	}
	for (size_t k = 0; k < count; k++)
		h[order[k] * spread] = (unsigned)(order[(k + 1) % count] * spread);
	CHECK(cudaMemcpy(d_next, h, elems * sizeof *h, cudaMemcpyHostToDevice));
	free(h);
	free(order);
}

static void measure_chase(const char *key, unsigned *d_next, size_t elems, size_t count,
			  size_t spread, unsigned *d_out, long long *d_cycles, double clock_ghz)
{
	const int steps = 20000;
	make_chase(d_next, elems, count, spread);
	float t[16];
	long long cyc[16];
	for (int r = 0; r < 9; r++) {
		/* Each run walks the same 20000 lines: flush them out of the L2, or
		 * every run after the first measures the L2. */
		flush_l2();
		CHECK(cudaDeviceSynchronize());
		CHECK(cudaEventRecord(g_t0));
		chase<<<1, 1>>>(d_next, 0, steps, d_out, d_cycles);
		CHECK_LAUNCH();
		CHECK(cudaEventRecord(g_t1));
		CHECK(cudaEventSynchronize(g_t1));
		CHECK(cudaEventElapsedTime(&t[r], g_t0, g_t1));
		CHECK(cudaMemcpy(&cyc[r], d_cycles, sizeof cyc[r], cudaMemcpyDeviceToHost));
	}
	float c[16];
	for (int r = 0; r < 8; r++)
		c[r] = (float)cyc[r + 1];
	float ns = median(t + 1, 8) * 1e6f / steps;
	float cycles = median(c, 8) / steps;
	printf("latency.%s_ns=%.1f\nlatency.%s_cycles=%.1f\n", key, ns, key, cycles);
	(void)clock_ghz;
}

int main(int argc, char **argv)
{
	int quick = argc > 1 && strcmp(argv[1], "quick") == 0;
	if (quick)
		g_runs = 7;
	int dev = 0;
	CHECK(cudaSetDevice(dev));
	cudaDeviceProp p;
	CHECK(cudaGetDeviceProperties(&p, dev));
	int clock_khz = 0, mem_khz = 0, bus = 0;
	CHECK(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, dev));
	CHECK(cudaDeviceGetAttribute(&mem_khz, cudaDevAttrMemoryClockRate, dev));
	CHECK(cudaDeviceGetAttribute(&bus, cudaDevAttrGlobalMemoryBusWidth, dev));
	int sms = p.multiProcessorCount;
	double clock_ghz = clock_khz / 1e6;
	printf("device.name=%s\n", p.name);
	printf("device.cc=%d.%d\n", p.major, p.minor);
	printf("device.sms=%d\n", sms);
	printf("device.sm_clock_mhz=%.0f\n", clock_khz / 1e3);
	printf("device.mem_clock_mhz=%.0f\n", mem_khz / 1e3);
	printf("device.bus_width_bits=%d\n", bus);
	printf("device.peak_gbps=%.0f\n", 2.0 * mem_khz * 1e3 * (bus / 8) / 1e9);
	printf("device.l2_bytes=%d\n", p.l2CacheSize);
	printf("device.max_threads_per_sm=%d\n", p.maxThreadsPerMultiProcessor);
	printf("device.max_blocks_per_sm=%d\n", p.maxBlocksPerMultiProcessor);
	printf("device.regs_per_sm=%d\n", p.regsPerMultiprocessor);
	printf("device.smem_per_sm=%zu\n", p.sharedMemPerMultiprocessor);
	printf("device.smem_per_block_optin=%zu\n", p.sharedMemPerBlockOptin);
	fflush(stdout);

	CHECK(cudaEventCreate(&g_t0));
	CHECK(cudaEventCreate(&g_t1));
	g_flush_bytes = (size_t)4 * (p.l2CacheSize > 0 ? p.l2CacheSize : 64 << 20);
	CHECK(cudaMalloc((void **)&g_flush, g_flush_bytes));

	/* Buffers for the DRAM tests: 1 GiB each (2^28 words, the graded scan size). */
	size_t big = (size_t)1 << 30, n = big / 4;
	void *a, *b;
	CHECK(cudaMalloc(&a, big));
	CHECK(cudaMalloc(&b, big));
	CHECK(cudaMemset(a, 0, big));
	CHECK(cudaMemset(b, 0, big));

	/* Copy against size: inside L2, around it, far above it. */
	size_t sizes[] = {(size_t)4 << 20, (size_t)16 << 20, (size_t)64 << 20,
			  (size_t)256 << 20, big};
	double ceiling = 0;
	for (int k = 0; k < 5; k++) {
		struct copy_ctx c = {b, a, sizes[k]};
		float ms = time_ms(do_copy, &c, 1);
		double gbps = 2.0 * sizes[k] / (ms * 1e6);
		printf("copy.mib%zu_gbps=%.0f\n", sizes[k] >> 20, gbps);
		if (sizes[k] == big)
			ceiling = gbps;
	}
	printf("copy.ceiling_gbps=%.0f\n", ceiling);
	fflush(stdout);

	/* Latencies: a random cycle, one load per 256 B line, 1 GiB (DRAM),
	 * 8 MiB (L2 on any GPU with >= 16 MiB), and shared memory. */
	unsigned *d_out;
	long long *d_cycles;
	CHECK(cudaMalloc((void **)&d_out, 64));
	CHECK(cudaMalloc((void **)&d_cycles, sizeof(long long)));
	measure_chase("dram", (unsigned *)a, n, n / 64, 64, d_out, d_cycles, clock_ghz);
	measure_chase("l2", (unsigned *)b, (8 << 20) / 4, (8 << 20) / 256, 64, d_out, d_cycles, clock_ghz);
	{
		long long cyc;
		chase_shared<<<1, 32>>>(20000, d_out, d_cycles);
		CHECK_LAUNCH();
		CHECK(cudaDeviceSynchronize());
		CHECK(cudaMemcpy(&cyc, d_cycles, sizeof cyc, cudaMemcpyDeviceToHost));
		printf("latency.shared_cycles=%.1f\n", cyc / 20000.0);
	}
	CHECK(cudaMemset(a, 0, big));
	fflush(stdout);

	/* Shared memory: 2 blocks of 1024 threads per SM, every warp loading. */
	for (int ways = 1; ways <= 32; ways *= 2) {
		struct kernel_ctx c = {3, 0, sms * 2, 1024, ways, 4096, 0, a, d_out, 0};
		float ms = time_ms(do_kernel, &c, 0);
		double wavefronts = (double)sms * 2 * 32 * c.iters * ways;
		double per_ns = wavefronts / sms / (ms * 1e6);
		printf("smem.ways%d_wavefronts_per_sm_ns=%.3f\n", ways, per_ns);
		printf("smem.ways%d_wavefronts_per_sm_clk=%.3f\n", ways, per_ns / clock_ghz);
	}
	fflush(stdout);

	/* Launches. */
	{
		struct kernel_ctx c = {4, 0, 1, 32, 0, 1000, 0, a, b, 0};
		float ms = time_ms(do_kernel, &c, 0);
		printf("launch.empty_back_to_back_us=%.2f\n", ms * 1e3 / c.iters);
		c.which = 5;
		c.iters = 200;
		ms = time_ms(do_kernel, &c, 0);
		printf("launch.launch_sync_us=%.2f\n", ms * 1e3 / c.iters);
		int grids[] = {1024, 16384, 262144, 1048576};
		for (int g = 0; g < 4; g++) {
			struct kernel_ctx e = {4, 0, grids[g], 32, 0, 10, 0, a, b, 0};
			ms = time_ms(do_kernel, &e, 0);
			printf("launch.empty_grid%d_us=%.2f\n", grids[g], ms * 1e3 / e.iters);
		}
	}
	fflush(stdout);

	/* Stream: warps per SM x loads in flight per thread, over 1 GiB in and out. */
	int warps[] = {1, 2, 4, 8, 16, 32, 64};
	int ilps[] = {1, 2, 4, 8, 16};
	for (int w = 0; w < 7; w++) {
		int per_block = warps[w] < 8 ? warps[w] : 8;
		int blocks_per_sm = warps[w] / per_block;
		for (int k = 0; k < 5; k++) {
			struct kernel_ctx c = {0, ilps[k], sms * blocks_per_sm, per_block * 32, 0, 0, 0, a, b, n};
			float ms = time_ms(do_kernel, &c, 1);
			double gbps = 2.0 * big / (ms * 1e6);
			printf("stream.w%d_ilp%d_gbps=%.0f\nstream.w%d_ilp%d_pct_of_copy=%.1f\n",
			       warps[w], ilps[k], gbps, warps[w], ilps[k], 100 * gbps / ceiling);
		}
		fflush(stdout);
	}
	/* The usual full grid: one thread per element, 256 threads. */
	{
		struct kernel_ctx c = {0, 1, (int)((n + 255) / 256), 256, 0, 0, 0, a, b, n};
		float ms = time_ms(do_kernel, &c, 1);
		double gbps = 2.0 * big / (ms * 1e6);
		printf("stream.full_grid_gbps=%.0f\nstream.full_grid_pct_of_copy=%.1f\n", gbps, 100 * gbps / ceiling);
	}

	/* Scatter: stores (or loads) at stride S floats: max(4, S) sectors per request. */
	for (unsigned s = 1; s <= 1024; s *= 2) {
		if (s > 32 && s != 1024)
			continue;
		for (int which = 1; which <= 2; which++) {
			struct kernel_ctx c = {which, 0, (int)((n + 255) / 256), 256, 0, 0, s, a, b, n};
			float ms = time_ms(do_kernel, &c, 1);
			double gbps = 2.0 * big / (ms * 1e6);
			printf("scatter.%s_s%u_pct_of_copy=%.1f\n", which == 1 ? "store" : "load", s,
			       100 * gbps / ceiling);
		}
		fflush(stdout);
	}
	CHECK(cudaFree(a));
	CHECK(cudaFree(b));
	CHECK(cudaFree(g_flush));
	CHECK(cudaFree(d_out));
	CHECK(cudaFree(d_cycles));
	printf("done=1\n");
	return 0;
}
