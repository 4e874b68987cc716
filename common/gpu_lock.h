/*
 * A batch's GPU lock, as the timing harness holds it (kit code, never the
 * student's). The grader takes the GPU's lock shared for the harness
 * before it starts it and hands it the lock file and the turn file on
 * GPU_LOCK_FD and GPU_TURN_FD (grader/batch/batch_gpu.c has the protocol).
 * The harness holds the GPU alone only around each size's timed launches:
 *
 *   start (the grader's)   turn EX, lock SH, turn UN
 *   gpu_lock_alone         lock UN, turn EX, lock EX
 *   gpu_lock_shared        lock SH, turn UN
 *
 * The shared hold is given up before the turn is asked for: a harness
 * waiting for the turn while it held the lock shared would deadlock with
 * the one holding the turn, which waits for that shared hold to end. A
 * flock conversion is an unlock and a lock, so no two holders ever wait
 * on each other. Whoever waits for the lock holds the turn, so shared
 * holders that come after a waiting timed run queue behind it.
 *
 * Without the two descriptors (a single grade, the emulator) every call
 * does nothing.
 */
#ifndef KIT_GPU_LOCK_H
#define KIT_GPU_LOCK_H

/* Above the channel (3) and the sandbox's own (4, 5: grader/sys/isolation.h). */
#define GPU_LOCK_FD 6
#define GPU_TURN_FD 7

struct gpu_lock {
	int lock_fd, turn_fd;	/* -1: no lock handed (every call does nothing) */
	int alone;		/* held exclusive now */
	double asked_ms, got_ms;	/* the last gpu_lock_alone's, CLOCK_MONOTONIC */
	double wait_alone_ms, held_alone_ms;	/* summed over the process */
};

/* The lock handed on GPU_LOCK_FD and GPU_TURN_FD, held shared by the
 * grader for this process; both -1 where they are not two open files. */
void gpu_lock_inherit(struct gpu_lock *l);

/* From shared (or nothing) to the GPU alone. */
void gpu_lock_alone(struct gpu_lock *l);

/* From alone back to shared; the turn given back. */
void gpu_lock_shared(struct gpu_lock *l);

#endif
