/*
 * A part of a grade run in a forked grader, beside the rest of the grade.
 *
 * On a GPU, the emulator's steps (its build of the file, the performance
 * model's prediction, the analysis) and lab 4's occupancy calculator need
 * nothing the GPU steps find out, so grade_beside.c runs them this way while
 * nvcc and the GPU steps run: 1.1 to 2.5 s of work a grade no longer waits
 * for on an H100, 3 to 5 s for lab 1's largest analysis size
 * (docs/results/h100-2026-11-25b). In the emulator, on more than one core,
 * the analysis runs this way beside the correctness sizes
 * (docs/results/emu-grade-profile.md).
 *
 * A fork, not a thread: the sandbox kills every process of its run's
 * leased uid after each child (sys/uid_lease.h), so two children of one
 * grader must not overlap. The fork leases a uid of its own.
 *
 * The fork works on a fresh grade of its own; what it added (tests,
 * prediction and analysis figures, the analysis, step seconds) comes back through a pipe, whole or
 * not at all, and is added to the grade when it is joined.
 */
#ifndef GRADER_SIDE_H
#define GRADER_SIDE_H

#include <sys/types.h>

#include "steps/grade.h"

struct side {
	pid_t pid;	/* 0: none running */
	int fd;		/* the read end of its report */
};

/* Forks; the fork runs part(arg, g') on a fresh grade g' of lab, reports
 * it, with the CPU seconds it used, and waits to be joined or stopped.
 * Returns -1 (nothing started) when it cannot. */
int side_start(struct side *s, const struct lab *lab, void (*part)(void *arg, struct grade *g),
	       void *arg);

/* Waits for the part to end and adds what it reported to g: its tests after
 * g's, its prediction and analysis figures into g's, its analysis, an internal error, its step
 * seconds (the first n) into seconds[] and its CPU seconds into *cpu. The fork is reaped here,
 * so its CPU seconds count in the caller's, as a reaped child's. Returns 0; or -1 when the fork
 * died or its report is not whole, and then g and *cpu are unchanged. */
int side_join(struct side *s, struct grade *g, double *seconds, int n, double *cpu);

/* Ends the part now, unreported (its sandboxed children die with it). */
void side_stop(struct side *s);

#endif
