/*
 * The per-GPU lock of batch_gpu.c, between real processes: correctness
 * runs share the GPU, a timed run has it alone, and a timed run that waits
 * goes before correctness runs that come after it.
 *
 * Each child takes the lock, writes its letter (upper case) on a shared
 * pipe, holds the lock a while, writes the letter in lower case and
 * releases it: the parent reads the order of events.
 */
#include <criterion/criterion.h>
#include <ctype.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "batch/batch.h"
#include "sys/kit_paths.h"
#include "test_support.h"

static char dir[64];
static int events[2];

static void setup(void)
{
	test_temp_dir(dir, sizeof(dir), "test-gpu-lock");
	cr_assert_eq(pipe(events), 0);
}

static void teardown(void)
{
	remove_tree(dir);
	close(events[0]);
	close(events[1]);
}

static void sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000 };
	nanosleep(&ts, NULL);
}

/* A worker of its own (its own open files, as in a batch). */
static pid_t holder(char letter, int timed, int hold_ms)
{
	pid_t pid = fork();
	if (pid == 0) {
		struct gpu_slot s;
		memset(&s, 0, sizeof(s));
		snprintf(s.lock_path, sizeof(s.lock_path), "%s/gpu.lock", dir);
		snprintf(s.turn_path, sizeof(s.turn_path), "%s/gpu.turn", dir);
		s.lock_fd = s.turn_fd = -1;
		char lower = (char)tolower(letter);
		batch_gpu_phase(&s, timed, 1);
		if (write(events[1], &letter, 1) != 1)
			_exit(1);
		sleep_ms(hold_ms);
		/* Said while still held: after the release, another may take it at once. */
		if (write(events[1], &lower, 1) != 1)
			_exit(1);
		batch_gpu_phase(&s, timed, 0);
		_exit(0);
	}
	return pid;
}

/* The next event within ms, or 0. */
static char next_event(int ms)
{
	struct pollfd p = { events[0], POLLIN, 0 };
	char c = 0;
	if (poll(&p, 1, ms) == 1 && read(events[0], &c, 1) == 1)
		return c;
	return 0;
}

/* Every event until the children are done. */
static void read_rest(char *seq, size_t len, int n)
{
	size_t at = strlen(seq);
	while ((int)at < n && at + 1 < len) {
		char c = next_event(5000);
		if (!c)
			break;
		seq[at++] = c;
	}
	seq[at] = '\0';
}

static void reap(void)
{
	while (wait(NULL) > 0)
		;
}

Test(batch_gpu, correctness_runs_share_the_gpu, .init = setup, .fini = teardown)
{
	char seq[16] = "";
	holder('A', 0, 600);
	seq[0] = next_event(2000);
	holder('B', 0, 100);
	read_rest(seq, sizeof(seq), 4);
	reap();
	cr_expect_str_eq(seq, "ABba", "B waited for A: %s", seq);
}

Test(batch_gpu, a_timed_run_waits_and_runs_alone, .init = setup, .fini = teardown)
{
	char seq[16] = "";
	holder('A', 0, 400);
	seq[0] = next_event(2000);
	holder('T', 1, 200);
	cr_expect_eq(next_event(150), 0, "the timed run started beside a correctness run");
	read_rest(seq, sizeof(seq), 4);
	reap();
	cr_expect_str_eq(seq, "AaTt", "order: %s", seq);
}

Test(batch_gpu, a_waiting_timed_run_goes_before_new_shares, .init = setup, .fini = teardown)
{
	char seq[16] = "";
	holder('A', 0, 600);
	seq[0] = next_event(2000);
	holder('T', 1, 300);
	sleep_ms(150);	/* T is waiting for A */
	holder('B', 0, 50);
	read_rest(seq, sizeof(seq), 6);
	reap();
	cr_expect_str_eq(seq, "AaTtBb", "a correctness run overtook the waiting timed run: %s", seq);
}
