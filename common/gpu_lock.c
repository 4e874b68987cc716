/* The harness's side of a batch's GPU lock (see gpu_lock.h). */
#include "gpu_lock.h"

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
}

void gpu_lock_alone(struct gpu_lock *l)
{
	if (l->lock_fd < 0 || l->alone)
		return;
	l->asked_ms = now_ms();
	lock(l->lock_fd, LOCK_UN);
	lock(l->turn_fd, LOCK_EX);
	lock(l->lock_fd, LOCK_EX);
	l->got_ms = now_ms();
	l->wait_alone_ms += l->got_ms - l->asked_ms;
	l->alone = 1;
}

void gpu_lock_shared(struct gpu_lock *l)
{
	if (l->lock_fd < 0 || !l->alone)
		return;
	/* Nobody else can take it between the unlock and the lock that this
	 * conversion is: every other taker waits for the turn, held here. */
	lock(l->lock_fd, LOCK_SH);
	lock(l->turn_fd, LOCK_UN);
	l->held_alone_ms += now_ms() - l->got_ms;
	l->alone = 0;
}
