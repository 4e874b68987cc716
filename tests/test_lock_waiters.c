/*
 * A child blocked on the GPU's lock: the sandbox sees it (/proc/locks),
 * counts the wait against no deadline, names a stopped holder, and gives
 * up a wait past its limit as the grader's failure, not the student's.
 */
#include <criterion/criterion.h>

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sys/clock.h"
#include "sys/lock_waiters.h"
#include "sys/sandbox.h"
#include "test_support.h"

/* The lock and turn files of a GPU, in a fresh folder. */
struct lock_files {
	char dir[64], lock[96], turn[96];
	int fds[2];
};

static void make_files(struct lock_files *f)
{
	test_temp_dir(f->dir, sizeof(f->dir), "lock-waiters");
	snprintf(f->lock, sizeof(f->lock), "%s/gpu.lock", f->dir);
	snprintf(f->turn, sizeof(f->turn), "%s/gpu.turn", f->dir);
	f->fds[0] = open(f->lock, O_RDONLY | O_CREAT, 0644);
	f->fds[1] = open(f->turn, O_RDONLY | O_CREAT, 0644);
	cr_assert(f->fds[0] >= 0 && f->fds[1] >= 0);
}

static void remove_files(struct lock_files *f)
{
	close(f->fds[0]);
	close(f->fds[1]);
	unlink(f->lock);
	unlink(f->turn);
	rmdir(f->dir);
}

/* Another process (as another grade is) holding the lock alone for hold_s
 * seconds; stopped at once if asked (Ctrl-Z). */
static pid_t hold_elsewhere(const char *path, double hold_s, int stop)
{
	pid_t pid = fork();
	cr_assert(pid >= 0);
	if (pid == 0) {
		int fd = open(path, O_RDONLY);
		if (fd < 0 || flock(fd, LOCK_EX) < 0)
			_exit(1);
		if (stop)
			raise(SIGSTOP);
		usleep((useconds_t)(hold_s * 1e6));
		_exit(0);
	}
	/* Until it holds it: a try from here fails. */
	int fd = open(path, O_RDONLY);
	for (int i = 0; i < 400 && flock(fd, LOCK_EX | LOCK_NB) == 0; i++) {
		flock(fd, LOCK_UN);
		usleep(5000);
	}
	close(fd);
	return pid;
}

static void end(pid_t pid)
{
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

/* The child takes the lock on the descriptor the sandbox hands it. */
static int run_taker(struct lock_files *f, double wall_s, double give_up_s, struct child_result *res,
		     char *err, size_t len)
{
	char *argv[] = { "/bin/sh", "-c", "flock -x 6 && echo got it", NULL };
	struct sandbox_limits lim = { .wall_s = wall_s, .output_cap = 4096, .with_gpu_lock = 1,
				      .gpu_lock_fds = { f->fds[0], f->fds[1] }, .gpu_wait_limit_s = give_up_s };
	return sandbox_run(argv, &lim, res, err, len);
}

Test(lock_waiters, a_blocked_child_is_seen_and_a_free_one_is_not)
{
	struct lock_files f;
	make_files(&f);
	pid_t holder = hold_elsewhere(f.lock, 30, 0);
	pid_t waiter = fork();
	cr_assert(waiter >= 0);
	if (waiter == 0) {
		int fd = open(f.lock, O_RDONLY);
		flock(fd, LOCK_SH);
		_exit(0);
	}
	int seen = 0;
	for (int i = 0; i < 200 && !seen; i++, usleep(10000))
		seen = lock_tree_blocked(waiter, f.fds, 2) == 1;
	cr_expect(seen, "the waiter never showed as blocked in /proc/locks");
	cr_expect_eq(lock_tree_blocked(holder, f.fds, 2), 0, "the holder is not blocked");
	cr_expect_eq(lock_tree_blocked(getpid(), f.fds + 1, 1), 0, "nobody waits for the turn");
	end(waiter);
	end(holder);
	remove_files(&f);
}

Test(lock_waiters, a_stopped_holder_is_named)
{
	struct lock_files f;
	char buf[512], pid_text[32];
	make_files(&f);
	pid_t holder = hold_elsewhere(f.lock, 30, 1);
	int stopped = 0;
	for (int i = 0; i < 200 && !stopped; i++, usleep(10000))
		stopped = lock_holders_describe(0, f.fds, 2, buf, sizeof(buf));
	snprintf(pid_text, sizeof(pid_text), "pid %d ", (int)holder);
	cr_expect_eq(stopped, 1, "%s", buf);
	cr_expect(strstr(buf, pid_text) && strstr(buf, "stopped"), "%s", buf);
	/* The caller's own tree is never a holder it waits for. */
	lock_holders_describe(holder, f.fds, 2, buf, sizeof(buf));
	cr_expect_str_empty(buf);
	end(holder);
	remove_files(&f);
}

/* A grader stopped (Ctrl-Z) after its child took the lock on the
 * grader's open file and ended: /proc/locks names the child, but the lock
 * is the grader's now. reap: whether the grader reaped the child before it
 * was stopped (gone) or not (a zombie). Returns the grader's pid. */
static pid_t stopped_grader(const char *path, int reap)
{
	int ready[2];
	cr_assert_eq(pipe(ready), 0);
	pid_t grader = fork();
	cr_assert(grader >= 0);
	if (grader == 0) {
		int fd = open(path, O_RDONLY);
		pid_t child = fork();
		if (child == 0)
			_exit(fd >= 0 && flock(fd, LOCK_EX) == 0 ? 0 : 1);
		if (reap)
			waitpid(child, NULL, 0);
		else
			usleep(200000);	/* ended, not reaped */
		if (write(ready[1], "x", 1) != 1)
			_exit(1);
		raise(SIGSTOP);
		_exit(0);
	}
	char c;
	cr_assert_eq(read(ready[0], &c, 1), 1);
	close(ready[0]);
	close(ready[1]);
	return grader;
}

static void expect_the_grader_named(int reap)
{
	struct lock_files f;
	char buf[512], pid_text[32];
	make_files(&f);
	pid_t grader = stopped_grader(f.lock, reap);
	int stopped = 0;
	for (int i = 0; i < 200 && !stopped; i++, usleep(10000))
		stopped = lock_holders_describe(0, f.fds, 2, buf, sizeof(buf));
	snprintf(pid_text, sizeof(pid_text), "pid %d ", (int)grader);
	cr_expect_eq(stopped, 1, "%s", buf);
	cr_expect(strstr(buf, pid_text) && strstr(buf, "stopped"), "the grader %d is not named: %s", (int)grader,
		  buf);
	end(grader);
	remove_files(&f);
}

Test(lock_waiters, a_stopped_grader_whose_child_ended_holding_is_named)
{
	expect_the_grader_named(0);
}

Test(lock_waiters, a_stopped_grader_that_reaped_its_child_is_named)
{
	expect_the_grader_named(1);
}

/* Before: the child, blocked 2.5 s behind another grade, ran past its
 * 1 s limit and was stopped as if its code were slow. */
Test(lock_waiters, a_wait_for_the_gpu_is_no_time_of_the_childs)
{
	struct lock_files f;
	struct child_result res;
	char err[512];
	make_files(&f);
	pid_t holder = hold_elsewhere(f.lock, 2.5, 0);
	cr_assert_eq(run_taker(&f, 1.0, 0, &res, err, sizeof(err)), 0, "%s", err);
	cr_expect(!res.timed_out, "stopped at its limit while it waited for the lock");
	cr_expect(res.exited && res.exit_status == 0 && strstr(res.output, "got it"), "%s", res.output);
	cr_expect_geq(res.gpu_wait_s, 1.2, "blocked %.2f s", res.gpu_wait_s);
	child_result_free(&res);
	end(holder);
	remove_files(&f);
}

Test(lock_waiters, a_child_that_waits_too_long_is_given_up_not_failed)
{
	struct lock_files f;
	struct child_result res;
	char err[512], pid_text[32];
	make_files(&f);
	pid_t holder = hold_elsewhere(f.lock, 30, 1);
	double t0 = now_s();
	cr_expect_eq(run_taker(&f, 60, 1.0, &res, err, sizeof(err)), -1);
	cr_expect_lt(now_s() - t0, 10, "it waited %.1f s", now_s() - t0);
	snprintf(pid_text, sizeof(pid_text), "pid %d ", (int)holder);
	cr_expect(strstr(err, "the GPU was held by another process") && strstr(err, pid_text) &&
		  strstr(err, "stopped)): gave up waiting"), "%s", err);
	end(holder);
	remove_files(&f);
}

/* A child slow on its own, holding nothing, is still stopped at its limit. */
Test(lock_waiters, a_slow_child_is_still_stopped)
{
	struct lock_files f;
	struct child_result res;
	char err[512];
	char *argv[] = { "/bin/sh", "-c", "sleep 5", NULL };
	make_files(&f);
	struct sandbox_limits lim = { .wall_s = 0.5, .output_cap = 4096, .with_gpu_lock = 1,
				      .gpu_lock_fds = { f.fds[0], f.fds[1] } };
	double t0 = now_s();
	cr_assert_eq(sandbox_run(argv, &lim, &res, err, sizeof(err)), 0, "%s", err);
	cr_expect(res.timed_out);
	cr_expect_lt(now_s() - t0, 3);
	cr_expect_eq(res.gpu_wait_s, 0);
	child_result_free(&res);
	remove_files(&f);
}
