/*
 * Isolation of the children that run or compile untrusted code.
 *
 * Three layers, each used where it can be:
 *
 *  - bubblewrap (bwrap), where it is installed and works: no network, its
 *    own pid, IPC and UTS namespaces, a new session (no terminal
 *    injection), a read-only view of the system, a private /tmp, /home and
 *    /root, the kit's solutions/ and build/work/ (other submissions) and
 *    the policy's folders (a batch's input and output) hidden under empty
 *    tmpfs, and only the run's own folder writable. GPU device files
 *    (/dev/nvidia*) stay reachable. The whole sandbox dies with its parent.
 *
 *  - when the grader is root, a user of its own: children run as an
 *    unprivileged uid that this process leased (one per process, from
 *    ISOLATION_UID_BASE up, never a uid with an account), with
 *    RLIMIT_NPROC so that a fork bomb stops at a few dozen processes, and
 *    no_new_privs. Because the uid is ours alone, everything still
 *    running as it after a run can be, and is, killed: processes that left
 *    the process group (setsid) included. "nobody" would not do: every
 *    worker of a batch and every daemon running as nobody would share its
 *    process count, and one student's fork bomb would starve the others.
 *
 *  - always (with isolation on): a clean environment (PATH, locale, CUDA_*
 *    and the emulator's variables; nothing else of the grader's), on top of
 *    what sandbox.c does for every child (process group, limits, fds).
 *
 * --no-isolation turns all three off: children run as the grader's user.
 */
#ifndef GRADER_ISOLATION_H
#define GRADER_ISOLATION_H

#include <limits.h>
#include <stddef.h>

#include "sys/sandbox.h"

#define ISOLATION_MAX_HIDE 8
#define ISOLATION_UID_BASE 400000	/* systemd's UIDS-GIDS.md: 65536-524287 is unused */
#define ISOLATION_UIDS 1000
#define ISOLATION_DEFAULT_NPROC 128	/* threads count: the CUDA runtime and TSan have some */

struct isolation_policy {
	int force;		/* isolate every child, compilers and nm included (batch) */
	const char *writable;	/* the folder a child may write when its run names none */
	const char *hide[ISOLATION_MAX_HIDE];	/* more folders no child may see */
	int n_hide;
	int nproc;		/* RLIMIT_NPROC of a child running as our uid; 0: default */
	int no_bwrap;		/* the user and limits only, even where bwrap works */
	int own_user;		/* run children as the grader's user, not a leased uid: a
				 * single grade, whose kit and file may be where no
				 * other uid can look (a private home, /root) */
};

/* Sets the policy of this process (strings are copied); NULL: the default
 * (isolate only runs that ask, hide only the kit's secrets). */
void isolation_configure(const struct isolation_policy *p);

/* 1 when the policy isolates every child. */
int isolation_forced(void);

/* 1 when bwrap is installed and can make a sandbox here (probed once per
 * process, as the user children will run as). */
int isolation_available(void);

/* Why isolation_available() is 0, in a few words ("" when it is 1). */
const char *isolation_unavailable_reason(void);

/* When the grader runs as root: the unprivileged uid (and gid) children
 * run as, leased for the life of this process; a forked process leases its
 * own. -1 when not root, or when no uid of the range is free. */
long isolation_uid(void);

/* How one child is run; made by isolation_prepare, used between fork and
 * exec by isolation_enter, undone by isolation_finish. */
struct isolation_plan {
	char **argv;		/* what to exec: bwrap ... -- argv, or argv itself */
	char **envp;		/* its environment */
	int bwrap;		/* argv runs under bubblewrap */
	long uid;		/* >= 0: the child becomes this uid and gid */
	int nproc;		/* its RLIMIT_NPROC, with uid */
	char cwd[PATH_MAX];	/* where the child starts; "" to keep sandbox.c's */
	int owned;		/* argv and envp were allocated here */
};

/* Parent, before fork. Returns 0, or -1 with err (out of memory, a folder
 * that cannot be prepared). */
int isolation_prepare(char *const argv[], const struct sandbox_limits *lim,
		      struct isolation_plan *plan, char *err, size_t errlen);

/* Child, between fork and exec: limits, then the user. Only
 * async-signal-safe calls; on failure the child exits 126 with a message. */
void isolation_enter(const struct isolation_plan *plan);

/* Parent, after the child ended: bubblewrap reports a child killed by
 * signal N as exit status 128+N; this turns it back into the signal, so
 * that a crash reads as a crash. */
void isolation_fix_status(const struct isolation_plan *plan, struct child_result *res);

/* Parent, after the child ended: kills whatever still runs as the plan's
 * uid, and frees the plan. */
void isolation_finish(struct isolation_plan *plan);

/* One line for a report: how untrusted children ran here. isolate: the
 * run asked for isolation (not --no-isolation). */
void isolation_describe(int isolate, char *buf, size_t len);

#endif
