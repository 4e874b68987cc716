/*
 * The calls sandbox_run makes that can fail, as a table: sandbox_run uses
 * the system's (sandbox_system_calls), and a test hands sandbox_run_with
 * a table whose every entry fails in turn, to see that each failure is
 * reported and leaves no descriptor, memory or child behind. No global
 * is swapped: the table is an argument.
 */
#ifndef GRADER_SANDBOX_CALLS_H
#define GRADER_SANDBOX_CALLS_H

#include <stddef.h>
#include <sys/types.h>

#include "sys/sandbox.h"

struct isolation_plan;

struct sandbox_calls {
	void *(*alloc)(size_t n, size_t size);	/* calloc */
	int (*make_pipe)(int fds[2], int flags);	/* pipe2 */
	int (*memory_file)(const char *name, unsigned flags);	/* memfd_create */
	ssize_t (*write_all)(int fd, const void *p, size_t n);	/* write */
	int (*prepare)(char *const argv[], const struct sandbox_limits *lim,
		       struct isolation_plan *plan, char *err, size_t errlen);	/* isolation_prepare */
	pid_t (*start)(void);	/* fork */
};

extern const struct sandbox_calls sandbox_system_calls;

int sandbox_run_with(const struct sandbox_calls *sys, char *const argv[],
		     const struct sandbox_limits *lim, struct child_result *res, char *err,
		     size_t errlen);

#endif
