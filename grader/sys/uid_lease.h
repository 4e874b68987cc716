/*
 * When the grader is root, a user of its own for the children: an
 * unprivileged uid that this process leases (one per process, from
 * UID_LEASE_BASE up, never a uid with an account, held by a lock file),
 * so that everything still running as it after a run can be, and is,
 * killed, processes that left the process group (setsid) included.
 * "nobody" would not do: every worker of a batch and every daemon running
 * as nobody would share its process count, and one student's fork bomb
 * would starve the others.
 */
#ifndef GRADER_UID_LEASE_H
#define GRADER_UID_LEASE_H

#define UID_LEASE_BASE 400000	/* systemd's UIDS-GIDS.md: 65536-524287 is unused */
#define UID_LEASE_COUNT 1000

/* The uid (and gid) children run as, leased for the life of this process;
 * a forked process leases its own. -1 when not root, or when no uid of the
 * range is free. */
long uid_lease(void);

/* The folder of the lease's lock files (/run/lock, else /tmp). */
const char *uid_lease_dir(void);

/* Kills every process running as uid. */
void uid_kill_all(long uid);

/* Reaps the zombies our children left (we are their subreaper). */
void uid_reap_orphans(void);

#endif
