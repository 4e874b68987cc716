/*
 * The harness: the child process that calls the student's entry point.
 *
 *   harness device
 *   harness correct LAB SHAPE SEED [SHAPE SEED ...]   (one CUDA context for all)
 *   harness bench LAB RUNS SHAPE [SHAPE ...]
 *   harness analysis LAB SHAPE SEED        (emulator build only)
 *   harness predict LAB SHAPE SEED SMS [computed]  (emulator build only: the performance model's trace)
 *   harness occupancy LAB QUERIES          (lab 4's calculator, on the CPU)
 *   harness sweep LAB RUNS SHAPE           (lab 4: bandwidth against occupancy)
 *
 * It reports on CHANNEL_FD (see common/channel.h) and nowhere else. Nothing
 * it reports is taken on trust: the grader regenerates the inputs from the
 * seed, checks every output word against its own reference, and checks
 * timings against its own clock. Student code may leave this process in any
 * state, so the grader runs any size that fails here again in a process of its own.
 *
 * The same file builds against the CUDA runtime and, with -DKIT_EMU,
 * against the emulator's runtime; it launches no kernels of its own.
 */
#include <cuda_runtime_api.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../../common/channel.h"
#include "../../common/guard.h"
#include "../../common/occupancy.h"
#include "../../common/rng.h"
#include "../../common/shape.h"
#include "../labs/lab.h"
#include "harness.h"

#ifdef KIT_EMU
#include <cuemu.h>
#else
#include "launch_log.h"
#endif

/* ---- reporting --------------------------------------------------------- */

void check(cudaError_t e, const char *where)
{
	if (e != cudaSuccess)
		fail(where, cudaGetErrorString(e));
}

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* ---- device ------------------------------------------------------------ */

static void send_device(void)
{
	int count = 0;
	if (cudaGetDeviceCount(&count) != cudaSuccess || count < 1) {
		send_json(MSG_DEVICE, "{\"present\":false}");
		return;
	}
	struct cudaDeviceProp p;
	check(cudaGetDeviceProperties(&p, 0), "cudaGetDeviceProperties");
	int mem_khz = 0, bus_bits = 0;
	cudaDeviceGetAttribute(&mem_khz, cudaDevAttrMemoryClockRate, 0);
	cudaDeviceGetAttribute(&bus_bits, cudaDevAttrGlobalMemoryBusWidth, 0);
	/* Double data rate: two transfers per clock. */
	double peak_gbps = 2.0 * mem_khz * 1e3 * (bus_bits / 8.0) / 1e9;
	char name[512];
	json_escape(p.name, name, sizeof(name));
	send_json(MSG_DEVICE,
		  "{\"present\":true,\"name\":\"%s\",\"major\":%d,\"minor\":%d,\"sms\":%d,"
		  "\"l2_bytes\":%d,\"memory_bytes\":%zu,\"peak_gbps\":%.1f}",
		  name, p.major, p.minor, p.multiProcessorCount, p.l2CacheSize,
		  (size_t)p.totalGlobalMem, peak_gbps);
}

/* ---- correctness ------------------------------------------------------- */

static const struct lab *need_lab(const char *id)
{
	const struct lab *lab = lab_find(id);
	if (!lab)
		fail("arguments", "unknown lab");
	return lab;
}

static struct shape need_shape(const struct lab *lab, const char *text)
{
	struct shape s;
	char err[256];
	if (shape_parse(text, &s, err, sizeof(err)) < 0 || s.rank != lab->rank)
		fail("arguments", "bad shape");
	return s;
}

/*
 * One call of the entry point on fresh inputs, the output span poisoned
 * and guarded on both sides; ships the whole span back.
 */
static void run_correct(const struct lab *lab, const struct shape *s, uint64_t seed)
{
	size_t n_in = lab->in_count(s), n_out = lab->out_count(s);
	size_t span = GUARD_WORDS + n_out + GUARD_WORDS;
	uint32_t *h_in = malloc(n_in * 4), *h_span = malloc(span * 4);
	if (!h_in || !h_span)
		fail("host memory", "out of host memory");
	lab->fill_input(h_in, s, seed);

	uint32_t *d_in, *d_span;
	check(cudaMalloc((void **)&d_in, n_in * 4), "cudaMalloc (input)");
	check(cudaMalloc((void **)&d_span, span * 4), "cudaMalloc (output)");
	check(cudaMemcpy(d_in, h_in, n_in * 4, cudaMemcpyHostToDevice), "cudaMemcpy (input)");
	check(cudaMemset(d_span, POISON_BYTE, span * 4), "cudaMemset (poison)");
	check(cudaDeviceSynchronize(), "before the call");

	char shape_text[64];
	/* A 64-bit seed travels as a string: JSON readers stop at 2^63 or 2^53. */
	send_json(MSG_BEGIN, "{\"shape\":\"%s\",\"seed\":\"%llu\"}",
		  shape_format(s, shape_text, sizeof(shape_text)), (unsigned long long)seed);

	double t0 = now_ms();
	lab_entry_call(d_in, d_span + GUARD_WORDS, s);
	cudaError_t sync = cudaDeviceSynchronize();
	cudaError_t last = cudaGetLastError();
	double elapsed = now_ms() - t0;
	cudaError_t e = sync != cudaSuccess ? sync : last;
	if (e != cudaSuccess) {
		char msg[1024] = "", esc[1200], done[2048];
#ifdef KIT_EMU
		const char *fault = cuemu_last_fault();
		snprintf(msg, sizeof(msg), "%s", fault ? fault : "");
#endif
		json_escape(msg, esc, sizeof(esc));
		int len = snprintf(done, sizeof(done), "{\"cuda_error\":\"%s\",\"cuda_error_text\":\"%.300s\","
				   "\"detail\":\"%s\",\"elapsed_ms\":%.3f}",
				   cudaGetErrorName(e), cudaGetErrorString(e), esc, elapsed);
		harness_last_frame(MSG_DONE, done, (uint64_t)len, 0);
	}

	check(cudaMemcpy(h_span, d_span, span * 4, cudaMemcpyDeviceToHost), "cudaMemcpy (output)");
	/* The input is const: a kernel that wrote into it is worth telling. */
	uint32_t *h_back = malloc(n_in * 4);
	int input_changed = 0;
	if (h_back && cudaMemcpy(h_back, d_in, n_in * 4, cudaMemcpyDeviceToHost) == cudaSuccess)
		input_changed = memcmp(h_back, h_in, n_in * 4) != 0;
	free(h_back);

	channel_send(CHANNEL_FD, MSG_OUTPUT, h_span, (uint64_t)span * 4);
	send_json(MSG_DONE, "{\"cuda_error\":null,\"elapsed_ms\":%.3f,\"input_changed\":%s}",
		  elapsed, input_changed ? "true" : "false");
	free(h_in);
	free(h_span);
	cudaFree(d_in);	/* the next size runs in the same process */
	cudaFree(d_span);
}

/* ---- performance --------------------------------------------------------- */

/* Writing a buffer larger than the L2 evicts whatever the last run left there,
 * so each timed run starts from DRAM like the first. */
static void flush_l2(void *flush, size_t bytes)
{
	check(cudaMemset(flush, 0, bytes), "cudaMemset (L2 flush)");
}

/* The entry point, or with extra >= 0 lab 4's stream_scale_shared(). */
static float time_call(cudaEvent_t a, cudaEvent_t b, const void *d_in, void *d_out,
		       const struct shape *s, long extra)
{
	float ms = 0;
	check(cudaEventRecord(a, 0), "cudaEventRecord");
	if (extra < 0)
		lab_entry_call(d_in, d_out, s);
	else
		lab_sweep_call(d_in, d_out, s, (size_t)extra);
	check(cudaEventRecord(b, 0), "cudaEventRecord");
	check(cudaEventSynchronize(b), "your entry point (timed run)");
	check(cudaGetLastError(), "your entry point (timed run)");
	check(cudaEventElapsedTime(&ms, a, b), "cudaEventElapsedTime");
	return ms;
}

static float time_copy(cudaEvent_t a, cudaEvent_t b, const void *d_in, void *d_out, size_t bytes)
{
	float ms = 0;
	check(cudaEventRecord(a, 0), "cudaEventRecord");
	check(cudaMemcpy(d_out, d_in, bytes, cudaMemcpyDeviceToDevice), "cudaMemcpy (copy ceiling)");
	check(cudaEventRecord(b, 0), "cudaEventRecord");
	check(cudaEventSynchronize(b), "cudaEventSynchronize");
	check(cudaEventElapsedTime(&ms, a, b), "cudaEventElapsedTime");
	return ms;
}

/* Appends ",%.5f" samples to a JSON array being built in buf. */
static size_t append_samples(char *buf, size_t len, size_t at, const float *x, int n)
{
	for (int i = 0; i < n && at < len; i++)
		at += (size_t)snprintf(buf + at, len - at, "%s%.5f", i ? "," : "", (double)x[i]);
	return at;
}

/* Appends the kernels launched since the last reset (CUDA only). */
static size_t append_launches(char *buf, size_t len, size_t at)
{
#ifndef KIT_EMU
	return launch_log_json(buf, len, at);
#else
	(void)buf, (void)len;
	return at;
#endif
}

static void reset_launches(void)
{
#ifndef KIT_EMU
	launch_log_reset();
#endif
}

/* Device buffers for timing: the input filled once, the output, and an L2 flusher. */
struct bench_buffers {
	void *d_in, *d_out, *flush;
	size_t out_bytes, flush_bytes;
	cudaEvent_t a, b;
};

static void buffers_open(struct bench_buffers *bb, const struct lab *lab, const struct shape *s,
			 size_t flush_bytes)
{
	size_t n_in = lab->in_count(s), n_out = lab->out_count(s);
	uint32_t *h_in = malloc(n_in * 4);
	if (!h_in)
		fail("host memory", "out of host memory");
	lab->fill_input(h_in, s, 12345);
	bb->out_bytes = n_out * 4;
	bb->flush_bytes = flush_bytes;
	check(cudaMalloc(&bb->d_in, n_in * 4), "cudaMalloc (input)");
	check(cudaMalloc(&bb->d_out, n_out * 4), "cudaMalloc (output)");
	check(cudaMalloc(&bb->flush, flush_bytes), "cudaMalloc (L2 flush buffer)");
	check(cudaMemcpy(bb->d_in, h_in, n_in * 4, cudaMemcpyHostToDevice), "cudaMemcpy (input)");
	check(cudaEventCreate(&bb->a), "cudaEventCreate");
	check(cudaEventCreate(&bb->b), "cudaEventCreate");
	free(h_in);
}

static void buffers_close(struct bench_buffers *bb)
{
	cudaEventDestroy(bb->a);
	cudaEventDestroy(bb->b);
	cudaFree(bb->d_in);
	cudaFree(bb->d_out);
	cudaFree(bb->flush);
}

/*
 * Times the entry point (or, extra >= 0, the sweep's variant) and a
 * device-to-device copy of the same bytes, interleaved run by run, so both
 * see the same clocks and temperature; sends one MSG_TIMING.
 */
static void time_and_send(const struct bench_buffers *bb, const struct shape *s, int runs, long extra)
{
	/* Warm-up: module loading, first-touch allocations, clocks ramping up. */
	for (int i = 0; i < 3; i++) {
		time_call(bb->a, bb->b, bb->d_in, bb->d_out, s, extra);
		time_copy(bb->a, bb->b, bb->d_in, bb->d_out, bb->out_bytes);
	}
	float *student = malloc((size_t)runs * sizeof(float));
	float *copy = malloc((size_t)runs * sizeof(float));
	if (!student || !copy)
		fail("host memory", "out of host memory");
	reset_launches();
	double t0 = now_ms();
	for (int i = 0; i < runs; i++) {
		flush_l2(bb->flush, bb->flush_bytes);
		student[i] = time_call(bb->a, bb->b, bb->d_in, bb->d_out, s, extra);
		flush_l2(bb->flush, bb->flush_bytes);
		copy[i] = time_copy(bb->a, bb->b, bb->d_in, bb->d_out, bb->out_bytes);
	}
	double wall = now_ms() - t0;

	size_t len = 8192 + (size_t)runs * 2 * 24;
	char *json = malloc(len), shape_text[64];
	if (!json)
		fail("host memory", "out of host memory");
	size_t at = (size_t)snprintf(json, len, "{\"shape\":\"%s\",\"extra_shared\":%ld,\"wall_ms\":%.3f,"
				     "\"student_ms\":[", shape_format(s, shape_text, sizeof(shape_text)),
				     extra, wall);
	at = append_samples(json, len, at, student, runs);
	at += (size_t)snprintf(json + at, len - at, "],\"copy_ms\":[");
	at = append_samples(json, len, at, copy, runs);
	at += (size_t)snprintf(json + at, len - at, "]");
	at = append_launches(json, len - 2, at);
	at += (size_t)snprintf(json + at, len - at, "}");
	channel_send(CHANNEL_FD, MSG_TIMING, json, at);
	free(json);
	free(student);
	free(copy);
}

static void run_bench(const struct lab *lab, const struct shape *s, int runs, size_t flush_bytes)
{
	struct bench_buffers bb;
	buffers_open(&bb, lab, s, flush_bytes);
	time_and_send(&bb, s, runs, -1);
	buffers_close(&bb);
}

/*
 * Lab 4: the same kernel with more and more dynamic shared memory per block,
 * so that 1, 2, 3 ... blocks fit on an SM, then with none; one MSG_TIMING
 * each. What occupancy each really ran at, the launch log says.
 */
static void run_sweep(const struct lab *lab, const struct shape *s, int runs, size_t flush_bytes)
{
	static const int blocks_per_sm[] = { 1, 2, 3, 4, 5, 6, 8, 12, 16 };
	struct cudaDeviceProp p;
	check(cudaGetDeviceProperties(&p, 0), "cudaGetDeviceProperties");
	struct bench_buffers bb;
	buffers_open(&bb, lab, s, flush_bytes);
	for (size_t i = 0; i < sizeof(blocks_per_sm) / sizeof(blocks_per_sm[0]); i++) {
		/* Just too much for one more block: the smallest extra that fits only
		 * blocks_per_sm[i], so the L1 cache keeps what shared memory does not need. */
		long extra = (long)(p.sharedMemPerMultiprocessor / (size_t)(blocks_per_sm[i] + 1)) -
			     (long)p.reservedSharedMemPerBlock + 1;
		extra = (extra + 127) / 128 * 128;
		if (extra > (long)p.sharedMemPerBlockOptin)
			extra = (long)p.sharedMemPerBlockOptin;
		time_and_send(&bb, s, runs, extra);
	}
	time_and_send(&bb, s, runs, 0);
	buffers_close(&bb);
}

/* ---- lab 4's calculator ------------------------------------------------- */

/*
 * QUERIES holds one device and the kernels to ask about (written by the
 * grader, see grader/steps/occupancy_check.c): "KITOCC1\n", the occ_device, an
 * int count, count occ_kernels. The answers go back as one MSG_OUTPUT of
 * count occ_results; the grader compares them with its table.
 */
static void run_occupancy(const char *path)
{
	if (!lab_occupancy_call)
		fail("arguments", "this lab has no occupancy calculator");
	FILE *f = fopen(path, "rb");
	if (!f)
		fail("occupancy", "cannot open the grader's questions");
	char magic[8];
	struct occ_device dev;
	int count = 0;
	if (fread(magic, 1, 8, f) != 8 || memcmp(magic, "KITOCC1\n", 8) != 0 ||
	    fread(&dev, sizeof(dev), 1, f) != 1 || fread(&count, sizeof(count), 1, f) != 1 ||
	    count < 1 || count > 100000)
		fail("occupancy", "the grader's questions are malformed");
	struct occ_kernel *k = malloc((size_t)count * sizeof(*k));
	struct occ_result *r = calloc((size_t)count, sizeof(*r));
	if (!k || !r || fread(k, sizeof(*k), (size_t)count, f) != (size_t)count)
		fail("occupancy", "the grader's questions are malformed");
	fclose(f);
	send_json(MSG_BEGIN, "{\"questions\":%d}", count);
	for (int i = 0; i < count; i++) {
		struct occ_device d = dev;	/* a fresh copy each time: the student's code may scribble */
		lab_occupancy_call(&d, &k[i], &r[i]);
	}
	channel_send(CHANNEL_FD, MSG_OUTPUT, r, (uint64_t)count * sizeof(*r));
	send_json(MSG_DONE, "{\"cuda_error\":null}");
	free(k);
	free(r);
}

static size_t l2_flush_bytes(void)
{
	struct cudaDeviceProp p;
	check(cudaGetDeviceProperties(&p, 0), "cudaGetDeviceProperties");
	size_t l2 = p.l2CacheSize > 0 ? (size_t)p.l2CacheSize : (size_t)64 << 20;
	return 4 * l2;
}


/* ---- main ------------------------------------------------------------- */

static void usage(void)
{
	fprintf(stderr, "usage: harness device | correct LAB (SHAPE SEED)... | bench LAB RUNS SHAPE... | "
			"analysis LAB SHAPE SEED | predict LAB SHAPE SEED SMS [computed] | occupancy LAB QUERIES | "
			"sweep LAB RUNS SHAPE\n");
	exit(2);
}

int main(int argc, char **argv)
{
	/* No channel means we were not started by the grader. */
	if (fcntl(CHANNEL_FD, F_GETFD) < 0) {
		fprintf(stderr, "harness: run me through ./grade, which opens my report channel\n");
		return 2;
	}
	fcntl(CHANNEL_FD, F_SETFD, FD_CLOEXEC);
	if (argc < 2)
		usage();

	const char *cmd = argv[1];
	if (strcmp(cmd, "device") == 0) {
		send_device();
	} else if (strcmp(cmd, "correct") == 0 && argc >= 5 && argc % 2 == 1) {
		const struct lab *lab = need_lab(argv[2]);
#ifdef KIT_EMU
		cuemu_set_tracing(0);
#endif
		for (int i = 3; i < argc; i += 2) {
			struct shape s = need_shape(lab, argv[i]);
			run_correct(lab, &s, strtoull(argv[i + 1], NULL, 10));
		}
	} else if (strcmp(cmd, "bench") == 0 && argc >= 5) {
		const struct lab *lab = need_lab(argv[2]);
		int runs = atoi(argv[3]);
		if (runs < 1 || runs > 10000)
			usage();
		send_device();
		size_t flush = l2_flush_bytes();
		for (int i = 4; i < argc; i++) {
			struct shape s = need_shape(lab, argv[i]);
			run_bench(lab, &s, runs, flush);
		}
	} else if (strcmp(cmd, "sweep") == 0 && argc == 5) {
		const struct lab *lab = need_lab(argv[2]);
		int runs = atoi(argv[3]);
		if (runs < 1 || runs > 10000 || !lab_sweep_call)
			usage();
		struct shape s = need_shape(lab, argv[4]);
		send_device();
		run_sweep(lab, &s, runs, l2_flush_bytes());
	} else if (strcmp(cmd, "occupancy") == 0 && argc == 4) {
		need_lab(argv[2]);
#ifdef KIT_EMU
		cuemu_set_tracing(0);
#endif
		run_occupancy(argv[3]);
#ifdef KIT_EMU
	} else if (strcmp(cmd, "analysis") == 0 && argc == 5) {
		const struct lab *lab = need_lab(argv[2]);
		struct shape s = need_shape(lab, argv[3]);
		uint64_t seed = strtoull(argv[4], NULL, 10);
		/* The traced blocks: a sample spread over the grid, chosen by the
		 * run's seed (emu/runtime/sample.c), not blocks a file can know. */
		cuemu_set_sample_seed(seed);
		cuemu_set_tracing(1);
		cuemu_metrics_reset();
		run_correct(lab, &s, seed);
		char *metrics = cuemu_metrics_json();
		if (!metrics)
			fail("analysis", "the emulator produced no metrics");
		channel_send(CHANNEL_FD, MSG_METRICS, metrics, strlen(metrics));
		free(metrics);
	} else if (strcmp(cmd, "predict") == 0 && (argc == 6 || (argc == 7 && strcmp(argv[6], "computed") == 0))) {
		const struct lab *lab = need_lab(argv[2]);
		struct shape s = need_shape(lab, argv[3]);
		int sms = atoi(argv[5]);
		if (sms < 1 || sms > 4096)
			usage();
		run_predict(lab, &s, strtoull(argv[4], NULL, 10), sms, argc == 7);
#endif
	} else {
		usage();
	}
	harness_last_frame(MSG_END, NULL, 0, 0);
}
