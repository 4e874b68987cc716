/*
 * Data-parallel loops on the machine's cores, for the grader's and the
 * harness's large host-side jobs: generating inputs, CPU references,
 * comparing outputs. A gigabyte-sized size costs seconds on one core.
 *
 * The work is split into contiguous pieces, one per thread, each at least
 * `grain` items. If a thread cannot be started (a process limit in the
 * sandbox), its piece runs on the calling thread: the result never depends
 * on how many threads there were.
 */
#ifndef COMMON_PARALLEL_H
#define COMMON_PARALLEL_H

#include <stddef.h>

typedef void (*parallel_fn)(size_t begin, size_t end, void *arg);

/* Calls fn(begin, end, arg) over pieces that cover [0, n) exactly once and
 * returns when all are done. Returns the number of pieces (>= 1 if n > 0). */
int parallel_for(size_t n, size_t grain, parallel_fn fn, void *arg);

/* How many threads parallel_for uses at most: the CPUs this process may run
 * on, capped at PARALLEL_MAX_THREADS. */
#define PARALLEL_MAX_THREADS 64
int parallel_threads(void);

#endif
