/*
 * A timed run that asks for the GPU alone while another process holds it
 * shared takes the turn at once and then waits for that hold to end: the
 * drain (common/gpu_lock.h). The lock counts it apart from the wait, so
 * that a batch can count the turn as the GPU's time (batch_pace.c). A
 * correctness run that gives the GPU back between its sizes when a timed
 * run asks for it (gpu_lock_asked_for) shortens the drain to the size it
 * is in. Processes with their own open lock files, as workers' children
 * are.
 */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "gpu_lock.h"
#include "sys/kit_paths.h"
#include "test_support.h"

#define HOLD_MS 600	/* the shared hold, from the start */
#define ASK_MS 100	/* when the timed run asks for the GPU alone */
#define QUEUE_MS 150	/* a third process holds the turn this long first */

static char dir[64];

static void setup(void)
{
	test_temp_dir(dir, sizeof(dir), "test-gpu-drain");
}

static void teardown(void)
{
	remove_tree(dir);
}

TestSuite(gpu_drain, .init = setup, .fini = teardown, .timeout = 30);

static void nap(int ms)
{
	struct timespec t = { ms / 1000, (ms % 1000) * 1000000L };
	nanosleep(&t, NULL);
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

/* Holds the GPU shared from now for HOLD_MS. */
static pid_t holder(void)
{
	pid_t pid = fork();
	if (pid == 0) {
		struct gpu_lock l;
		open_lock(&l);
		gpu_lock_shared(&l);
		nap(HOLD_MS);
		gpu_lock_release(&l);
		_exit(0);
	}
	return pid;
}

/* Holds the turn alone from ASK_MS / 2 for QUEUE_MS, as a timed run
 * ahead in the queue would while it waits (it gets the lock only after
 * the holder). */
static pid_t ahead(void)
{
	pid_t pid = fork();
	if (pid == 0) {
		char path[128];
		snprintf(path, sizeof(path), "%s/gpu.turn", dir);
		int fd = open(path, O_RDWR | O_CREAT, 0600);
		nap(ASK_MS / 2);
		if (fd < 0 || flock(fd, LOCK_EX) < 0)
			_exit(3);
		nap(QUEUE_MS);
		_exit(0);	/* closing the file lets the turn go */
	}
	return pid;
}

/* The timed run: its wait and drain, in ms, through the pipe. */
static pid_t timed(int fd)
{
	pid_t pid = fork();
	if (pid == 0) {
		struct gpu_lock l;
		open_lock(&l);
		nap(ASK_MS);
		gpu_lock_alone(&l);
		gpu_lock_release(&l);
		double said[2] = { l.wait_alone_ms, l.drain_ms };
		_exit(write(fd, said, sizeof(said)) == (ssize_t)sizeof(said) ? 0 : 4);
	}
	return pid;
}

static void reap(pid_t pid)
{
	int status;
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	cr_expect(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

/* Asked at 100 ms; the turn free at 200 ms (the one ahead let it go);
 * the shared hold ended at 600: a wait of about 500 ms, of which the last
 * 400 ms are the drain, and the first 100 the queue for the turn. The
 * bounds leave a loaded machine a fifth of a second either way. */
Test(gpu_drain, the_turn_held_while_shared_holds_end_is_counted_apart)
{
	int p[2];
	cr_assert_eq(pipe(p), 0);
	pid_t h = holder(), a = ahead(), t = timed(p[1]);
	double said[2];
	cr_assert_eq(read(p[0], said, sizeof(said)), (ssize_t)sizeof(said), "the timed run said nothing");
	reap(h);
	reap(a);
	reap(t);
	double wait = said[0], drain = said[1];
	double queue = wait - drain;
	cr_expect(wait > HOLD_MS - ASK_MS - 50 && wait < HOLD_MS - ASK_MS + 1000, "waited %.0f ms", wait);
	cr_expect(drain > HOLD_MS - ASK_MS / 2 - QUEUE_MS - 200, "drained %.0f ms of a %.0f ms wait", drain,
		  wait);
	cr_expect(queue > ASK_MS / 2 && queue < ASK_MS + 200, "queued %.0f ms of a %.0f ms wait: the drain "
		  "is not the part after the turn", queue, wait);
	close(p[0]);
	close(p[1]);
}

#define SIZE_MS 100	/* one size of a correctness run */
#define SIZES 6

/* A correctness run of SIZES sizes, SIZE_MS each, holding the GPU shared
 * and giving it back between two sizes where it is asked for, as the
 * harness does (gpu_share_between_sizes); says through the pipe how many
 * times it gave way. */
static pid_t sizes_run(int fd)
{
	pid_t pid = fork();
	if (pid == 0) {
		struct gpu_lock l;
		open_lock(&l);
		gpu_lock_shared(&l);
		int gave_way = 0;
		for (int i = 0; i < SIZES; i++) {
			if (i > 0 && gpu_lock_asked_for(&l)) {
				gave_way++;
				gpu_lock_release(&l);
				gpu_lock_shared(&l);
			}
			nap(SIZE_MS);
		}
		gpu_lock_release(&l);
		_exit(write(fd, &gave_way, sizeof(gave_way)) == (ssize_t)sizeof(gave_way) ? 0 : 4);
	}
	return pid;
}

/* The timed run asks at 100 ms, in the second size of six: it waits for
 * that size to end (about 100 ms), not for the run's end (500 ms). The run
 * gives way once: the timed run's hold is short, and nobody asks again. */
Test(gpu_drain, a_correctness_run_gives_way_between_its_sizes)
{
	int said_by_sizes[2], said_by_timed[2];
	cr_assert_eq(pipe(said_by_sizes), 0);
	cr_assert_eq(pipe(said_by_timed), 0);
	pid_t s = sizes_run(said_by_sizes[1]);
	pid_t t = timed(said_by_timed[1]);
	double said[2];
	int gave_way = -1;
	cr_assert_eq(read(said_by_timed[0], said, sizeof(said)), (ssize_t)sizeof(said), "the timed run said nothing");
	cr_assert_eq(read(said_by_sizes[0], &gave_way, sizeof(gave_way)), (ssize_t)sizeof(gave_way));
	reap(s);
	reap(t);
	cr_expect_eq(gave_way, 1, "gave way %d times", gave_way);
	cr_expect(said[1] < SIZE_MS + 150, "drained %.0f ms: the timed run waited for more than one size",
		  said[1]);
	for (int i = 0; i < 2; i++) {
		close(said_by_sizes[i]);
		close(said_by_timed[i]);
	}
}

/* Nobody asks: the run keeps its hold through every size. */
Test(gpu_drain, a_correctness_run_alone_keeps_its_hold)
{
	int p[2];
	cr_assert_eq(pipe(p), 0);
	pid_t s = sizes_run(p[1]);
	int gave_way = -1;
	cr_assert_eq(read(p[0], &gave_way, sizeof(gave_way)), (ssize_t)sizeof(gave_way));
	reap(s);
	cr_expect_eq(gave_way, 0, "gave way %d times with nobody asking", gave_way);
	close(p[0]);
	close(p[1]);
}
