/*
 * Bubblewrap (bwrap), where it is installed and works: no network, its own
 * pid, IPC and UTS namespaces, a new session (no terminal injection), a
 * read-only view of the system, a private /tmp, /home and /root, the kit's
 * solutions/ and build/work/ (other submissions) and the caller's folders
 * hidden under empty tmpfs, and only the run's own folder writable. GPU
 * device files (/dev/nvidia*) stay reachable. The whole sandbox dies with
 * its parent.
 */
#ifndef GRADER_BWRAP_H
#define GRADER_BWRAP_H

#include "sys/strvec.h"

#define BWRAP_MAX_HIDE 8

/* 1 when bwrap is installed and can make a sandbox here (probed once per
 * process, as the user children will run as). */
int bwrap_available(void);

/* Why bwrap_available() is 0, in a few words ("" when it is 1). */
const char *bwrap_unavailable_reason(void);

/* Appends to a: bwrap, its options, "--", argv. work: the folder the
 * child may write ("" none) and scratch its own part of it; cwd: where it
 * starts ("" to keep); hide[0..n_hide): more folders it may not see; uid:
 * the user bwrap runs as (-1: the grader's own), whose reach bounds what is
 * bound in from private folders. */
void bwrap_argv(struct strvec *a, char *const argv[], const char *work, const char *scratch,
		const char *cwd, const char *const *hide, int n_hide, long uid);

#endif
