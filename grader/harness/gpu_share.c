/*
 * The harness's hold of the machine's lock of its GPU (common/gpu_lock.h),
 * for the verbs that use the GPU: shared from before it makes its CUDA
 * context -- given back between two sizes while a timed run waits for it
 * -- alone around timed launches (bench.c), and shared again to the
 * process's end, which the grader's release after reaping it ends. An
 * emulator build is handed no lock: every call does nothing.
 *
 * Why the context's making and its end are held: on an H200 another
 * process's making and ending of contexts slowed a timed scan of many
 * launches nine-fold (lab 1's answer key: 2.0% of copy against 18.5%), and
 * in a lab 1 class some students measured half their speed alone
 * (docs/results/gpu-2026-11-28-machine-lock/).
 */
#include "gpu_share.h"

#include <stdio.h>

#include "harness.h"

static struct gpu_lock lock = { .lock_fd = -1, .turn_fd = -1 };
/* When this process began making its CUDA context and how long it took,
 * on CLOCK_MONOTONIC, which every process of the host shares (bubblewrap
 * makes no time namespace); context_ms < 0: not measured (no lock). */
static double context_at_ms, context_ms = -1;

void gpu_share_begin(void)
{
	gpu_lock_inherit(&lock);
	if (lock.lock_fd < 0)
		return;
	gpu_lock_shared(&lock);
	/* Timed for the batch's pace line, which counts the moments some
	 * child of the host's was making one (information only: no grade
	 * believes it). */
	context_at_ms = harness_now_ms();
	kit_check(cudaFree(0), "making the CUDA context");
	context_ms = harness_now_ms() - context_at_ms;
	gpu_lock_mark_threads(&lock);
}

void gpu_share_between_sizes(void)
{
	if (!gpu_lock_asked_for(&lock))
		return;
	gpu_lock_release(&lock);
	gpu_lock_shared(&lock);
}

/* Held to the process's end, its context's teardown included: the
 * grader releases the hold once it has reaped the process. */
void gpu_share_end(void)
{
	if (lock.alone)
		gpu_lock_shared(&lock);
}

struct gpu_lock *gpu_share_lock(void)
{
	return &lock;
}

size_t gpu_share_json(char *buf, size_t len, size_t at)
{
	gpu_lock_check_threads(&lock);
	int n = at < len ? snprintf(buf + at, len - at, ",\"shared_wait_ms\":%.1f,\"shared_ms\":%.1f,\"pinned\":%s",
				    lock.wait_shared_ms, gpu_lock_held_shared_ms(&lock),
				    lock.pinned ? "true" : "false") : 0;
	if (n <= 0 || (size_t)n >= len - at)
		return at;
	at += (size_t)n;
	if (context_ms < 0)
		return at;
	/* at_ms: when this report was made; the last one's ends the child's
	 * own work, and what follows to its end (its frees, its context's
	 * teardown) is the driver's too. */
	n = snprintf(buf + at, len - at, ",\"context_at_ms\":%.1f,\"context_ms\":%.1f,\"at_ms\":%.1f",
		     context_at_ms, context_ms, harness_now_ms());
	return n > 0 && (size_t)n < len - at ? at + (size_t)n : at;
}
