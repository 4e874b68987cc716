/*
 * What only the emulator's build of the harness has (harness.h): the
 * performance model's trace (harness predict), the emulated correctness
 * child (harness sizes), and the stand-ins for the kit's two GPU kernels,
 * the fill and the hash of device memory.
 */
#include <cuda_runtime_api.h>
#include <cuemu.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

#include "../../common/bench_plan.h"
#include "../../common/channel.h"
#include "../../common/harness_report.h"
#include "../../common/host_buffer.h"
#include "../../common/rng.h"
#include "../labs/lab.h"
#include "device_fill.h"
#include "device_hash.h"
#include "harness.h"

/*
 * The performance model's trace is a correctness run: the same verb's call
 * (run_correct: inputs filled from the seed, the output poisoned, guarded and
 * sent back whole for the grader to judge), at a size and seed of the
 * emulator's correctness list, with the device reporting the same SM count as
 * in every other emulated run. Only a sample of each launch's blocks runs
 * traced (in warp lockstep), chosen by the seed and the kit's secret as the
 * analysis run's are; every other block runs too, untraced, so the result is
 * computed and checked. Nothing in it marks it as a run that only measures:
 * a file that launches something else at one size gains nothing, since the
 * grader scales these traces to the graded size rather than running it.
 */
static void run_traced(const struct lab *lab, const struct shape *s, uint64_t seed, double kernel_timeout_s,
		       int catch_exit, int first_in_process)
{
	cuemu_set_sample_seed(seed ^ rng_secret());
	cuemu_set_tracing(1);
	cuemu_set_skip_untraced(0);
	cuemu_set_kernel_timeout(kernel_timeout_s);
	cuemu_metrics_reset();
	if (run_correct(lab, s, seed, catch_exit, first_in_process))
		return;	/* the size failed: no trace of it */
	char *metrics = cuemu_metrics_json();
	if (!metrics)
		kit_fail("predict", "the emulator produced no metrics");
	channel_send(CHANNEL_FD, MSG_METRICS, metrics, strlen(metrics));
	free(metrics);
}

void run_predict(const struct lab *lab, const struct shape *s, uint64_t seed)
{
	run_traced(lab, s, seed, 5, 0, 1);
}

/*
 * A size's whole run watched in CPU time. The emulator's watchdog stops a
 * kernel at the size's limit of CPU time and names its line; a loop on the
 * host, outside any kernel, it does not see, and the grader's watch on the
 * clock allows a busy machine four times the limit and more. So the run
 * (the kit's fill and checks, the student's host code and kernels) gets
 * one and a half times the limit and a second, of this process's CPU time
 * (ITIMER_PROF: user and system, every thread), and past it ends with
 * MSG_STOPPED "call_timeout". The kernel's own watchdog, at the limit,
 * comes first for a kernel that hangs.
 */
static double watched_limit_s;

static void on_call_timeout(int sig)
{
	(void)sig;
	send_json(MSG_STOPPED, "{\"kind\":\"call_timeout\",\"kernel\":\"\",\"where\":\"\",\"message\":"
		  "\"it has used %.1f s of CPU time, one and a half times this size's limit and a second, and "
		  "is still running outside any kernel: a loop on the host that never ends?\"}",
		  1.5 * watched_limit_s + 1);
	_exit(CUEMU_FATAL_EXIT);
}

/* The handler is installed again for each size: the student's code of an
 * earlier size may have replaced or ignored it (the grader's clock, at a
 * few times the limit, stops such a run all the same). */
static void watch_call(double limit_s)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_call_timeout;
	sa.sa_flags = SA_ONSTACK;	/* the emulator's stack for signals: a fiber's may be spent */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGPROF, &sa, NULL);
	watched_limit_s = limit_s;
	double budget = 1.5 * limit_s + 1;
	struct itimerval it = { { 0, 0 }, { (time_t)budget, (suseconds_t)((budget - (double)(time_t)budget) * 1e6) } };
	setitimer(ITIMER_PROF, &it, NULL);
}

static void unwatch_call(void)
{
	struct itimerval off = { { 0, 0 }, { 0, 0 } };
	setitimer(ITIMER_PROF, &off, NULL);
}

/*
 * harness sizes LAB (SHAPE SEED LIMIT traced|untraced)...: an emulated
 * correctness step's child, every size in one process as on a GPU. Each size
 * has its own kernel time limit (LIMIT seconds of CPU time, the emulator's
 * watchdog, which names the line a hung kernel spun at), as a size alone
 * had; and the sizes the prediction traces run as the predict verb's, so that one
 * run is both their correctness verdict and their trace.
 */
void verb_sizes(int argc, char **argv)
{
	const struct lab *lab = lab_find(argv[2]);
	if (!lab || (argc - 3) % 4 != 0)
		kit_fail("arguments", "harness sizes LAB (SHAPE SEED LIMIT traced|untraced)...");
	for (int i = 3; i < argc; i += 4) {
		struct shape s;
		char err[256];
		double limit_s = atof(argv[i + 2]);
		int traced = strcmp(argv[i + 3], "traced") == 0;
		if (shape_parse(argv[i], &s, err, sizeof(err)) < 0 || s.rank != lab->rank || !(limit_s > 0) ||
		    (!traced && strcmp(argv[i + 3], "untraced") != 0))
			kit_fail("arguments", "bad size: harness sizes LAB (SHAPE SEED LIMIT traced|untraced)...");
		uint64_t seed = strtoull(argv[i + 1], NULL, 10);
		watch_call(limit_s);
		if (traced) {
			run_traced(lab, &s, seed, limit_s, 1, i == 3);
		} else {
			cuemu_set_tracing(0);
			cuemu_set_kernel_timeout(limit_s);
			run_correct(lab, &s, seed, 1, i == 3);
		}
		unwatch_call();
	}
}

/* device_hash.h: the emulator's device memory is host memory, but closed
 * to the host between its calls (emu/runtime/heap.c: a host read of it is
 * reported as a fault), so it is copied out, then hashed by the C function
 * itself. The emulator's sizes are small. */
cudaError_t kit_device_hash(const uint32_t *d_words, size_t n, uint64_t *hash)
{
	*hash = 0;
	if (n == 0)
		return cudaSuccess;
	uint32_t *h = host_buffer_alloc(n * 4);
	if (!h)
		return cudaErrorMemoryAllocation;
	cudaError_t e = cudaMemcpy(h, d_words, n * 4, cudaMemcpyDeviceToHost);
	if (e == cudaSuccess)
		*hash = bench_output_hash(h, n);
	host_buffer_free(h, n * 4);
	return e;
}

/* device_fill.h: the host cannot write the emulator's device memory
 * either, so the C function's words are copied in. */
cudaError_t kit_device_fill(uint32_t *d_dst, size_t first, size_t count, enum rng_kind kind,
			    uint64_t seed)
{
	if (count == 0)
		return cudaSuccess;
	uint32_t *h = host_buffer_alloc(count * 4);
	if (!h)
		return cudaErrorMemoryAllocation;
	rng_fill_words(h, first, count, kind, seed);
	cudaError_t e = cudaMemcpy(d_dst, h, count * 4, cudaMemcpyHostToDevice);
	host_buffer_free(h, count * 4);
	return e;
}
