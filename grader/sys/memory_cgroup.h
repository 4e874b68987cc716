/*
 * A memory cgroup for one child: the kernel's cap on the memory a whole
 * process tree uses (its resident pages and the files it writes to a tmpfs).
 * Unlike RLIMIT_AS it can hold a CUDA program, whose driver maps far more
 * address space than it ever uses, and it also holds the compilers' children.
 *
 * cgroup v2 where the grader's own cgroup hands the memory controller down
 * to its children; otherwise cgroup v1's memory hierarchy. Where neither is
 * writable (not root, a container that hides them), there is none, and the
 * caller falls back to RLIMIT_AS and says so (memory_cgroup_why_not).
 */
#ifndef GRADER_MEMORY_CGROUP_H
#define GRADER_MEMORY_CGROUP_H

#include <limits.h>
#include <stddef.h>

struct memory_cgroup {
	char dir[PATH_MAX];	/* the cgroup's folder; "" when there is none */
	int procs_fd;		/* its cgroup.procs, open for the child to join */
	int version;		/* 1 or 2 */
};

/* Makes a cgroup that caps its members at `bytes` (swap included where the
 * kernel accounts it). 0 on success; -1 when this machine gives us none. */
int memory_cgroup_make(size_t bytes, struct memory_cgroup *cg);

/* In the child, before exec and before it gives up root: joins cg. Uses
 * only write(2). Returns 0, or -1 (the child should not run uncapped). */
int memory_cgroup_join(const struct memory_cgroup *cg);

/* How many of its processes the kernel killed for going over the cap. */
long memory_cgroup_oom_kills(const struct memory_cgroup *cg);

/* Kills what is left in it and removes it. */
void memory_cgroup_remove(struct memory_cgroup *cg);

/* NULL when a cgroup can be made here; otherwise why not, for a report. */
const char *memory_cgroup_why_not(void);

#endif
