/*
 * The harness's timing verbs, bench and sweep (see harness_main.c): the
 * entry point timed with CUDA events after a warm-up, the L2 flushed
 * between runs, beside a device-to-device copy of the same bytes.
 *
 * A timed call must do the whole work every time (common/bench_plan.h):
 * before each call its output is poisoned at a seeded offset and a seeded
 * chunk of its input is overwritten; the output of a few seeded runs is
 * hashed, and the grader compares each hash with its own reference's. A
 * call that recognises a repeat (its arguments, its pointers) and skips or
 * copies work leaves poison or stale words, and the check fails. One
 * secret is drawn per process, so the base input of a size is generated
 * once, however many sweep points time it: on the GPU, in its own memory
 * (device_fill.h), as each run's changed chunk is put back.
 *
 * On a GPU the machine's lock of it is held alone only around each size's
 * warm-up and timed runs (common/gpu_lock.h), and shared around the rest,
 * the buffers' allocation and freeing included: they run no work on the
 * GPU, but they keep the driver busy, and a timed call that allocates its
 * own scratch waits for the driver (on an H200, another process's driver
 * work slowed such a call nine-fold:
 * docs/results/gpu-2026-11-28-machine-lock/). The device is synchronised
 * before the lock changes, so that none of this process's work runs on
 * the GPU while another process holds it alone.
 */
#include <cuda_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../../common/bench_plan.h"
#include "../../common/guard.h"
#include "../../common/rng.h"
#include "../labs/lab.h"
#include "device_fill.h"
#include "device_hash.h"
#include "gpu_share.h"
#include "harness.h"

#ifndef KIT_EMU
#include "launch_log.h"
#endif

/* Writing a buffer larger than the L2 evicts whatever the last run left there,
 * so each timed run starts from DRAM like the first. */
static void flush_l2(void *flush, size_t bytes)
{
	kit_check(cudaMemset(flush, 0, bytes), "cudaMemset (L2 flush)");
}

/* The entry point, or with extra >= 0 lab 4's stream_scale_shared(). */
static float time_call(cudaEvent_t a, cudaEvent_t b, const void *d_in, void *d_out,
		       const struct shape *s, long extra)
{
	float ms = 0;
	kit_check(cudaEventRecord(a, 0), "cudaEventRecord");
	if (extra < 0)
		lab_entry_call(d_in, d_out, s);
	else
		lab_sweep_call(d_in, d_out, s, (size_t)extra);
	kit_check(cudaEventRecord(b, 0), "cudaEventRecord");
	kit_check(cudaEventSynchronize(b), "your entry point (timed run)");
	kit_check(cudaGetLastError(), "your entry point (timed run)");
	kit_check(cudaEventElapsedTime(&ms, a, b), "cudaEventElapsedTime");
	return ms;
}

static float time_copy(cudaEvent_t a, cudaEvent_t b, const void *d_in, void *d_out, size_t bytes)
{
	float ms = 0;
	kit_check(cudaEventRecord(a, 0), "cudaEventRecord");
	kit_check(cudaMemcpy(d_out, d_in, bytes, cudaMemcpyDeviceToDevice), "cudaMemcpy (copy ceiling)");
	kit_check(cudaEventRecord(b, 0), "cudaEventRecord");
	kit_check(cudaEventSynchronize(b), "cudaEventSynchronize");
	kit_check(cudaEventElapsedTime(&ms, a, b), "cudaEventElapsedTime");
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

/* Device buffers for timing: the input (each run's chunk undone by
 * generating its base words again), the output with room to move, an L2
 * flusher. */
struct bench_buffers {
	uint32_t *d_in, *d_out;
	void *flush;
	size_t in_words, out_words, flush_bytes;
	cudaEvent_t a, b;
	struct bench_run_plan last;	/* the chunk written last */
	int filled;			/* d_in holds the base input of input_seed */
	enum rng_kind input;		/* the lab's (lab.h) */
	uint64_t input_seed;
};

static void buffers_open(struct bench_buffers *bb, const struct lab *lab, const struct shape *s,
			 size_t flush_bytes)
{
	memset(bb, 0, sizeof(*bb));
	bb->in_words = lab->in_count(s);
	bb->out_words = lab->out_count(s);
	bb->flush_bytes = flush_bytes;
	bb->input = lab->input;
	kit_check(cudaMalloc((void **)&bb->d_in, bb->in_words * 4), "cudaMalloc (input)");
	kit_check(cudaMalloc((void **)&bb->d_out, (bb->out_words + BENCH_SLACK_WORDS) * 4), "cudaMalloc (output)");
	kit_check(cudaMalloc(&bb->flush, flush_bytes), "cudaMalloc (L2 flush buffer)");
	kit_check(cudaEventCreate(&bb->a), "cudaEventCreate");
	kit_check(cudaEventCreate(&bb->b), "cudaEventCreate");
}

/* The base input's words [first, first + count), generated in d_in. */
static void fill_base(struct bench_buffers *bb, size_t first, size_t count)
{
	kit_check(kit_device_fill(bb->d_in + first, first, count, bb->input, bb->input_seed),
	      "the kit's fill of the input");
}

/* The base input of one timed size, unless d_in holds it already (the
 * last run's chunk is undone by the next prepare_run). */
static void buffers_fill(struct bench_buffers *bb, uint64_t input_seed)
{
	if (bb->filled && bb->input_seed == input_seed)
		return;
	bb->input_seed = input_seed;
	fill_base(bb, 0, bb->in_words);
	bb->last.chunk_words = 0;
	bb->filled = 1;
}

static void buffers_close(struct bench_buffers *bb)
{
	cudaEventDestroy(bb->a);
	cudaEventDestroy(bb->b);
	cudaFree(bb->d_in);
	cudaFree(bb->d_out);
	cudaFree(bb->flush);
}

/* Before a call: the last run's chunk undone, this run's written, the
 * output poisoned where this run puts it. Returns the output pointer. */
static uint32_t *prepare_run(struct bench_buffers *bb, const struct bench_run_plan *p)
{
	const struct bench_run_plan *l = &bb->last;
	if (l->chunk_words)
		fill_base(bb, l->chunk_at, l->chunk_words);
	kit_check(cudaMemset(bb->d_in + p->chunk_at, p->chunk_byte, p->chunk_words * 4), "cudaMemset (input)");
	bb->last = *p;
	uint32_t *out = bb->d_out + p->out_offset;
	kit_check(cudaMemset(out, POISON_BYTE, bb->out_words * 4), "cudaMemset (poison)");
	return out;
}

/* After a checked call: the hash of its whole output, on the device (no
 * gigabyte comes back to the host), by a kernel the launch log does not
 * record: the launches reported are the student's alone. */
static unsigned long long output_hash(struct bench_buffers *bb, const uint32_t *out)
{
	uint64_t h;
	kit_check(kit_device_hash(out, bb->out_words, &h), "the kit's hash of the output");
	return (unsigned long long)h;
}

/*
 * Times the entry point (or, extra >= 0, the sweep's variant) and a
 * device-to-device copy of the same bytes, interleaved run by run, so both
 * see the same clocks and temperature; sends one MSG_TIMING with the
 * samples and the hashes of the checked runs.
 */
static void time_and_send(struct bench_buffers *bb, const struct shape *s, int runs, long extra,
			  uint64_t seed, uint64_t secret, int checks)
{
	uint64_t stream = bench_seed(seed, s, extra, secret);
	struct bench_run_plan p;
	struct gpu_lock *gpu = gpu_share_lock();
	buffers_fill(bb, bench_input_seed(seed, s, secret));
	kit_check(cudaDeviceSynchronize(), "the kit's fill of the input");
	struct gpu_lock before = *gpu;
	gpu_lock_alone(gpu);
	/* Warm-up: module loading, first-touch allocations, clocks ramping up. */
	for (int i = 0; i < 3; i++) {
		bench_plan_run(stream, bb->in_words, runs + i, runs, checks, &p);
		time_call(bb->a, bb->b, bb->d_in, prepare_run(bb, &p), s, extra);
		time_copy(bb->a, bb->b, bb->d_in, bb->d_out, bb->out_words * 4);
	}
	float *student = malloc((size_t)runs * sizeof(float));
	float *copy = malloc((size_t)runs * sizeof(float));
	size_t len = 8192 + (size_t)runs * 2 * 24 + BENCH_CHECKED_RUNS * 64;
	char *json = malloc(len), shape_text[64], hashes[BENCH_CHECKED_RUNS * 64 + 64] = "";
	if (!student || !copy || !json)
		kit_fail("host memory", "out of host memory");
	size_t at_check = 0;
	reset_launches();
	double t0 = harness_now_ms(), hashing = 0;
	for (int i = 0; i < runs; i++) {
		bench_plan_run(stream, bb->in_words, i, runs, checks, &p);
		uint32_t *out = prepare_run(bb, &p);
		flush_l2(bb->flush, bb->flush_bytes);
		student[i] = time_call(bb->a, bb->b, bb->d_in, out, s, extra);
		if (p.checked && at_check + 64 < sizeof(hashes)) {
			double h0 = harness_now_ms();
			at_check += (size_t)snprintf(hashes + at_check, sizeof(hashes) - at_check,
						     "%s{\"run\":%d,\"hash\":\"%016llx\"}", at_check ? "," : "",
						     i, output_hash(bb, out));
			hashing += harness_now_ms() - h0;
		}
		flush_l2(bb->flush, bb->flush_bytes);
		copy[i] = time_copy(bb->a, bb->b, bb->d_in, bb->d_out, bb->out_words * 4);
	}
	double wall = harness_now_ms() - t0 - hashing;
	/* Whatever the entry point left running ends before the GPU is shared. */
	kit_check(cudaDeviceSynchronize(), "your entry point (timed run)");
	gpu_lock_shared(gpu);

	/* alone_ms: how long this size held the GPU alone, and waited for it,
	 * the drain part of that wait apart (information for the batch's
	 * pace; the grader trusts none of it). */
	size_t at = (size_t)snprintf(json, len, "{\"shape\":\"%s\",\"extra_shared\":%ld,\"wall_ms\":%.3f,"
				     "\"alone_wait_ms\":%.3f,\"alone_drain_ms\":%.3f,\"alone_ms\":%.3f,"
				     "\"secret\":\"%016llx\",\"checked\":[%s],\"student_ms\":[",
				     shape_format(s, shape_text, sizeof(shape_text)), extra, wall,
				     gpu->wait_alone_ms - before.wait_alone_ms, gpu->drain_ms - before.drain_ms,
				     gpu->held_alone_ms - before.held_alone_ms, (unsigned long long)secret, hashes);
	at = append_samples(json, len, at, student, runs);
	at += (size_t)snprintf(json + at, len - at, "],\"copy_ms\":[");
	at = append_samples(json, len, at, copy, runs);
	at += (size_t)snprintf(json + at, len - at, "]");
	at = gpu_share_json(json, len - 2, at);
	at = append_launches(json, len - 2, at);
	at += (size_t)snprintf(json + at, len - at, "}");
	channel_send(CHANNEL_FD, MSG_TIMING, json, at);
	free(json);
	free(student);
	free(copy);
}

static size_t l2_flush_bytes(void)
{
	struct cudaDeviceProp p;
	kit_check(cudaGetDeviceProperties(&p, 0), "cudaGetDeviceProperties");
	size_t l2 = p.l2CacheSize > 0 ? (size_t)p.l2CacheSize : (size_t)64 << 20;
	return 4 * l2;
}

/* The process holds the GPU shared from gpu_share_begin on, so every
 * allocation and free here is under it (above). */
void bench_sizes(const struct lab *lab, const struct shape *shapes, int n, int runs, uint64_t seed)
{
	size_t flush = l2_flush_bytes();
	uint64_t secret = rng_secret();
	for (int i = 0; i < n; i++) {
		struct bench_buffers bb;
		if (i > 0)
			gpu_share_between_sizes();	/* gives way if asked; ends holding it shared */
		buffers_open(&bb, lab, &shapes[i], flush);
		time_and_send(&bb, &shapes[i], runs, -1, seed, secret, BENCH_CHECKED_RUNS);
		buffers_close(&bb);
	}
}

/*
 * Lab 4: the same kernel with more and more dynamic shared memory per block,
 * so that 1, 2, 3 ... blocks fit on an SM, then with none; one MSG_TIMING
 * each. What occupancy each really ran at, the launch log says.
 */
void bench_sweep(const struct lab *lab, const struct shape *s, int runs, uint64_t seed)
{
	static const int blocks_per_sm[] = { 1, 2, 3, 4, 5, 6, 8, 12, 16 };
	struct cudaDeviceProp p;
	kit_check(cudaGetDeviceProperties(&p, 0), "cudaGetDeviceProperties");
	struct bench_buffers bb;
	uint64_t secret = rng_secret();
	buffers_open(&bb, lab, s, l2_flush_bytes());
	for (size_t i = 0; i < sizeof(blocks_per_sm) / sizeof(blocks_per_sm[0]); i++) {
		/* Just too much for one more block: the smallest extra that fits only
		 * blocks_per_sm[i], so the L1 cache keeps what shared memory does not need. */
		long extra = (long)(p.sharedMemPerMultiprocessor / (size_t)(blocks_per_sm[i] + 1)) -
			     (long)p.reservedSharedMemPerBlock + 1;
		extra = (extra + 127) / 128 * 128;
		if (extra > (long)p.sharedMemPerBlockOptin)
			extra = (long)p.sharedMemPerBlockOptin;
		time_and_send(&bb, s, runs, extra, seed, secret, BENCH_SWEEP_CHECKED_RUNS);
	}
	time_and_send(&bb, s, runs, 0, seed, secret, BENCH_SWEEP_CHECKED_RUNS);
	buffers_close(&bb);
}
