/* What every step of a grade runs with: the lab, its rubric, the built
 * harness, where to work, the seed, how children are isolated and which
 * GPU they see. */
#ifndef GRADER_RUN_CONTEXT_H
#define GRADER_RUN_CONTEXT_H

#include <stdint.h>

#include "labs/lab.h"
#include "steps/grade.h"
#include "steps/rubric.h"

struct isolation_policy;
struct seed_hashes;

/* What a child that was lent the GPU's lock says it waited for and held,
 * in seconds (its reports' shared_wait_ms, shared_ms, alone_wait_ms and
 * alone_ms), whether it kept it to its end (pinned), when it made its
 * CUDA context (context_at_ms, context_ms) and when its end began (its
 * last report's at_ms): a batch's account and pace line, never a grade. */
struct gpu_hold {
	int timed;	/* a timed child (the grader's word, not the child's) */
	int pinned;	/* it kept the GPU to its end (common/gpu_lock.h) */
	double wait_shared_s, held_shared_s, wait_alone_s, held_alone_s;
	double drain_s;	/* of wait_alone_s: its turn held while shared holds ended */
	/* Its context's making, from context_at_s (CLOCK_MONOTONIC seconds,
	 * as sys/clock.h's now_s) for context_s; context_s < 0 where it said
	 * none or nothing believable. */
	double context_at_s, context_s;
	/* Its end, from its last report (end_at_s, the same clock) to its
	 * reaping, for end_s: its frees and its context's teardown, driver
	 * work as much as the making; end_s < 0 where it said nothing
	 * believable. */
	double end_at_s, end_s;
};

/* How a grade shares its GPU with the machine's other grades (a batch's
 * workers, other grades alone); all zero on the emulator. */
struct gpu_share {
	/* Called around each child that runs student code on the GPU
	 * (harness_door.c), begin=1 before and 0 after; a timed child
	 * (timed=1) must have the GPU alone, a checked one may share it. Child
	 * by child, so that the grader's own work between children
	 * (references, comparisons) holds no GPU. */
	void (*phase)(void *arg, int timed, int begin);
	/* NULL, or phase around the whole child: the child takes the GPU
	 * itself, shared from before it makes its CUDA context to its end and
	 * alone around its timed launches only (common/gpu_lock.h). begin=1: fds its lock and
	 * turn files to hand on, neither held; -1 where there are none.
	 * begin=0: whatever the child left held released, and what it says
	 * it waited for and held noted (said; information only). */
	int (*lend)(void *arg, int begin, int fds[2], const struct gpu_hold *said);
	void *arg;	/* phase's and lend's */
};

struct run_context {
	const struct lab *lab;
	const struct rubric *rubric;
	const char *harness;	/* the linked harness to run */
	/* What harness runs on (and a reference timed beside it): an
	 * emulator's child has a memory cap and takes no GPU lock. The
	 * analysis and the prediction always run an emulator build. */
	enum backend backend;
	const char *work_dir;
	uint64_t seed, salt;
	const struct seed_hashes *seed_hashes;	/* NULL, or seed's expected hashes (seed_hashes.h) */
	/* How a child running student code is isolated (isolation.h); NULL:
	 * not at all (--no-isolation). */
	const struct isolation_policy *isolation;
	const char *gpu;	/* the children's CUDA_VISIBLE_DEVICES; NULL: the grader's own */
	int emulator_serial;	/* the children's emulator on one core (sandbox.h) */
	struct gpu_share share;	/* a batch's GPU, on a GPU; all zero otherwise */
	/* On a GPU machine, the GPU's multiprocessors, which the emulator's
	 * analysis run reports as its own: a grid sized by them is the one the
	 * GPU launches, which the analysis is compared with (launch_match.h).
	 * 0: the emulator's own. */
	int device_sms;
};

#endif
