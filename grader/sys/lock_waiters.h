/*
 * Who holds and who waits for a flock(2) lock, read from /proc/locks.
 *
 * A child that waits for the GPU's lock (common/gpu_lock.h) is waiting for
 * other students' timed runs, or for a grade that someone stopped with
 * Ctrl-Z while it held the GPU: no time of the student's code. The sandbox
 * asks here whether its child is blocked on the lock, so that the wait
 * counts against no limit of the child's, and names the holders to the
 * person who waits.
 */
#ifndef GRADER_SYS_LOCK_WAITERS_H
#define GRADER_SYS_LOCK_WAITERS_H

#include <stddef.h>
#include <sys/types.h>

/* The most files one question is about (the GPU's lock and turn files). */
#define LOCK_WAITERS_MAX_FILES 4

/* Whether a process of the tree under `root` (root itself included) is
 * blocked in flock on one of the n open files fds (the first
 * LOCK_WAITERS_MAX_FILES of them): 1 yes, 0 no, -1 when /proc/locks cannot
 * be read. */
int lock_tree_blocked(pid_t root, const int *fds, int n);

/* The living holders of the n files' locks that are not under `root`, in
 * words ("pid 4242 (user alice, harness-cuda, stopped)", separated by
 * "; "), into buf; "" when it finds none. Returns how many of them are
 * stopped (Ctrl-Z, or a debugger): those wait for a person. */
int lock_holders_describe(pid_t root, const int *fds, int n, char *buf, size_t len);

#endif
