/*
 * Runs an untrusted program in a child process: its own process group, a
 * wall-clock deadline, CPU and file-size limits, stdout and stderr merged
 * and capped, and (optionally) the report channel on fd 3. Whatever the
 * child does -- crash, hang, exit early, print a gigabyte, fork -- the
 * caller gets a child_result back and the whole process group is gone.
 */
#ifndef GRADER_SANDBOX_H
#define GRADER_SANDBOX_H

#include <stddef.h>

struct isolation_policy;	/* isolation.h */
struct channel_watch;		/* channel_watch.h */

/* How often a GPU child is looked for among the lock's waiters. */
#define SANDBOX_GPU_CHECK_S 0.25
/* A child blocked this long on the GPU's lock is said on stderr, with who
 * holds it; this long, it is stopped and nothing is graded. */
#define SANDBOX_GPU_NOTE_S 30.0
#define SANDBOX_GPU_WAIT_S 900.0

struct sandbox_limits {
	double wall_s;		/* killed after this many seconds */
	double cpu_s;		/* RLIMIT_CPU; 0 for none */
	size_t output_cap;	/* stdout+stderr bytes kept; the rest is read and dropped */
	size_t file_cap;	/* RLIMIT_FSIZE: the largest file (and channel) it may write; 0: none */
	size_t memory_cap;	/* RLIMIT_AS: the most memory it may map; 0: none */
	/* A memory cgroup's cap on what its whole tree uses (memory_cgroup.h),
	 * where the grader can make one, else RLIMIT_DATA of each process; 0:
	 * none. Unlike memory_cap, a CUDA program can run under either. */
	size_t resident_cap;
	/* With isolation under bubblewrap: > 0, the child writes only to a
	 * private /tmp of this many bytes, where it starts (writable_dir is
	 * read-only to it); 0, it writes its part of writable_dir. */
	size_t disk_cap;
	int with_channel;	/* give the child a fresh memfd as CHANNEL_FD */
	size_t channel_reserve;	/* bytes of the channel's memory made ready by the grader
				 * while the child starts, for a report of a size known
				 * before it (a correctness run's outputs); 0: none */
	const char *cwd;	/* the child's working directory, or NULL */
	const char *writable_dir;	/* with isolation: the only folder it may write */
	/* How the child is isolated (isolation.h); NULL: it runs as the
	 * grader's user, in the grader's environment. */
	const struct isolation_policy *isolation;
	const char *gpu;	/* the child's CUDA_VISIBLE_DEVICES; NULL: the grader's own */
	/* The emulator's launches on one core in the child (CUEMU_WORKERS=1):
	 * its time on the clock is then what the emulator's watchdog counts. */
	int emulator_serial;
	const void *input;	/* what the child reads on stdin; NULL: /dev/null */
	size_t input_len;
	/* With with_channel: the child's stages read from its channel as it
	 * runs, each with its own deadline within wall_s (channel_watch.h);
	 * filled in as it runs. NULL: wall_s alone. */
	struct channel_watch *watch;
	/* With with_gpu_lock: the machine's GPU lock and turn files, handed on
	 * as GPU_LOCK_FD and GPU_TURN_FD (common/gpu_lock.h) for the child to
	 * take; its time blocked on them counts against no deadline. */
	int with_gpu_lock;
	int gpu_lock_fds[2];
	double gpu_wait_limit_s;	/* 0: SANDBOX_GPU_WAIT_S (tests ask for less) */
};

struct child_result {
	int exited, exit_status;	/* normal exit and its status */
	int signaled, signal;		/* killed by a signal (not ours) */
	int timed_out;			/* we killed it at the deadline */
	/* With with_gpu_lock: the seconds it was blocked on the GPU's lock,
	 * which no deadline counted; and, where it was blocked so long that
	 * the sandbox gave up (sandbox_run returned -1), how long that was. */
	double gpu_wait_s, gpu_held_s;
	size_t out_of_memory;		/* the resident_cap the kernel stopped it at, or 0 */
	double wall_s;
	double ended_at_s;		/* when it was reaped, on sys/clock.h's now_s */
	char *output;			/* stdout and stderr, NUL-terminated */
	size_t output_len;
	size_t output_dropped;		/* bytes read past output_cap */
	unsigned char *channel;		/* the channel's bytes (mmap'd), or NULL */
	size_t channel_len;
	int isolated;			/* ran under bubblewrap */
};

/* Returns 0 when the child ran (whatever its fate), -1 when it could not be
 * started at all (err says why). */
int sandbox_run(char *const argv[], const struct sandbox_limits *lim, struct child_result *res,
		char *err, size_t errlen);

void child_result_free(struct child_result *res);

/* "was killed by signal 11 (Segmentation fault)", "ran past its 20 s limit",
 * "exited with status 0". */
const char *child_fate(const struct child_result *res, char *buf, size_t len);

/* The last `lines` lines of the child's output, for a report. */
const char *child_output_tail(const struct child_result *res, int lines);

#endif
