/*
 * Which process runs which correctness sizes. On a GPU each process costs
 * a CUDA context (0.3 s alone, seconds when a class's workers make theirs
 * at once), so the sizes share processes: all of them in the opening run,
 * and after a size that ended its process (a crash, a time limit, an exit,
 * a CUDA error, a report not believed), that size again first in a new
 * process, which goes on with the sizes after it. A size's verdict stands
 * where it ran and left its process running (a pass, wrong words, a
 * canary: correctness_judge.h); a size that ended its process stands
 * where it ran first in its process (nothing of another size ran before
 * it, under the same limits: as if alone), the opening run's first size
 * included. The emulator shares processes the same way (a process there
 * costs a sandbox and the emulator's start, 0.1 s a size), each size with
 * its own limits, under the same rule, so that a file comes to the same
 * verdicts and the same hangs counted on both backends.
 *
 * Pure bookkeeping: the runs themselves are a callback (correctness.c's
 * child; tests/test_correctness_plan.c's script).
 */
#ifndef GRADER_CORRECTNESS_PLAN_H
#define GRADER_CORRECTNESS_PLAN_H

/* A kernel that hung twice will hang again: the sizes after the second
 * hang are not run. */
#define HANGS_BEFORE_GIVING_UP 2

/* What one process made of the sizes [first, first + count) it was given. */
struct size_run {
	int started;		/* a process was started (0: the harness could not be) */
	int settled;		/* sizes [first, first + settled) have their verdict */
	int hung;		/* the process was stopped for taking too long */
	int ended_at_first;	/* it ended at its first size, and that was its verdict */
	int uncut;		/* its report of several sizes could not be cut into sizes */
};

/*
 * Runs sizes [first, first + count) in one new process, in order, and
 * writes the verdict of each size that stands: a pass or a failure that
 * left the process running, and first's, whatever it came to (the
 * harness that cannot start is such a verdict too). Stops at the first
 * size that does not stand. It settles at least one size, unless uncut.
 */
typedef struct size_run (*run_sizes_fn)(void *arg, int first, int count);

struct correctness_plan {
	int processes;		/* children started: CUDA contexts on a GPU */
	int hangs;		/* hangs counted toward HANGS_BEFORE_GIVING_UP */
	int not_run_from;	/* sizes [not_run_from, n) were given up on; n when none */
};

/*
 * Runs n sizes through run. hangs: those counted before (g->hangs). A hang
 * counts where it was a size's own verdict (first in its process), and in
 * the opening run wherever it came: there the size runs again alone, and
 * a kernel that hangs there again has hung twice. Once a process hung,
 * the rest run one size a process, so that a kernel that hangs only after
 * another size costs one limit, not one a size; so they do once a report
 * could not be cut into sizes (the student's code wrote into the channel:
 * no size of it is believed).
 */
void correctness_plan_run(int n, int hangs, run_sizes_fn run, void *arg, struct correctness_plan *out);

#endif
