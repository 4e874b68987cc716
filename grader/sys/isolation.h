/*
 * Isolation of the children that run or compile untrusted code, by a
 * policy the caller hands to each run (sandbox_limits.isolation; NULL: not
 * isolated). Three layers, each used where it can be:
 *
 *  - bubblewrap, where it is installed and works (bwrap.h): an allowlist
 *    view of the file system, no network;
 *
 *  - when the grader is root, a user of its own (uid_lease.h), always: no
 *    child of a policy ever runs as root, and when every uid is taken the
 *    run is refused, not downgraded; whatever still runs as that uid after
 *    the run is killed;
 *
 *  - RLIMIT_NPROC (a fork bomb stops at a few dozen processes: as our own
 *    user, that many more than it has now) and no_new_privs;
 *
 *  - always (with a policy): a clean environment (PATH, locale, CUDA_*
 *    and the emulator's variables; nothing else of the grader's), on top of
 *    what sandbox.c does for every child (process group, limits, fds).
 *
 * --no-isolation gives no policy: children run as the grader's user.
 */
#ifndef GRADER_ISOLATION_H
#define GRADER_ISOLATION_H

#include <limits.h>
#include <stddef.h>

#include "sys/bwrap.h"
#include "sys/sandbox.h"

#define ISOLATION_MAX_HIDE BWRAP_MAX_HIDE
#define ISOLATION_DEFAULT_NPROC 128	/* threads count: the CUDA runtime and TSan have some */

struct isolation_policy {
	int force;		/* the kit's tools too, compilers and nm included (a
				 * batch): see isolation_for_tools */
	const char *writable;	/* the folder a child may write when its run names none */
	const char *hide[ISOLATION_MAX_HIDE];	/* more folders no child may see */
	const char *shown;	/* one more folder its children may read, or NULL: a forked
				 * grader's, the grade's staged submission and its headers */
	int n_hide;
	int nproc;		/* RLIMIT_NPROC of a child running as our uid; 0: default */
	int no_bwrap;		/* the user and limits only, even where bwrap works */
	int own_user;		/* run children as the grader's user when it is not root
				 * (tests); as root, a leased uid all the same */
};

/* The policy for the kit's own tools (compilers, nm, probes) next to a run
 * of student code under p: p itself when it isolates every child (a
 * batch), else NULL (they run as the grader's user). */
const struct isolation_policy *isolation_for_tools(const struct isolation_policy *p);

/* Before a grade or a batch under p: 0 when its children can run (as
 * root: a sandbox uid is free, and it can read the kit's build), with
 * work (unless NULL) handed to that uid: the folder its compilers write;
 * -1 with err saying what to do. NULL (--no-isolation) is always ready. */
int isolation_ready(const struct isolation_policy *p, const char *work, char *err, size_t errlen);

/* How one child is run; made by isolation_prepare, used between fork and
 * exec by isolation_enter, undone by isolation_finish. */
struct isolation_plan {
	char **argv;		/* what to exec: bwrap ... -- argv, or argv itself */
	char **envp;		/* its environment */
	int bwrap;		/* argv runs under bubblewrap */
	long uid;		/* >= 0: the child becomes this uid and gid */
	int nproc;		/* its RLIMIT_NPROC (0: none) */
	char cwd[PATH_MAX];	/* where the child starts; "" to keep sandbox.c's */
	int isolated;		/* a policy applies: no_new_privs, dies with its parent */
	int owned;		/* argv and envp were allocated here */
	int status[2];		/* the pipe "started" comes through (bwrap.h), or -1 */
	int seccomp;		/* the seccomp program (seccomp_filter.h), or -1 */
	int keep[2];		/* what the child keeps: status[1] and seccomp, or -1 */
};

/* Parent, before fork: by lim->isolation (NULL: as the grader's user, in
 * its environment), with lim->gpu as the child's CUDA_VISIBLE_DEVICES when
 * it is not NULL. Returns 0, or -1 with err (out of memory, a folder
 * that cannot be prepared). */
int isolation_prepare(char *const argv[], const struct sandbox_limits *lim,
		      struct isolation_plan *plan, char *err, size_t errlen);

/* The sandbox's descriptors in the child (sandbox.c puts plan->keep[i]
 * at ISOLATION_STATUS_FD + i): the status pipe, then the seccomp program. */
#define ISOLATION_STATUS_FD 4
#define ISOLATION_SECCOMP_FD 5
#define ISOLATION_KEEP_FDS 2

/* Child, between fork and exec: limits, then the user. Only
 * async-signal-safe calls; on failure the child exits 126 with a message. */
void isolation_enter(const struct isolation_plan *plan);

/* Parent, after the child ended: bubblewrap reports a child killed by
 * signal N as exit status 128+N; this turns it back into the signal, so
 * that a crash reads as a crash. */
void isolation_fix_status(const struct isolation_plan *plan, struct child_result *res);

/* Parent, after the child ended: 0 when its program started; -1 with err
 * when the sandbox itself could not be made (bwrap's own failure, a grader
 * error, never the submission's), with what bwrap said. */
int isolation_check_start(struct isolation_plan *plan, const struct child_result *res, char *err,
			  size_t errlen);

/* Parent, after the child ended: kills whatever still runs as the plan's
 * uid, and frees the plan. */
void isolation_finish(struct isolation_plan *plan);

/* One line for a report: how untrusted children ran under p (NULL:
 * --no-isolation). */
void isolation_describe(const struct isolation_policy *p, char *buf, size_t len);

#endif
