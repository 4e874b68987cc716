/*
 * Bubblewrap (bwrap), where it is installed and works: no network, its own
 * pid, IPC and UTS namespaces, a new session (no terminal injection), and
 * a view of the file system made of an allowlist, read-only: the system's
 * programs and libraries (/usr and its links, the few files of /etc the
 * loader reads, /sys), the CUDA toolkit, the kit's emulator build, the
 * files the command names, and the run's own folder -- nothing else. The
 * kit's root (its .git, solutions/, tests/, batches kept there), /home,
 * /root, other submissions and earlier batches are not there at all. /tmp
 * is a tmpfs of bounded size; with tmp_bytes it is also the child's only
 * writable place. GPU device files (/dev/nvidia*) stay reachable. The
 * whole sandbox dies with its parent.
 */
#ifndef GRADER_BWRAP_H
#define GRADER_BWRAP_H

#include <stddef.h>

#include "sys/strvec.h"

#define BWRAP_MAX_HIDE 8

/* 1 when bwrap is installed and can make a sandbox here (probed once per
 * process, as the user children will run as). */
int bwrap_available(void);

/* Why bwrap_available() is 0, in a few words ("" when it is 1). */
const char *bwrap_unavailable_reason(void);

#define BWRAP_TMP_BYTES ((size_t)512 << 20)	/* /tmp, for a compiler's temporary files */

/* What one child sees besides the allowlist. */
struct bwrap_view {
	const char *work;	/* the run's folder ("" none): shown */
	const char *scratch;	/* the child's own part of it: writable, unless tmp_bytes */
	const char *cwd;	/* where it starts ("" to keep) */
	size_t tmp_bytes;	/* > 0: the child writes only to a /tmp of this size, where it
				 * starts; work and scratch are read-only */
	const char *shown;	/* one more folder shown read-only, or NULL */
	const char *const *hide;	/* folders to keep dark even inside what is shown */
	int n_hide;
	int seccomp_fd;		/* in the child: bwrap --seccomp (seccomp_filter.h), or -1 */
	int status_fd;		/* in the child: "started" is written there once the
				 * sandbox is made, just before the program runs; or -1 */
};

/* Appends to a: bwrap, its options, "--", argv. */
void bwrap_argv(struct strvec *a, char *const argv[], const struct bwrap_view *w);

#endif
