/*
 * The memory cgroup a sandboxed child runs in (grader/sys/memory_cgroup.h):
 * the cap a CUDA harness runs under, since RLIMIT_AS cannot hold one. The
 * children here get no RLIMIT_AS at all, as a CUDA harness gets none, so
 * only the cgroup can stop them. Skipped, saying why, where the grader can
 * make no memory cgroup (not root, or no writable memory controller).
 */
#include <criterion/criterion.h>
#include <glob.h>
#include <libgen.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sys/memory_cgroup.h"
#include "sys/sandbox.h"

#define MIB ((size_t)1 << 20)

static void need_cgroup(void)
{
	const char *why = memory_cgroup_why_not();
	if (why)
		cr_skip_test("no memory cgroup here: %s", why);
}

static struct child_result run_capped(const char *script, size_t cap)
{
	char *argv[] = { "/bin/sh", "-c", (char *)script, NULL };
	struct sandbox_limits lim = { .wall_s = 60, .output_cap = 4096, .resident_cap = cap };
	struct child_result res;
	char err[256];
	cr_assert_eq(sandbox_run(argv, &lim, &res, err, sizeof(err)), 0, "%s", err);
	return res;
}

/* How many cgroups this process has made and not removed. */
static size_t own_cgroups_left(void)
{
	struct memory_cgroup cg;
	cr_assert_eq(memory_cgroup_make(64 * MIB, &cg), 0);
	char pattern[PATH_MAX + 64], dir[PATH_MAX];
	snprintf(dir, sizeof(dir), "%s", cg.dir);
	snprintf(pattern, sizeof(pattern), "%s/cuda-lab-kit-%ld-*", dirname(dir), (long)getpid());
	memory_cgroup_remove(&cg);
	glob_t g;
	size_t n = glob(pattern, GLOB_ONLYDIR, NULL, &g) == 0 ? g.gl_pathc : 0;
	globfree(&g);
	return n;
}

Test(memory_cgroup, a_child_under_its_cap_runs_and_leaves_no_cgroup, .timeout = 60)
{
	need_cgroup();
	struct child_result r = run_capped("dd if=/dev/zero of=/dev/null bs=16M count=4 2>/dev/null", 256 * MIB);
	cr_expect(r.exited && r.exit_status == 0, "%s", r.output);
	cr_expect_eq(r.out_of_memory, 0);
	child_result_free(&r);
	cr_expect_eq(own_cgroups_left(), 0, "a cgroup was left behind");
}

/* One process over the cap: RLIMIT_AS would have caught it too. */
Test(memory_cgroup, a_child_over_its_cap_is_stopped_and_told_so, .timeout = 60)
{
	need_cgroup();
	struct child_result r = run_capped("dd if=/dev/zero of=/dev/null bs=256M count=1", 64 * MIB);
	cr_expect_eq(r.out_of_memory, 64 * MIB, "%s", r.output);
	char fate[128];
	cr_expect(strstr(child_fate(&r, fate, sizeof(fate)), "more than its 64 MiB of memory"), "%s", fate);
	child_result_free(&r);
	cr_expect_eq(own_cgroups_left(), 0, "a cgroup was left behind");
}

/* Four processes of 48 MiB each, alive at once, under a cap of 128 MiB:
 * each is under any per-process limit, the tree is not. (Each dd fills its
 * buffer and then blocks on a pipe nobody reads until sleep ends.) */
Test(memory_cgroup, the_cap_holds_the_whole_tree, .timeout = 60)
{
	need_cgroup();
	struct child_result r = run_capped(
		"for i in 1 2 3 4; do dd if=/dev/zero bs=48M count=1 2>/dev/null | sleep 3 & done; wait",
		128 * MIB);
	cr_expect_eq(r.out_of_memory, 128 * MIB, "%s", r.output);
	child_result_free(&r);
	r = run_capped("for i in 1 2 3 4; do dd if=/dev/zero bs=48M count=1 2>/dev/null | sleep 1 & done; wait",
		       512 * MIB);
	cr_expect_eq(r.out_of_memory, 0, "the same tree under a cap it fits in: %s", r.output);
	child_result_free(&r);
}

/* A grader killed outright leaves its empty cgroup; the next one removes it. */
Test(memory_cgroup, a_killed_graders_cgroup_goes_with_the_next_grader, .timeout = 60)
{
	need_cgroup();
	struct memory_cgroup cg;
	cr_assert_eq(memory_cgroup_make(64 * MIB, &cg), 0);
	char parent[PATH_MAX], stale[PATH_MAX + 64];
	snprintf(parent, sizeof(parent), "%s", cg.dir);
	memory_cgroup_remove(&cg);
	pid_t gone = fork();
	if (gone == 0)
		_exit(0);
	waitpid(gone, NULL, 0);
	snprintf(stale, sizeof(stale), "%s/cuda-lab-kit-%ld-0", dirname(parent), (long)gone);
	cr_assert_eq(mkdir(stale, 0700), 0, "%s", stale);
	pid_t next = fork();	/* a process that has swept no cgroups yet */
	if (next == 0) {
		int made = memory_cgroup_make(64 * MIB, &cg) == 0;
		memory_cgroup_remove(&cg);
		_exit(made ? 0 : 1);
	}
	int status;
	waitpid(next, &status, 0);
	cr_expect(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	struct stat st;
	int left = stat(stale, &st) == 0;
	if (left)
		rmdir(stale);
	cr_expect_not(left, "%s is still there", stale);
}

Test(memory_cgroup, no_cap_no_cgroup)
{
	struct child_result r = run_capped("dd if=/dev/zero of=/dev/null bs=64M count=1 2>/dev/null", 0);
	cr_expect(r.exited && r.exit_status == 0, "%s", r.output);
	cr_expect_eq(r.out_of_memory, 0);
	child_result_free(&r);
}
