/*
 * The harness: the child process that calls the student's entry point.
 *
 *   harness device
 *   harness correct LAB SHAPE SEED
 *   harness bench LAB RUNS SHAPE [SHAPE ...]
 *   harness analysis LAB SHAPE SEED        (emulator build only)
 *
 * It reports on CHANNEL_FD (see common/channel.h) and nowhere else. Nothing
 * it reports is taken on trust: the grader regenerates the inputs from the
 * seed, checks every output word against its own reference, and checks
 * timings against its own clock. Once student code has run, this process
 * may be in any state, so it reports what it saw and exits.
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
#include "../../common/rng.h"
#include "../../common/shape.h"
#include "../labs/lab.h"

#ifdef KIT_EMU
#include <cuemu.h>
#endif

/* ---- reporting --------------------------------------------------------- */

static void send_json(enum channel_msg type, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void send_json(enum channel_msg type, const char *fmt, ...)
{
	char buf[4096];
	va_list ap;
	va_start(ap, fmt);
	int len = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (len < 0 || (size_t)len >= sizeof(buf))
		len = (int)strlen(buf);
	channel_send(CHANNEL_FD, type, buf, (uint64_t)len);
}

/* Writes s as a JSON string body: error strings come from the runtime and
 * the emulator and may hold quotes or file names. */
static void json_escape(const char *s, char *out, size_t len)
{
	size_t o = 0;
	for (; s && *s && o + 7 < len; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\') {
			out[o++] = '\\';
			out[o++] = (char)c;
		} else if (c < 0x20) {
			o += (size_t)snprintf(out + o, len - o, "\\u%04x", c);
		} else {
			out[o++] = (char)c;
		}
	}
	out[o] = '\0';
}

/* A failure of the harness itself (not of the student's kernel). */
static void fail(const char *where, const char *what)
{
	char esc[1024];
	json_escape(what, esc, sizeof(esc));
	send_json(MSG_ERROR, "{\"where\":\"%s\",\"error\":\"%s\"}", where, esc);
	exit(1);
}

static void check(cudaError_t e, const char *where)
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
		char msg[1024] = "", esc[1200];
#ifdef KIT_EMU
		const char *fault = cuemu_last_fault();
		snprintf(msg, sizeof(msg), "%s", fault ? fault : "");
#endif
		json_escape(msg, esc, sizeof(esc));
		send_json(MSG_DONE, "{\"cuda_error\":\"%s\",\"cuda_error_text\":\"%s\",\"detail\":\"%s\","
			  "\"elapsed_ms\":%.3f}",
			  cudaGetErrorName(e), cudaGetErrorString(e), esc, elapsed);
		exit(0);
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
}

/* ---- performance --------------------------------------------------------- */

/* Writing a buffer larger than the L2 evicts whatever the last run left there,
 * so each timed run starts from DRAM like the first. */
static void flush_l2(void *flush, size_t bytes)
{
	check(cudaMemset(flush, 0, bytes), "cudaMemset (L2 flush)");
}

static float time_call(cudaEvent_t a, cudaEvent_t b, const void *d_in, void *d_out,
		       const struct shape *s)
{
	float ms = 0;
	check(cudaEventRecord(a, 0), "cudaEventRecord");
	lab_entry_call(d_in, d_out, s);
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

/*
 * Times the entry point and a device-to-device copy of the same bytes,
 * interleaved run by run, so both see the same clocks and temperature.
 */
static void run_bench(const struct lab *lab, const struct shape *s, int runs, size_t flush_bytes)
{
	size_t n_in = lab->in_count(s), n_out = lab->out_count(s);
	uint32_t *h_in = malloc(n_in * 4);
	if (!h_in)
		fail("host memory", "out of host memory");
	lab->fill_input(h_in, s, 12345);

	void *d_in, *d_out, *flush;
	cudaEvent_t a, b;
	check(cudaMalloc(&d_in, n_in * 4), "cudaMalloc (input)");
	check(cudaMalloc(&d_out, n_out * 4), "cudaMalloc (output)");
	check(cudaMalloc(&flush, flush_bytes), "cudaMalloc (L2 flush buffer)");
	check(cudaMemcpy(d_in, h_in, n_in * 4, cudaMemcpyHostToDevice), "cudaMemcpy (input)");
	check(cudaEventCreate(&a), "cudaEventCreate");
	check(cudaEventCreate(&b), "cudaEventCreate");
	free(h_in);

	/* Warm-up: module loading, first-touch allocations, clocks ramping up. */
	for (int i = 0; i < 3; i++) {
		time_call(a, b, d_in, d_out, s);
		time_copy(a, b, d_in, d_out, n_out * 4);
	}
	float *student = malloc((size_t)runs * sizeof(float));
	float *copy = malloc((size_t)runs * sizeof(float));
	if (!student || !copy)
		fail("host memory", "out of host memory");
	double t0 = now_ms();
	for (int i = 0; i < runs; i++) {
		flush_l2(flush, flush_bytes);
		student[i] = time_call(a, b, d_in, d_out, s);
		flush_l2(flush, flush_bytes);
		copy[i] = time_copy(a, b, d_in, d_out, n_out * 4);
	}
	double wall = now_ms() - t0;

	size_t len = 64 + (size_t)runs * 2 * 24;
	char *json = malloc(len), shape_text[64];
	if (!json)
		fail("host memory", "out of host memory");
	size_t at = (size_t)snprintf(json, len, "{\"shape\":\"%s\",\"wall_ms\":%.3f,\"student_ms\":[",
				     shape_format(s, shape_text, sizeof(shape_text)), wall);
	at = append_samples(json, len, at, student, runs);
	at += (size_t)snprintf(json + at, len - at, "],\"copy_ms\":[");
	at = append_samples(json, len, at, copy, runs);
	at += (size_t)snprintf(json + at, len - at, "]}");
	channel_send(CHANNEL_FD, MSG_TIMING, json, at);

	free(json);
	free(student);
	free(copy);
	cudaEventDestroy(a);
	cudaEventDestroy(b);
	cudaFree(d_in);
	cudaFree(d_out);
	cudaFree(flush);
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
	fprintf(stderr, "usage: harness device | correct LAB SHAPE SEED | bench LAB RUNS SHAPE... | "
			"analysis LAB SHAPE SEED\n");
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
	} else if (strcmp(cmd, "correct") == 0 && argc == 5) {
		const struct lab *lab = need_lab(argv[2]);
		struct shape s = need_shape(lab, argv[3]);
#ifdef KIT_EMU
		cuemu_set_tracing(0);
#endif
		run_correct(lab, &s, strtoull(argv[4], NULL, 10));
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
#ifdef KIT_EMU
	} else if (strcmp(cmd, "analysis") == 0 && argc == 5) {
		const struct lab *lab = need_lab(argv[2]);
		struct shape s = need_shape(lab, argv[3]);
		cuemu_set_tracing(1);
		cuemu_metrics_reset();
		run_correct(lab, &s, strtoull(argv[4], NULL, 10));
		char *metrics = cuemu_metrics_json();
		if (!metrics)
			fail("analysis", "the emulator produced no metrics");
		channel_send(CHANNEL_FD, MSG_METRICS, metrics, strlen(metrics));
		free(metrics);
#endif
	} else {
		usage();
	}
	channel_send(CHANNEL_FD, MSG_END, NULL, 0);
	return 0;
}
