/*
 * Bubblewrap around a child: no network, a read-only view of the system,
 * and write access only to the submission's own folder.
 */
#ifndef GRADER_ISOLATION_H
#define GRADER_ISOLATION_H

#include "sandbox.h"

/* 1 when bwrap is installed and works here. */
int isolation_available(void);

/* A new argv that runs argv under bwrap, or NULL when bwrap is not
 * available (the caller runs argv as is and reports that). */
char **isolation_wrap(char *const argv[], const struct sandbox_limits *lim);
void isolation_free(char **wrapped);

#endif
