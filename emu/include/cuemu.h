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
#ifndef CUEMU_H
#define CUEMU_H

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

/* One line describing the last device fault (which kernel, block, thread,
 * address and FILE:LINE), or NULL if there was none since the start or the
 * last cudaDeviceReset(). */
const char *cuemu_last_fault(void);

/* The exit status of a fault the program cannot return from (a fiber stack
 * overflow, a kernel that never ends, a device pointer used by the host). */
#define CUEMU_FATAL_EXIT 86

#ifdef __cplusplus
}
#endif

#endif
