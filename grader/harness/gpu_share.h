/* The harness's hold of the machine's lock of its GPU (gpu_share.c). */
#ifndef GRADER_HARNESS_GPU_SHARE_H
#define GRADER_HARNESS_GPU_SHARE_H

#include <stddef.h>

#include "../../common/gpu_lock.h"

/* First thing in a verb that uses the GPU, before any CUDA call of its
 * own: the lock inherited, the GPU taken shared, then the context made. */
void gpu_share_begin(void);

/* Between two sizes of a correctness run, the last one's work on the GPU
 * finished and reported: where a timed run waits for the GPU alone
 * (gpu_lock_asked_for), gives the GPU back and takes it shared again once
 * the timed run is done. A batch's timed run then waits for the size each
 * sharer is in, not for the sharers' last sizes; the wait comes after the
 * last size's MSG_DONE, so it is no size's time (sys/channel_watch.h). */
void gpu_share_between_sizes(void);

/* After the verb's last report: the GPU held shared to the process's end
 * (its frees, its context's teardown), which the grader's release after
 * reaping it closes. */
void gpu_share_end(void);

/* For a report's JSON object, at buf + at (len bytes in all): how long
 * this process has waited for the GPU shared and held it so far, whether
 * it keeps it to its end, and, where it made its context for a batch,
 * when it began (context_at_ms, CLOCK_MONOTONIC) and how long it took
 * (context_ms): information for the batch's account and pace line; the
 * grader trusts none of it for a grade. Returns the new end, or at where
 * it did not fit. */
size_t gpu_share_json(char *buf, size_t len, size_t at);

/* The lock, for bench.c's holds alone. */
struct gpu_lock *gpu_share_lock(void);

#endif
