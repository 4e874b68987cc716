/*
 * The CPU emulator's own C API, for the harness and for tests.
 *
 * Modes (cuemu_set_tracing):
 *   0  fastest: blocks run one at a time, each thread to its next barrier;
 *      every memory access is still bounds-checked; no metrics.
 *   1  the first few blocks of each launch (cuemu_set_traced_blocks, 4 by
 *      default) run in warp lockstep and feed the metrics; the rest as mode 0.
 * The environment variable CUEMU_TRACE sets the mode at start (default 0),
 * CUEMU_TRACE_BLOCKS the number of traced blocks ("all" or -1: every block).
 */
#pragma once

#ifdef __cplusplus
extern "C" {
#endif

/* Forgets the metrics of every launch so far. */
void cuemu_metrics_reset(void);

/* The metrics of every launch since the last reset, as JSON text following
 * docs/emu-metrics.md. malloc'd: the caller frees it. */
char *cuemu_metrics_json(void);

void cuemu_set_tracing(int mode);
int cuemu_tracing(void);

/* Blocks traced per launch in mode 1; n < 0 traces every block. */
void cuemu_set_traced_blocks(int n);

/* The seed of the blocks traced in mode 1 (CUEMU_SAMPLE_SEED, 1): with k
 * traced blocks, block 0 and one seeded block of each of the other k - 1
 * equal parts of the grid. */
void cuemu_set_sample_seed(unsigned long long seed);

/* Prediction runs (the grader's performance model): blocks that are not
 * traced do not run at all, so a launch costs its traced blocks only and
 * computes no result. */
void cuemu_set_skip_untraced(int on);

/* The SM count that cudaGetDeviceProperties and cudaDevAttrMultiProcessorCount
 * report (1 by default): a prediction run reports the predicted GPU's, so
 * that code sizing its grid by the SM count launches what it would there. */
void cuemu_set_device_sms(int sms);

/* CPU seconds a launch may take (CUEMU_KERNEL_TIMEOUT, 10). */
void cuemu_set_kernel_timeout(double seconds);

/* One line describing the last device fault (which kernel, block, thread,
 * address and FILE:LINE), or NULL if there was none since the start or the
 * last cudaDeviceReset(). */
const char *cuemu_last_fault(void);

/* Whether that fault accessed memory just outside a buffer -- past the end
 * or before the start of a cudaMalloc buffer or a __shared__ array, or
 * inside a freed buffer -- where a GPU seldom faults but reads or
 * overwrites whatever lies there; if so, the access's FILE and LINE. 0 for
 * any other fault, none, or a line the program has no debug line for. */
int cuemu_last_fault_bounds(const char **file, unsigned *line);

/* The exit status of a fault the program cannot return from (a fiber stack
 * overflow, a kernel that never ends, a device pointer used by the host). */
#define CUEMU_FATAL_EXIT 86

/* Called once, just before such an end, so that a program can say why
 * without parsing stderr. kind: "kernel_timeout" (a kernel ran past
 * cuemu_set_kernel_timeout), "stack_overflow", "kernel_crash" (a crash,
 * division by zero or failed assert in a kernel), or "fatal" (anything
 * else); kernel: the running kernel's name, or NULL on the host; where:
 * "FILE:LINE" the thread was at, or NULL; message: the line printed after
 * "cuemu: ". It may run in a signal handler on a small stack: it should only
 * format and write. NULL removes it. */
typedef void (*cuemu_stop_hook)(const char *kind, const char *kernel, const char *where,
				const char *message);
void cuemu_set_stop_hook(cuemu_stop_hook hook);

#ifdef __cplusplus
}
#endif
