/* Child processes with limits (see sandbox.h). */
#include "sys/sandbox.h"
#include "sys/sandbox_calls.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "channel.h"
#include "gpu_lock.h"
#include "sys/channel_watch.h"
#include "sys/isolation.h"
#include "sys/clock.h"
#include "sys/lock_waiters.h"
#include "sys/memory_cgroup.h"

static void set_limit(int resource, rlim_t value)
{
	struct rlimit rl = { value, value };
	setrlimit(resource, &rl);
}

/* In the child, between fork and exec: only async-signal-safe calls.
 * keep[i] (the sandbox's own descriptors, or -1) goes to
 * ISOLATION_STATUS_FD + i, and with_gpu_lock's two to GPU_LOCK_FD and
 * GPU_TURN_FD; every other descriptor above 2 but the channel is closed. */
_Static_assert(GPU_LOCK_FD == ISOLATION_STATUS_FD + ISOLATION_KEEP_FDS && GPU_TURN_FD == GPU_LOCK_FD + 1,
	       "the GPU lock's descriptors come right after the sandbox's own");
static void child_setup(int in_fd, int out_fd, int channel_fd, const int keep[ISOLATION_KEEP_FDS],
			const struct sandbox_limits *lim, const struct memory_cgroup *cg)
{
	setpgid(0, 0);
	/* Still root here where the grader is: the cgroup is root's to join. */
	if (cg->procs_fd >= 0 && memory_cgroup_join(cg) < 0) {
		dprintf(out_fd, "cannot join the memory cgroup %s\n", cg->dir);
		_exit(127);
	}
	/* Out of the way of the dup2s below, whatever numbers they have now. */
	int moved[ISOLATION_KEEP_FDS];
	for (int i = 0; i < ISOLATION_KEEP_FDS; i++)
		moved[i] = keep[i] >= 0 ? fcntl(keep[i], F_DUPFD, 100) : -1;
	int gpu_lock[2];
	for (int i = 0; i < 2; i++)
		gpu_lock[i] = lim->with_gpu_lock ? fcntl(lim->gpu_lock_fds[i], F_DUPFD, 100) : -1;
	if (in_fd < 0)
		in_fd = open("/dev/null", O_RDONLY);
	if (in_fd >= 0)
		dup2(in_fd, 0);
	dup2(out_fd, 1);
	dup2(out_fd, 2);
	if (channel_fd >= 0)
		dup2(channel_fd, CHANNEL_FD);
	else
		close(CHANNEL_FD);
	for (int i = 0; i < ISOLATION_KEEP_FDS; i++)
		if (moved[i] >= 0)
			dup2(moved[i], ISOLATION_STATUS_FD + i);
		else
			close(ISOLATION_STATUS_FD + i);
	for (int i = 0; i < 2; i++)
		if (gpu_lock[i] >= 0)
			dup2(gpu_lock[i], GPU_LOCK_FD + i);
		else
			close(GPU_LOCK_FD + i);
	/* Nothing of the grader's leaks in: other pipes, files, the salt. */
	for (int fd = GPU_TURN_FD + 1; fd < 1024; fd++)
		close(fd);
	if (lim->cpu_s > 0)
		set_limit(RLIMIT_CPU, (rlim_t)lim->cpu_s + 1);
	if (lim->file_cap > 0)
		set_limit(RLIMIT_FSIZE, (rlim_t)lim->file_cap);
	if (lim->memory_cap > 0)
		set_limit(RLIMIT_AS, (rlim_t)lim->memory_cap);
	/* No cgroup: each process's writable private memory (malloc, the
	 * harness's buffers, pinned host memory) is capped instead. The CUDA
	 * runtime's huge reservations are PROT_NONE and do not count, so a
	 * CUDA program runs under it, as it cannot under RLIMIT_AS. */
	if (cg->procs_fd < 0 && lim->resident_cap > 0)
		set_limit(RLIMIT_DATA, (rlim_t)lim->resident_cap);
	set_limit(RLIMIT_CORE, 0);
	if (lim->cwd && chdir(lim->cwd) < 0)
		_exit(127);
	signal(SIGPIPE, SIG_DFL);
	signal(SIGXFSZ, SIG_DFL);
}

/* Reads what is there into res->output up to the cap; 0 at EOF. */
static int drain(int fd, struct child_result *res, size_t cap)
{
	char buf[65536];
	ssize_t r = read(fd, buf, sizeof(buf));
	if (r < 0)
		return errno == EINTR || errno == EAGAIN ? 1 : 0;
	if (r == 0)
		return 0;
	size_t keep = res->output_len < cap ? cap - res->output_len : 0;
	if (keep > (size_t)r)
		keep = (size_t)r;
	memcpy(res->output + res->output_len, buf, keep);
	res->output_len += keep;
	res->output_dropped += (size_t)r - keep;
	return 1;
}

/*
 * A child blocked on the GPU's lock waits for other students' timed runs,
 * or for a grade someone stopped (Ctrl-Z) while it held the GPU: none of
 * it is the child's own time. So each interval between two checks that
 * both find it blocked moves its clock back (the caller moves its start
 * on), and no deadline counts the wait. A wait of SANDBOX_GPU_NOTE_S is
 * said on stderr, with who holds the GPU; one of SANDBOX_GPU_WAIT_S (or
 * the caller's gpu_wait_limit_s) is given up (res->gpu_held_s): nothing is
 * graded then.
 */
struct gpu_wait {
	double checked_at, blocked_since;	/* blocked_since < 0: not blocked */
	int noted;
};

/* Returns the seconds to move the child's start on by. */
static double gpu_wait_check(const struct sandbox_limits *lim, pid_t pid, struct gpu_wait *w,
			     struct child_result *res, double now)
{
	double moved = 0;
	if (lock_tree_blocked(pid, lim->gpu_lock_fds, 2) != 1) {
		w->blocked_since = -1;
	} else if (w->blocked_since < 0) {
		w->blocked_since = now;
	} else {
		moved = now - w->checked_at;
		res->gpu_wait_s += moved;
	}
	w->checked_at = now;
	double blocked = w->blocked_since < 0 ? 0 : now - w->blocked_since;
	if (blocked >= SANDBOX_GPU_NOTE_S && !w->noted) {
		char holders[512];
		lock_holders_describe(pid, lim->gpu_lock_fds, 2, holders, sizeof(holders));
		fprintf(stderr, "grade: waiting %.0f s so far for the GPU%s%s; the grade goes on once it is let go\n",
			blocked, holders[0] ? ", held by " : "", holders);
		w->noted = 1;
	}
	if (blocked >= (lim->gpu_wait_limit_s > 0 ? lim->gpu_wait_limit_s : SANDBOX_GPU_WAIT_S))
		res->gpu_held_s = blocked;
	return moved;
}

/* Waits for the child, draining its output, until it ends or the deadline. */
static void supervise(pid_t pid, int out_fd, int channel_fd, const struct sandbox_limits *lim,
		      struct child_result *res, double start)
{
	int status = 0, open_pipe = 1;
	struct channel_watch *watch = channel_fd >= 0 ? lim->watch : NULL;
	struct gpu_wait gpu = { .checked_at = start, .blocked_since = -1 };
	for (;;) {
		double now = now_s();
		if (lim->with_gpu_lock && now - gpu.checked_at >= SANDBOX_GPU_CHECK_S) {
			start += gpu_wait_check(lim, pid, &gpu, res, now);
			if (res->gpu_held_s > 0) {
				kill(-pid, SIGKILL);
				waitpid(pid, &status, 0);
				break;
			}
		}
		double left = start + lim->wall_s - now;
		double stage_left = watch ? start + channel_watch_poll(watch, channel_fd, now - start) - now : left;
		if (left <= 0 || stage_left <= 0) {
			kill(-pid, SIGKILL);
			waitpid(pid, &status, 0);
			res->timed_out = 1;
			if (watch && stage_left <= 0 && left > 0) {
				watch->stopped = 1;
				watch->stopped_stage = watch->stages;
				watch->stopped_after_s = watch->stages > 0 ? channel_watch_stage_s(watch, watch->stages)
									   : now - start;
			}
			break;
		}
		if (stage_left < left)
			left = stage_left;
		if (open_pipe) {
			struct pollfd p = { out_fd, POLLIN, 0 };
			int ms = left > 0.05 ? 50 : (int)(left * 1000) + 1;
			if (poll(&p, 1, ms) > 0)
				open_pipe = drain(out_fd, res, lim->output_cap);
		} else {
			struct timespec ts = { 0, 5 * 1000 * 1000 };
			nanosleep(&ts, NULL);
		}
		pid_t w = waitpid(pid, &status, WNOHANG);
		if (w == pid) {
			if (watch)	/* the frames of its last moments */
				channel_watch_poll(watch, channel_fd, now_s() - start);
			break;
		}
	}
	/* Whatever it left behind (a forked child, a daemon) goes with it. */
	kill(-pid, SIGKILL);
	while (open_pipe) {
		struct pollfd p = { out_fd, POLLIN, 0 };
		if (poll(&p, 1, 0) <= 0)
			break;
		open_pipe = drain(out_fd, res, lim->output_cap);
	}
	if (!res->timed_out) {
		if (WIFEXITED(status)) {
			res->exited = 1;
			res->exit_status = WEXITSTATUS(status);
		} else if (WIFSIGNALED(status)) {
			res->signaled = 1;
			res->signal = WTERMSIG(status);
		}
	}
}

/*
 * The channel's pages, allocated (and zeroed) by a thread of the grader
 * while the child starts its process and its CUDA context: the child's
 * gigabyte of output then goes into pages that exist, where allocating
 * them as it wrote cost it 0.3 s on an H100 (docs/results/h100-2026-11-25b).
 * The file's size is kept: only what the child writes is its report.
 * In pieces, so that a child that ends early (a crash on its first size,
 * with a gigabyte of later sizes reserved) is not kept waiting for pages
 * nobody will write.
 */
#define RESERVE_PIECE ((size_t)64 << 20)

struct channel_reserve {
	int fd;
	size_t bytes;
	atomic_int stop;	/* the child has ended */
};

static void *reserve_channel(void *arg)
{
	struct channel_reserve *r = arg;
	for (size_t at = 0; at < r->bytes && !atomic_load(&r->stop); at += RESERVE_PIECE) {
		size_t piece = r->bytes - at < RESERVE_PIECE ? r->bytes - at : RESERVE_PIECE;
		if (fallocate(r->fd, FALLOC_FL_KEEP_SIZE, (off_t)at, (off_t)piece) < 0)
			break;	/* refused: the child allocates */
	}
	return NULL;
}

static void read_channel(int fd, struct child_result *res)
{
	struct stat st;
	if (fstat(fd, &st) < 0 || st.st_size <= 0)
		return;
	void *p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (p == MAP_FAILED)
		return;
	res->channel = p;
	res->channel_len = (size_t)st.st_size;
}

/* A memory file holding the child's stdin, read from its start. */
static int open_input(const struct sandbox_calls *sys, const void *data, size_t len, char *err,
		      size_t errlen)
{
	int fd = sys->memory_file("grade-input", MFD_CLOEXEC);
	if (fd < 0 || sys->write_all(fd, data, len) != (ssize_t)len || lseek(fd, 0, SEEK_SET) != 0) {
		snprintf(err, errlen, "cannot hand the child its input: %s", strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

static int system_memory_file(const char *name, unsigned flags)
{
	return memfd_create(name, flags);
}

const struct sandbox_calls sandbox_system_calls = {
	.alloc = calloc,
	.make_pipe = pipe2,
	.memory_file = system_memory_file,
	.write_all = write,
	.prepare = isolation_prepare,
	.start = fork,
};

int sandbox_run(char *const argv[], const struct sandbox_limits *lim, struct child_result *res,
		char *err, size_t errlen)
{
	return sandbox_run_with(&sandbox_system_calls, argv, lim, res, err, errlen);
}

int sandbox_run_with(const struct sandbox_calls *sys, char *const argv[],
		     const struct sandbox_limits *lim, struct child_result *res, char *err,
		     size_t errlen)
{
	int rc = -1, pipefd[2] = { -1, -1 }, channel_fd = -1, input_fd = -1, prepared = 0;
	struct isolation_plan plan;
	struct memory_cgroup cg = { .procs_fd = -1 };
	memset(res, 0, sizeof(*res));
	res->output = sys->alloc(1, lim->output_cap + 1);
	if (!res->output) {
		snprintf(err, errlen, "out of memory");
		goto err;
	}
	if (sys->make_pipe(pipefd, O_CLOEXEC) < 0) {
		snprintf(err, errlen, "pipe: %s", strerror(errno));
		goto err;
	}
	if (lim->with_channel && (channel_fd = sys->memory_file("grade-channel", MFD_CLOEXEC)) < 0) {
		snprintf(err, errlen, "memfd_create: %s", strerror(errno));
		goto err;
	}
	if (lim->input && (input_fd = open_input(sys, lim->input, lim->input_len, err, errlen)) < 0)
		goto err;
	/* isolation.c decides how it runs: bubblewrap, another user, a clean environment. */
	if (sys->prepare(argv, lim, &plan, err, errlen) < 0)
		goto err;
	prepared = 1;
	res->isolated = plan.bwrap;
	if (lim->resident_cap == 0 || memory_cgroup_make(lim->resident_cap, &cg) < 0)
		cg = (struct memory_cgroup){ .procs_fd = -1 };

	double start = now_s();
	pid_t pid = sys->start();
	if (pid < 0) {
		snprintf(err, errlen, "fork: %s", strerror(errno));
		goto err;
	}
	if (pid == 0) {
		child_setup(input_fd, pipefd[1], channel_fd, plan.keep, lim, &cg);
		isolation_enter(&plan);
		execvpe(plan.argv[0], plan.argv, plan.envp);
		dprintf(2, "cannot run %s: %s\n", plan.argv[0], strerror(errno));
		_exit(127);
	}
	setpgid(pid, pid);	/* also here, so the group exists before any kill */
	close_fd(&pipefd[1]);
	close_fd(&input_fd);
	/* Started after the fork: the child is never a copy of a threaded grader. */
	struct channel_reserve reserve = { channel_fd, lim->channel_reserve, 0 };
	pthread_t reserving;
	int reserved = channel_fd >= 0 && reserve.bytes > 0 &&
		       pthread_create(&reserving, NULL, reserve_channel, &reserve) == 0;
	if (lim->watch)
		channel_watch_reset(lim->watch);
	supervise(pid, pipefd[0], channel_fd, lim, res, start);
	if (reserved) {
		atomic_store(&reserve.stop, 1);
		pthread_join(reserving, NULL);
	}
	res->ended_at_s = now_s();
	res->wall_s = res->ended_at_s - start;
	if (cg.dir[0] && memory_cgroup_oom_kills(&cg) > 0)
		res->out_of_memory = lim->resident_cap;
	if (channel_fd >= 0)
		read_channel(channel_fd, res);
	res->output[res->output_len] = '\0';
	isolation_fix_status(&plan, res);
	if (isolation_check_start(&plan, res, err, errlen) < 0)
		goto err;
	if (res->gpu_held_s > 0) {
		char holders[512];
		lock_holders_describe(0, lim->gpu_lock_fds, 2, holders, sizeof(holders));
		snprintf(err, errlen, "the GPU was held by another process for %.0f s%s%s%s: gave up waiting",
			 res->gpu_held_s, holders[0] ? " (" : "", holders, holders[0] ? ")" : "");
		goto err;
	}
	rc = 0;
err:	/* and the way out of a child that ran */
	close_fd(&pipefd[0]);
	close_fd(&pipefd[1]);
	close_fd(&channel_fd);
	close_fd(&input_fd);
	memory_cgroup_remove(&cg);
	if (prepared)
		isolation_finish(&plan);
	if (rc < 0)
		child_result_free(res);
	return rc;
}

void child_result_free(struct child_result *res)
{
	free(res->output);
	if (res->channel)
		munmap(res->channel, res->channel_len);
	memset(res, 0, sizeof(*res));
}

const char *child_fate(const struct child_result *res, char *buf, size_t len)
{
	if (res->timed_out)
		snprintf(buf, len, "ran past its time limit and was stopped");
	else if (res->out_of_memory)
		snprintf(buf, len, "used more than its %zu MiB of memory and was stopped",
			 res->out_of_memory >> 20);
	else if (res->signaled)
		snprintf(buf, len, "was killed by signal %d (%s)", res->signal, strsignal(res->signal));
	else
		snprintf(buf, len, "exited with status %d", res->exit_status);
	return buf;
}

const char *child_output_tail(const struct child_result *res, int lines)
{
	if (!res->output || res->output_len == 0)
		return "";
	const char *end = res->output + res->output_len;
	const char *p = end;
	if (p > res->output && p[-1] == '\n')
		p--;
	while (p > res->output) {
		if (p[-1] == '\n' && --lines == 0)
			break;
		p--;
	}
	return p;
}
