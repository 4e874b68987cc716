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
 * included; correctness.c then runs one size that passed only so once more
 * after the size before it (first_call_only), since a program calls its
 * entry point more than once. The emulator shares processes the same way (a process there
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

/* A file whose process ended the same way at two sizes in a row, each
 * first in its process (a crash by the same signal, the same CUDA error,
 * the channel written into), most likely ends it at every size: a class's
 * hostile files and kernels that fault everywhere cost a CUDA context a
 * size, and are the longest students of a batch. So the last size runs
 * next, then the middle one of those between, each first in its process.
 * Where both end the same way too, the other sizes are not run; where
 * one does not (a fault only at small sizes, or only at large ones), the
 * rest run as before. */
#define SAME_ENDINGS_IN_A_ROW 2
#define SAME_ENDINGS_PROBES 2
/* Why sizes were not run. */
enum not_run_reason {
	NOT_RUN_NONE,
	NOT_RUN_HUNG,		/* HANGS_BEFORE_GIVING_UP hangs */
	NOT_RUN_SAME_ENDING,	/* SAME_ENDINGS_IN_A_ROW, then the probes */
	NOT_RUN_RUNNER_STUCK,	/* a run settled no size: the rest cannot be judged */
};

/* What one process made of the sizes [first, first + count) it was given. */
struct size_run {
	int started;		/* a process was started (0: the harness could not be) */
	int settled;		/* sizes [first, first + settled) have their verdict */
	int hung;		/* the process was stopped for taking too long */
	int ended_at_first;	/* it ended at its first size, and that was its verdict */
	int uncut;		/* its report of several sizes could not be cut into sizes */
	/* Where ended_at_first: how it ended, as a key that two endings share
	 * when they are the same (correctness.c); 0 for an ending that says
	 * nothing of other sizes (a time limit, memory, a wrong output). */
	unsigned ending;
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
	/* Why the sizes that run settled none were not run; NOT_RUN_NONE
	 * when every size was settled. */
	enum not_run_reason why;
	/* NOT_RUN_SAME_ENDING: the sizes that ended the same way, in the
	 * order they ran. */
	int same_at[SAME_ENDINGS_IN_A_ROW + SAME_ENDINGS_PROBES];
};

/*
 * Runs n sizes through run. hangs: those counted before (g->hangs). A hang
 * counts where it was a size's own verdict (first in its process), and in
 * the opening run wherever it came: there the size runs again alone, and
 * a kernel that hangs there again has hung twice. Once a process hung,
 * the rest run one size a process, so that a kernel that hangs only after
 * another size costs one limit, not one a size; so they do once a report
 * could not be cut into sizes (the student's code wrote into the channel:
 * no size of it is believed). Sizes that end their processes the same way
 * in a row bring the last and a middle size forward (SAME_ENDINGS_IN_A_ROW).
 * The sizes run settles none of are not run, for out->why.
 */
void correctness_plan_run(int n, int hangs, run_sizes_fn run, void *arg, struct correctness_plan *out);

#endif
