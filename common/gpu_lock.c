/* The child's side of a batch's GPU lock (see gpu_lock.h). */
#include "gpu_lock.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static void lock(int fd, int op)
{
	while (flock(fd, op) < 0 && errno == EINTR)
		;
}

/* An open regular file: the sandbox closes every descriptor it does not
 * hand on, so anything else there is not a lock of the grader's. */
static int is_lock_file(int fd)
{
	struct stat st;
	return fcntl(fd, F_GETFD) >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
}

int gpu_lock_count_threads(void)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *e;
	int n = 0;
	if (!d)
		return -1;
	while ((e = readdir(d)))
		n += e->d_name[0] != '.';
	closedir(d);
	return n;
}

void gpu_lock_inherit(struct gpu_lock *l)
{
	*l = (struct gpu_lock){ .lock_fd = -1, .turn_fd = -1 };
	if (!is_lock_file(GPU_LOCK_FD) || !is_lock_file(GPU_TURN_FD))
		return;
	/* Not inherited further: a program this one started would hold the
	 * lock as long as it lives. */
	fcntl(GPU_LOCK_FD, F_SETFD, FD_CLOEXEC);
	fcntl(GPU_TURN_FD, F_SETFD, FD_CLOEXEC);
	l->lock_fd = GPU_LOCK_FD;
	l->turn_fd = GPU_TURN_FD;
	if (gpu_lock_count_threads() != 1) {
		l->pinned = 1;
		gpu_lock_shared(l);
	}
}

void gpu_lock_mark_threads(struct gpu_lock *l)
{
	l->threads = gpu_lock_count_threads();
}

void gpu_lock_shared(struct gpu_lock *l)
{
	if (l->lock_fd < 0 || l->shared)
		return;
	double asked = now_ms();
	/* From alone, nobody else can take it between the unlock and the
	 * lock that this conversion is: every other taker waits for the
	 * turn, held here. */
	if (!l->alone)
		lock(l->turn_fd, LOCK_EX);
	lock(l->lock_fd, LOCK_SH);
	lock(l->turn_fd, LOCK_UN);
	double now = now_ms();
	if (l->alone)
		l->held_alone_ms += now - l->got_ms;
	else
		l->wait_shared_ms += now - asked;
	l->alone = 0;
	l->shared = 1;
	l->got_ms = now;
}

void gpu_lock_alone(struct gpu_lock *l)
{
	if (l->lock_fd < 0 || l->alone)
		return;
	double asked = now_ms();
	if (l->shared)
		l->held_shared_ms += asked - l->got_ms;
	lock(l->lock_fd, LOCK_UN);
	lock(l->turn_fd, LOCK_EX);
	double turned = now_ms();
	lock(l->lock_fd, LOCK_EX);
	l->got_ms = now_ms();
	l->wait_alone_ms += l->got_ms - asked;
	l->drain_ms += l->got_ms - turned;
	l->alone = 1;
	l->shared = 0;
}

int gpu_lock_asked_for(struct gpu_lock *l)
{
	if (l->lock_fd < 0 || !l->shared || l->pinned)
		return 0;
	int rc;
	while ((rc = flock(l->turn_fd, LOCK_EX | LOCK_NB)) < 0 && errno == EINTR)
		;
	if (rc == 0)
		lock(l->turn_fd, LOCK_UN);
	return rc < 0;
}

void gpu_lock_check_threads(struct gpu_lock *l)
{
	int threads = gpu_lock_count_threads();
	if (l->lock_fd >= 0 && (threads < 0 || threads != l->threads))
		l->pinned = 1;
}

void gpu_lock_release(struct gpu_lock *l)
{
	gpu_lock_check_threads(l);
	if (l->lock_fd < 0 || l->pinned || !(l->alone || l->shared))
		return;
	double now = now_ms();
	*(l->alone ? &l->held_alone_ms : &l->held_shared_ms) += now - l->got_ms;
	if (l->alone)
		lock(l->turn_fd, LOCK_UN);
	lock(l->lock_fd, LOCK_UN);
	l->alone = l->shared = 0;
}

double gpu_lock_held_shared_ms(const struct gpu_lock *l)
{
	return l->held_shared_ms + (l->shared ? now_ms() - l->got_ms : 0);
}
