/*
 * The machine's lock of a GPU, as a child that uses the GPU holds it (kit
 * code, never the student's). The grader (a batch's worker, or a grade
 * alone) hands the child the lock file and the
 * turn file on GPU_LOCK_FD and GPU_TURN_FD, holding neither
 * (grader/batch/batch_gpu.c has the protocol). The child holds the GPU
 * shared from before it makes its CUDA context to its end -- the driver
 * work of a context's making and ending, of allocations and frees, slows
 * another process's timed call that allocates -- and alone only around
 * each size's timed launches:
 *
 *   gpu_lock_shared   (from nothing) turn EX, lock SH, turn UN
 *   gpu_lock_alone    lock UN, turn EX, lock EX
 *   gpu_lock_shared   (from alone)   lock SH, turn UN
 *   gpu_lock_release  lock UN, unless pinned (below)
 *
 * The shared hold is given up before the turn is asked for: a child
 * waiting for the turn while it held the lock shared would deadlock with
 * the one holding the turn, which waits for that shared hold to end. A
 * flock conversion is an unlock and a lock, so no two holders ever wait
 * on each other. Whoever waits for the lock holds the turn, so shared
 * holders that come after a waiting timed run queue behind it.
 *
 * Pinned: student code may run where the kit does not see it -- a static
 * constructor before main, or a thread it started that is still running
 * when the kit lets go. Either could use the GPU while another student is
 * timed. So a process that has more than its one thread when it inherits
 * the lock takes it shared at once, and one whose threads outnumber those
 * it had once its CUDA context was made (gpu_lock_mark_threads) keeps it
 * to its end; the grader releases it then (the same open files). A
 * destructor cannot run after the release: the harness ends with _exit.
 *
 * Without the two descriptors (the emulator, a child started outside a
 * grade) every call does nothing.
 */
#ifndef KIT_GPU_LOCK_H
#define KIT_GPU_LOCK_H

/* Above the channel (3) and the sandbox's own (4, 5: grader/sys/isolation.h). */
#define GPU_LOCK_FD 6
#define GPU_TURN_FD 7

struct gpu_lock {
	int lock_fd, turn_fd;	/* -1: no lock handed (every call does nothing) */
	int alone, shared;	/* held exclusive / shared now */
	int pinned;		/* held to the process's end (above) */
	int threads;		/* the process's threads once its context was made */
	double got_ms;		/* when the current hold began, CLOCK_MONOTONIC */
	double wait_alone_ms, held_alone_ms;	/* summed over the process */
	/* Of wait_alone_ms: the turn held, waiting for the shared holds that
	 * were running to end. The GPU's turn is no one else's then, so a
	 * batch counts it with held_alone_ms as the GPU's busy time. */
	double drain_ms;
	double wait_shared_ms, held_shared_ms;
};

/* The process's threads now (the entries of /proc/self/task); -1 when it
 * cannot tell. */
int gpu_lock_count_threads(void);

/* The lock handed on GPU_LOCK_FD and GPU_TURN_FD; both -1 where they are
 * not two open files. Call it first thing in main: where the process
 * already has a thread besides main's, it is pinned and takes the lock
 * shared now. */
void gpu_lock_inherit(struct gpu_lock *l);

/* Once the CUDA context is made: the threads the process may keep. */
void gpu_lock_mark_threads(struct gpu_lock *l);

/* From nothing or alone to shared; the turn given back. */
void gpu_lock_shared(struct gpu_lock *l);

/* From shared (or nothing) to the GPU alone. */
void gpu_lock_alone(struct gpu_lock *l);

/* Whether a shared hold should be given back now, between two sizes:
 * held shared, not pinned as far as is known (gpu_lock_release checks the
 * threads again, and keeps a pinned hold), and the turn someone else's --
 * a timed run waiting for the shared holds to end, or a taker queued
 * behind one. A correctness run that keeps its hold through all its sizes
 * makes a timed run wait for its last; one that gives way between sizes,
 * only for the size it is in. Asking costs a flock that does not wait. */
int gpu_lock_asked_for(struct gpu_lock *l);

/* Pinned from now on where the process's threads are not those it
 * marked. */
void gpu_lock_check_threads(struct gpu_lock *l);

/* From shared or alone to nothing, unless pinned (checked first): then it
 * stays held. */
void gpu_lock_release(struct gpu_lock *l);

/* How long the process has held the GPU shared, the hold now included. */
double gpu_lock_held_shared_ms(const struct gpu_lock *l);

#endif
