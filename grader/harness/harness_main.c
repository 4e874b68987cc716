/*
 * The harness: the child process that calls the student's entry point.
 *
 *   harness device
 *   harness correct LAB SHAPE SEED [SHAPE SEED ...] [bench RUNS SEED SHAPE...]
 *                                          (one CUDA context for all, the timing too)
 *   harness bench LAB RUNS SEED SHAPE [SHAPE ...] [sweep RUNS SHAPE]   (bench.c; the
 *                                          sweep: lab 4's bandwidth against occupancy)
 *   harness analysis LAB SHAPE SEED [SMS]  (emulator build only)
 *   harness predict LAB SHAPE SEED         (emulator build only: a correctness run traced for the performance model)
 *   harness occupancy LAB QUERIES          (lab 4's calculator, on the CPU)
 *
 * It reports on CHANNEL_FD (see common/channel.h) and nowhere else. Nothing
 * it reports is taken on trust: the grader regenerates the inputs from the
 * seed, checks every output word against its own reference, and checks
 * timings against its own clock. Student code may leave this process in any
 * state, so the grader runs any size that fails here again in a process of its own.
 *
 * The same file builds against the CUDA runtime and, with -DKIT_EMU,
 * against the emulator's runtime. Its kernels of its own, the input's fill
 * (device_fill.cu) and the input check's hash (device_hash.cu), are kept
 * out of the launch log.
 */
#include <cuda_runtime_api.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../../common/bench_plan.h"
#include "../../common/channel.h"
#include "../../common/guard.h"
#include "../../common/host_buffer.h"
#include "../../common/occupancy.h"
#include "../../common/rng.h"
#include "../../common/shape.h"
#include "../labs/lab.h"
#include "device_fill.h"
#include "device_hash.h"
#include "emulator_verbs.h"
#include "gpu_share.h"
#include "harness.h"
#include "student_exit.h"
#ifndef KIT_EMU
#include "launch_log.h"
#endif

/* ---- reporting --------------------------------------------------------- */

void kit_check(cudaError_t e, const char *where)
{
	if (e != cudaSuccess)
		kit_fail(where, cudaGetErrorString(e));
}

double harness_now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* The emulator is about to end the process on a fault it cannot return
 * from (cuemu.h): the grader learns which, and where (MSG_STOPPED), not
 * only an exit status. */
static void report_stop(const char *kind, const char *kernel, const char *where, const char *message)
{
	char k[160], w[300], m[1200];
	json_escape(kernel ? kernel : "", k, sizeof(k));
	json_escape(where ? where : "", w, sizeof(w));
	json_escape(message, m, sizeof(m));
	send_json(MSG_STOPPED, "{\"kind\":\"%s\",\"kernel\":\"%s\",\"where\":\"%s\",\"message\":\"%s\"}",
		  kind, k, w, m);
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
	kit_check(cudaGetDeviceProperties(&p, 0), "cudaGetDeviceProperties");
	int mem_khz = 0, bus_bits = 0;
	cudaDeviceGetAttribute(&mem_khz, cudaDevAttrMemoryClockRate, 0);
	cudaDeviceGetAttribute(&bus_bits, cudaDevAttrGlobalMemoryBusWidth, 0);
	/* Double data rate: two transfers per clock. */
	double peak_gbps = 2.0 * mem_khz * 1e3 * (bus_bits / 8.0) / 1e9;
	char name[512], uuid[48];
	json_escape(p.name, name, sizeof(name));
	/* As nvidia-smi writes it: the one name of this GPU on this host,
	 * whatever CUDA_VISIBLE_DEVICES numbers it (the GPU lock's). */
	const unsigned char *u = (const unsigned char *)p.uuid.bytes;
	snprintf(uuid, sizeof(uuid), "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
		 u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12], u[13], u[14],
		 u[15]);
	send_json(MSG_DEVICE,
		  "{\"present\":true,\"name\":\"%s\",\"uuid\":\"%s\",\"major\":%d,\"minor\":%d,\"sms\":%d,"
		  "\"l2_bytes\":%d,\"memory_bytes\":%zu,\"peak_gbps\":%.1f}",
		  name, uuid, p.major, p.minor, p.multiProcessorCount, p.l2CacheSize,
		  (size_t)p.totalGlobalMem, peak_gbps);
}

/* ---- correctness ------------------------------------------------------- */

/* The analysis run's metrics, sent before its last frame, and before a
 * kernel's fault ends the run: the launches up to the fault tell the
 * grader which program stopped there (grader/steps/launch_match.h). */
static int analysing;
static void send_metrics(void)
{
#ifdef KIT_EMU
	char *metrics = cuemu_metrics_json();
	if (!metrics)
		kit_fail("analysis", "the emulator produced no metrics");
	channel_send(CHANNEL_FD, MSG_METRICS, metrics, strlen(metrics));
	free(metrics);
#endif
}

static const struct lab *need_lab(const char *id)
{
	const struct lab *lab = lab_find(id);
	if (!lab)
		kit_fail("arguments", "unknown lab");
	return lab;
}

static struct shape need_shape(const struct lab *lab, const char *text)
{
	struct shape s;
	char err[256];
	if (shape_parse(text, &s, err, sizeof(err)) < 0 || s.rank != lab->rank)
		kit_fail("arguments", "bad shape");
	return s;
}

/*
 * One call of the entry point on fresh inputs, generated in device memory
 * (device_fill.h), the output span poisoned and guarded on both sides;
 * ships the whole span back.
 */
int run_correct(const struct lab *lab, const struct shape *s, uint64_t seed, int catch_exit,
		int first_in_process)
{
	int exited = 0;
	size_t n_in = lab->in_count(s), n_out = lab->out_count(s);
	size_t span = GUARD_WORDS + n_out + GUARD_WORDS;
	/* Where the process's time goes, host side (reported in MSG_DONE for
	 * tests/gpu/breakdown.sh; the grader believes none of it). The first
	 * CUDA call of the process makes its context: that is in setup. */
	double t_setup = harness_now_ms();
	uint32_t *d_in, *d_span;
	kit_check(cudaMalloc((void **)&d_in, n_in * 4), "cudaMalloc (input)");
	kit_check(cudaMalloc((void **)&d_span, span * 4), "cudaMalloc (output)");
	output_send_prepare();
	double t_fill = harness_now_ms();
	kit_check(kit_device_fill(d_in, 0, n_in, lab->input, seed), "the kit's fill of the input");
	double fill_ms = harness_now_ms() - t_fill;
	kit_check(cudaMemset(d_span, POISON_BYTE, span * 4), "cudaMemset (poison)");
	kit_check(cudaDeviceSynchronize(), "before the call");

	/* The input is const: a kernel that wrote into it is worth telling.
	 * Its hash before the call and after, on the device: no copy of the
	 * input comes back to be compared. */
	double t_hash = harness_now_ms();
	uint64_t in_before, in_after;
	kit_check(kit_device_hash(d_in, n_in, &in_before), "the kit's hash of the input");
	double hash_before_ms = harness_now_ms() - t_hash;

	char shape_text[64];
	/* A 64-bit seed travels as a string: JSON readers stop at 2^63 or 2^53. */
	send_json(MSG_BEGIN, "{\"shape\":\"%s\",\"seed\":\"%llu\"}",
		  shape_format(s, shape_text, sizeof(shape_text)), (unsigned long long)seed);

#ifndef KIT_EMU
	launch_log_reset();	/* this shape's launches, for the grader's launch_match.h */
#endif
	double t0 = harness_now_ms();
	int exit_status;
	if (student_exit_call(catch_exit, d_in, d_span + GUARD_WORDS, s, &exit_status)) {
		/* The next size runs in this context if the student's work left
		 * it sound: a sticky error ends the process, as an exit() not
		 * caught does. */
		if (cudaDeviceSynchronize() != cudaSuccess)
			student_exit_end();
		cudaGetLastError();	/* a launch's error is not the next size's */
		student_exit_report(exit_status);
		exited = 1;
		goto out;
	}
	cudaError_t sync = cudaDeviceSynchronize();
	cudaError_t last = cudaGetLastError();
	double elapsed = harness_now_ms() - t0;
	cudaError_t e = sync != cudaSuccess ? sync : last;
	if (e != cudaSuccess) {
		char msg[1024] = "", esc[1200], bounds[400] = "", file_esc[300], done[2600];
		const char *fault = emulator_last_fault(), *file;
		unsigned line;
		snprintf(msg, sizeof(msg), "%s", fault ? fault : "");
		json_escape(msg, esc, sizeof(esc));
		if (emulator_last_fault_bounds(&file, &line)) {
			snprintf(msg, sizeof(msg), "%.250s", file);
			json_escape(msg, file_esc, sizeof(file_esc));
			snprintf(bounds, sizeof(bounds), ",\"bounds\":{\"file\":\"%s\",\"line\":%u}", file_esc, line);
		}
		if (analysing)
			send_metrics();
		int len = snprintf(done, sizeof(done), "{\"cuda_error\":\"%s\",\"cuda_error_text\":\"%.300s\","
				   "\"detail\":\"%s\",\"elapsed_ms\":%.3f%s}",
				   cudaGetErrorName(e), cudaGetErrorString(e), esc, elapsed, bounds);
		harness_last_frame(MSG_DONE, done, (uint64_t)len, 0);
	}

	double t_input_check = harness_now_ms();
	kit_check(kit_device_hash(d_in, n_in, &in_after), "the kit's hash of the input");
	int input_changed = in_after != in_before;
	double input_check_ms = hash_before_ms + (harness_now_ms() - t_input_check);

	double copy_ms = 0, write_ms = 0;
	output_send(d_span, n_out, first_in_process, &copy_ms, &write_ms);
	static char done[1 << 15];
	size_t at = (size_t)snprintf(done, sizeof(done), "{\"cuda_error\":null,\"elapsed_ms\":%.3f,"
				     "\"input_changed\":%s,\"host_ms\":{\"setup\":%.1f,\"fill\":%.1f,"
				     "\"from_gpu\":%.1f,\"input_check\":%.1f,\"send\":%.1f}", elapsed,
				     input_changed ? "true" : "false", t0 - t_setup - fill_ms - hash_before_ms,
				     fill_ms, copy_ms, input_check_ms, write_ms);
	at = gpu_share_json(done, sizeof(done), at);
#ifndef KIT_EMU
	size_t base = at;
	at = launch_log_json(done, sizeof(done) - 2, at);
	if (at >= sizeof(done) - 2)
		at = base;	/* no launches at all: the grader then believes no analysis */
	done[at] = '\0';
#endif
	if (at < sizeof(done) - 2)
		channel_send(CHANNEL_FD, MSG_DONE, done, (uint64_t)(at + (size_t)snprintf(done + at, 2, "}")));
out:
	cudaFree(d_in);	/* the next size runs in the same process */
	cudaFree(d_span);
	return exited;
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
		kit_fail("arguments", "this lab has no occupancy calculator");
	FILE *f = fopen(path, "rb");
	if (!f)
		kit_fail("occupancy", "cannot open the grader's questions");
	char magic[8];
	struct occ_device dev;
	int count = 0;
	if (fread(magic, 1, 8, f) != 8 || memcmp(magic, "KITOCC1\n", 8) != 0 ||
	    fread(&dev, sizeof(dev), 1, f) != 1 || fread(&count, sizeof(count), 1, f) != 1 ||
	    count < 1 || count > 100000)
		kit_fail("occupancy", "the grader's questions are malformed");
	struct occ_kernel *k = malloc((size_t)count * sizeof(*k));
	struct occ_result *r = calloc((size_t)count, sizeof(*r));
	if (!k || !r || fread(k, sizeof(*k), (size_t)count, f) != (size_t)count)
		kit_fail("occupancy", "the grader's questions are malformed");
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

/* ---- the verbs, one function each -------------------------------------- */

static void usage(void)
{
	fprintf(stderr, "usage: harness device | correct LAB [kernel_timeout S] (SHAPE SEED)... [bench RUNS SEED SHAPE...] | "
			"bench LAB RUNS SEED SHAPE... "
			"[sweep RUNS SHAPE] | analysis LAB SHAPE SEED [SMS] [after_a_call] | predict LAB SHAPE SEED | "
			"occupancy LAB QUERIES\n");
	exit(2);
}

static void verb_device(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	send_device();
}

/* A timing: argv[at] on is RUNS SEED SHAPE... [sweep RUNS SHAPE]. */
static void bench_from(const struct lab *lab, int argc, char **argv, int at)
{
	int runs = atoi(argv[at]), n = 0;
	uint64_t seed = strtoull(argv[at + 1], NULL, 10);
	struct shape shapes[HARNESS_MAX_BENCH];
	for (at += 2; at < argc && strcmp(argv[at], "sweep") != 0; at++) {
		if (n == HARNESS_MAX_BENCH)
			usage();
		shapes[n++] = need_shape(lab, argv[at]);
	}
	/* Lab 4's sweep in the same process: one CUDA context, one start. */
	int sweep_runs = at + 2 < argc ? atoi(argv[at + 1]) : 0;
	if (runs < 1 || runs > 10000 || n == 0 || (at < argc && (at + 3 != argc || sweep_runs < 1 ||
								    sweep_runs > 10000 || !lab_sweep_call)))
		usage();
	send_device();
	bench_sizes(lab, shapes, n, runs, seed);
	if (at < argc) {
		struct shape s = need_shape(lab, argv[at + 2]);
		bench_sweep(lab, &s, sweep_runs, seed);
	}
}

static void verb_correct(int argc, char **argv)
{
	const struct lab *lab = need_lab(argv[2]);
	/* kernel_timeout S: the size's own limit, from the reference's time
	 * (grader/steps/time_limit.h), for the emulator's watchdog, which
	 * names the kernel and the line; a GPU has none. Without it: untraced,
	 * the kit's kernels take well under a second at the largest emulated
	 * sizes; a hang costs 5 s, twice, before the grade gives up. */
	int first = 3;
	double kernel_timeout = 5;
	if (strcmp(argv[3], "kernel_timeout") == 0) {
		kernel_timeout = atof(argv[4]);
		first = 5;
		if (!(kernel_timeout > 0) || argc < 7)
			usage();
	}
	/* bench RUNS SEED SHAPE...: after the sizes, a GPU's timing in the
	 * same process and CUDA context (grader/steps/correctness.c), as one
	 * more part of the report. */
	int end = first;
	while (end < argc && strcmp(argv[end], "bench") != 0)
		end++;
	if (end == first || (end - first) % 2 != 0 || (end < argc && end + 3 >= argc))
		usage();
	emulator_untraced(kernel_timeout);
	gpu_share_begin();
	for (int i = first; i < end; i += 2) {
		struct shape s = need_shape(lab, argv[i]);
		if (i > first)
			gpu_share_between_sizes();
		run_correct(lab, &s, strtoull(argv[i + 1], NULL, 10), 1, i == first);
	}
	if (end < argc) {
		send_json(MSG_BEGIN, "{\"bench\":true}");
		bench_from(lab, argc, argv, end + 1);
	}
}

static void verb_bench(int argc, char **argv)
{
	const struct lab *lab = need_lab(argv[2]);
	gpu_share_begin();
	bench_from(lab, argc, argv, 3);
}

static void verb_occupancy(int argc, char **argv)
{
	(void)argc;
	need_lab(argv[2]);
	emulator_untraced(0);
	run_occupancy(argv[3]);
}

#ifdef KIT_EMU
/* One call of the entry point at s, untraced, that sends nothing: the
 * call before the analysed one, where the first call launched more than a
 * later one (grader/steps/launch_match.h). Its failure is the run's. */
static void call_before_analysis(const struct lab *lab, const struct shape *s, uint64_t seed)
{
	uint32_t *d_in, *d_out;
	int status;
	kit_check(cudaMalloc((void **)&d_in, lab->in_count(s) * 4), "cudaMalloc (input)");
	kit_check(cudaMalloc((void **)&d_out, lab->out_count(s) * 4), "cudaMalloc (output)");
	kit_check(kit_device_fill(d_in, 0, lab->in_count(s), lab->input, seed), "the kit's fill of the input");
	cuemu_set_tracing(0);
	student_exit_call(0, d_in, d_out, s, &status);
	kit_check(cudaDeviceSynchronize(), "the call before the analysed one");
	kit_check(cudaGetLastError(), "the call before the analysed one");
	cudaFree(d_in);
	cudaFree(d_out);
}

void verb_analysis(int argc, char **argv)
{
	const struct lab *lab = need_lab(argv[2]);
	struct shape s = need_shape(lab, argv[3]);
	uint64_t seed = strtoull(argv[4], NULL, 10);
	int after_a_call = strcmp(argv[argc - 1], "after_a_call") == 0, sms_at = argc - 1 - after_a_call;
	/* On a GPU machine, the GPU's multiprocessors: the file sizes its
	 * grids as it does there (grader/steps/launch_match.h). */
	if ((argc == 7 && !after_a_call) || (sms_at == 5 && (atoi(argv[5]) < 1 || atoi(argv[5]) > 4096)))
		usage();
	if (sms_at == 5)
		cuemu_set_device_sms(atoi(argv[5]));
	if (after_a_call)
		call_before_analysis(lab, &s, seed);
	/* The traced blocks: a sample spread over the grid (emu/runtime/
	 * sample.c), chosen by the run's seed and a secret, so that a file
	 * that reads the seed on its command line cannot know them. */
	cuemu_set_sample_seed(seed ^ rng_secret());
	cuemu_set_tracing(1);
	/* Every block traced: the work of a scan is summed over all of them
	 * (block 0 of an add pass adds nothing: a sample would be biased). */
	cuemu_set_traced_blocks(-1);
	cuemu_metrics_reset();
	analysing = 1;
	run_correct(lab, &s, seed, 0, 1);
	send_metrics();
}

void verb_predict(int argc, char **argv)
{
	(void)argc;
	const struct lab *lab = need_lab(argv[2]);
	struct shape s = need_shape(lab, argv[3]);
	run_predict(lab, &s, strtoull(argv[4], NULL, 10));
}
#endif

/* The command line: argv[1] names the verb (docs/architecture.md). */
static const struct harness_verb verbs[] = {
	{ "device", 2, HARNESS_MAX_ARGC, verb_device },
	{ "correct", 5, HARNESS_MAX_ARGC, verb_correct },
	{ "bench", 6, HARNESS_MAX_ARGC, verb_bench },
	{ "occupancy", 4, 4, verb_occupancy },
	EMULATOR_VERBS
};

/* ---- main ------------------------------------------------------------- */

int main(int argc, char **argv)
{
	/* No channel means we were not started by the grader. */
	if (fcntl(CHANNEL_FD, F_GETFD) < 0) {
		fprintf(stderr, "harness: run me through ./grade, which opens my report channel\n");
		return 2;
	}
	fcntl(CHANNEL_FD, F_SETFD, FD_CLOEXEC);
	emulator_on_stop(report_stop);
	/* Every emulated run's device reports the same SM count, so that a
	 * grid sized by it is the same in each (the analysis may name the
	 * GPU's own, on a GPU machine). */
	emulator_device_sms(HARNESS_EMU_SMS);
	const struct harness_verb *verb = NULL;
	for (size_t i = 0; argc >= 2 && i < sizeof(verbs) / sizeof(verbs[0]); i++)
		if (strcmp(argv[1], verbs[i].name) == 0)
			verb = &verbs[i];
	if (!verb || argc < verb->min_argc || argc > verb->max_argc)
		usage();
	/* The runtime's own way of waiting for the GPU is kept. Waiting asleep
	 * (cudaDeviceScheduleBlockingSync) saved CPU, but on the GPU machine
	 * a class on two GPUs then had children stopped at the time limit of
	 * sizes that finish in milliseconds, and one GPU graded slower
	 * (docs/results/gpu-2026-11-27-shared-seed/, call 29). */
	verb->run(argc, argv);
	gpu_share_end();
	harness_last_frame(MSG_END, NULL, 0, 0);
}
