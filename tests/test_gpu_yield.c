/*
 * A correctness run gives the GPU up between its sizes (gpu_lock_yield,
 * common/gpu_lock.h). Two processes with their own open lock files, as two
 * workers' children are: one holds the GPU shared through two "sizes", the
 * other asks for it alone during the first. The timed one must have it at
 * the yield, not at the holder's end, and the holder must go on only once
 * the timed hold is over. A pinned holder (a thread of its own running)
 * holds on through its yield, and its yield does not wait.
 */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "gpu_lock.h"
#include "sys/kit_paths.h"

#define SIZE_MS 300	/* each of the holder's two sizes */
#define ALONE_MS 100	/* the timed hold */
#define ASK_MS 100	/* when the timed process asks, into the first size */

static char dir[64];

static void setup(void)
{
	snprintf(dir, sizeof(dir), "/tmp/test-gpu-yield-XXXXXX");
	cr_assert_not_null(mkdtemp(dir));
}

static void teardown(void)
{
	remove_tree(dir);
}

TestSuite(gpu_yield, .init = setup, .fini = teardown, .timeout = 30);

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static void nap(int ms)
{
	struct timespec t = { ms / 1000, (ms % 1000) * 1000000L };
	nanosleep(&t, NULL);
}

static void *sleeper(void *arg)
{
	(void)arg;
	nap(5000);
	return NULL;
}

/* This process's own open files of the lock, as a child inherits them. */
static void open_lock(struct gpu_lock *l)
{
	char path[128];
	*l = (struct gpu_lock){ .lock_fd = -1, .turn_fd = -1 };
	snprintf(path, sizeof(path), "%s/gpu.lock", dir);
	l->lock_fd = open(path, O_RDWR | O_CREAT, 0600);
	snprintf(path, sizeof(path), "%s/gpu.turn", dir);
	l->turn_fd = open(path, O_RDWR | O_CREAT, 0600);
	if (l->lock_fd < 0 || l->turn_fd < 0)
		_exit(3);
	gpu_lock_mark_threads(l);
}

/* The times a process saw, sent to the test through a pipe. */
struct seen {
	double got, ended;		/* the timed process: its hold alone */
	double yielding, yielded, released;	/* the holder's */
};

static void send_seen(int fd, const struct seen *s)
{
	_exit(write(fd, s, sizeof(*s)) == (ssize_t)sizeof(*s) ? 0 : 4);
}

static pid_t holder(int fd, double start, int pinned)
{
	pid_t pid = fork();
	if (pid == 0) {
		struct gpu_lock l;
		struct seen s = { 0 };
		open_lock(&l);
		gpu_lock_shared(&l);
		nap(SIZE_MS - (int)(now_ms() - start));
		pthread_t t;
		if (pinned && pthread_create(&t, NULL, sleeper, NULL) != 0)
			_exit(5);
		s.yielding = now_ms();
		gpu_lock_yield(&l);
		s.yielded = now_ms();
		nap(SIZE_MS);
		gpu_lock_release(&l);
		s.released = now_ms();
		send_seen(fd, &s);
	}
	return pid;
}

static pid_t timed(int fd, double start)
{
	pid_t pid = fork();
	if (pid == 0) {
		struct gpu_lock l;
		struct seen s = { 0 };
		open_lock(&l);
		nap(ASK_MS - (int)(now_ms() - start));
		gpu_lock_alone(&l);
		s.got = now_ms();
		nap(ALONE_MS);
		s.ended = now_ms();
		gpu_lock_release(&l);
		send_seen(fd, &s);
	}
	return pid;
}

/* Runs the two; their times into *h and *t. */
static void run_both(int pinned, struct seen *h, struct seen *t)
{
	int hp[2], tp[2];
	cr_assert_eq(pipe(hp), 0);
	cr_assert_eq(pipe(tp), 0);
	double start = now_ms();
	pid_t a = holder(hp[1], start, pinned), b = timed(tp[1], start);
	cr_assert_eq(read(hp[0], h, sizeof(*h)), (ssize_t)sizeof(*h), "the holder said nothing");
	cr_assert_eq(read(tp[0], t, sizeof(*t)), (ssize_t)sizeof(*t), "the timed process said nothing");
	int status;
	cr_assert_eq(waitpid(a, &status, 0), a);
	cr_expect(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	cr_assert_eq(waitpid(b, &status, 0), b);
	cr_expect(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	close(hp[0]);
	close(hp[1]);
	close(tp[0]);
	close(tp[1]);
}

Test(gpu_yield, a_waiting_timed_run_goes_between_two_sizes)
{
	struct seen h, t;
	run_both(0, &h, &t);
	cr_expect_geq(t.got, h.yielding, "the timed run had the GPU (%.1f) while the first size held it "
		      "shared (to %.1f)", t.got, h.yielding);
	cr_expect_lt(t.got, h.released - SIZE_MS / 2, "the timed run waited for the holder's end (%.1f, "
		     "released %.1f)", t.got, h.released);
	cr_expect_geq(h.yielded, t.ended, "the second size began (%.1f) before the timed hold ended (%.1f)",
		      h.yielded, t.ended);
}

Test(gpu_yield, a_pinned_process_holds_on_through_its_yield)
{
	struct seen h, t;
	run_both(1, &h, &t);
	cr_expect_lt(h.yielded - h.yielding, ALONE_MS / 2, "the pinned holder's yield waited %.1f ms",
		     h.yielded - h.yielding);
	cr_expect_geq(t.got, h.released, "the timed run (%.1f) met a pinned holder's hold (to %.1f)", t.got,
		      h.released);
}
