/*
 * The kernel's limits on an isolated child: memory,
 * a private /tmp of bounded size as its only writable place, no root when
 * every sandbox uid is taken, bwrap's own failure told apart from the
 * child's, and no ptrace of the sandbox's monitor. Tests that need bubblewrap or root say so and are skipped
 * where it is missing.
 */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <sys/file.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sys/isolation.h"
#include "sys/kit_paths.h"
#include "sys/memory_cgroup.h"
#include "sys/sandbox.h"
#include "sys/uid_lease.h"
#include "test_support.h"

static char work[64];
static struct isolation_policy policy;

static void setup(void)
{
	test_temp_dir(work, sizeof(work), "test-limits");
	chmod(work, 0777);
	memset(&policy, 0, sizeof(policy));
}

static void teardown(void)
{
	remove_tree(work);
}

/* Runs `sh -c script` isolated in work with lim's limits; returns 0 or -1
 * (sandbox_run's), err filled. */
static int run_limited(const char *script, struct sandbox_limits lim, struct child_result *res,
		       char *err, size_t errlen)
{
	char *argv[] = { "/bin/sh", "-c", (char *)script, NULL };
	lim.wall_s = 60;
	lim.output_cap = 8192;
	lim.cwd = work;
	lim.writable_dir = work;
	lim.isolation = &policy;
	return sandbox_run(argv, &lim, res, err, errlen);
}

Test(sandbox_limits, memory_is_capped_by_the_kernel, .init = setup, .fini = teardown)
{
	struct child_result res;
	char err[256];
	/* 300 MB in one string, under a 128 MiB cap: the shell cannot hold it. */
	const char *script = "x=$(head -c 300000000 /dev/zero | tr '\\0' a) && echo held ${#x}";
	cr_assert_eq(run_limited(script, (struct sandbox_limits){ .memory_cap = 128 << 20 }, &res, err,
				 sizeof(err)), 0, "%s", err);
	cr_expect_null(strstr(res.output, "held"), "%s", res.output);
	child_result_free(&res);
	cr_assert_eq(run_limited("echo small", (struct sandbox_limits){ .memory_cap = 128 << 20 }, &res,
				 err, sizeof(err)), 0, "%s", err);
	cr_expect_str_eq(res.output, "small\n", "a cap that stops a small program");
	child_result_free(&res);
}

/* With disk_cap the child's one writable place is a /tmp of that size,
 * where it starts; the run's folder is read-only; nothing stays behind. */
Test(sandbox_limits, disk_is_a_bounded_private_tmp, .init = setup, .fini = teardown)
{
	if (!bwrap_available())
		cr_skip_test("bubblewrap cannot run here: %s", bwrap_unavailable_reason());
	struct child_result res;
	char err[256], left[128];
	const char *script = "pwd; dd if=/dev/zero of=big bs=1M count=64 2>/dev/null; "
			     "echo $(( $(wc -c < big) / 1048576 )); "
			     "touch " "%s/mine 2>/dev/null && echo wrote-work; true";
	char s[512];
	snprintf(s, sizeof(s), script, work);
	cr_assert_eq(run_limited(s, (struct sandbox_limits){ .disk_cap = 8 << 20 }, &res, err,
				 sizeof(err)), 0, "%s", err);
	char *second = strchr(res.output, '\n');
	cr_expect_eq(strncmp(res.output, "/tmp\n", 5), 0, "it started in %s", res.output);
	cr_expect(second && atoi(second + 1) <= 8, "it wrote %s MiB past an 8 MiB cap", second ? second + 1 : "?");
	cr_expect_null(strstr(res.output, "wrote-work"), "the run's folder took a write: %s", res.output);
	child_result_free(&res);
	snprintf(left, sizeof(left), "%s/mine", work);
	cr_expect_neq(access(left, F_OK), 0);
}

/* bwrap's own failure (here: a starting folder it cannot show) is the
 * grader's error, never a verdict on the child. */
Test(sandbox_limits, a_sandbox_that_cannot_be_made_is_a_grader_error, .init = setup, .fini = teardown)
{
	if (!bwrap_available())
		cr_skip_test("bubblewrap cannot run here: %s", bwrap_unavailable_reason());
	struct child_result res;
	char err[512];
	char *argv[] = { "/bin/true", NULL };
	/* /var exists on the host, but is not in the sandbox's view. */
	struct sandbox_limits lim = { .wall_s = 30, .output_cap = 4096, .cwd = "/var", .isolation = &policy };
	cr_expect_eq(sandbox_run(argv, &lim, &res, err, sizeof(err)), -1, "bwrap's failure read as the child's");
	cr_expect_not_null(strstr(err, "could not be made"), "%s", err);
}

/* A child that attaches to the sandbox's monitor (pid 1 of its namespace)
 * would stop it, and the grader would wait for a run that has ended:
 * ptrace fails instead, and the run ends when the program does. */
Test(sandbox_limits, the_monitor_cannot_be_traced, .init = setup, .fini = teardown, .timeout = 60)
{
	if (!bwrap_available())
		cr_skip_test("bubblewrap cannot run here: %s", bwrap_unavailable_reason());
	char exe[128], err[256];
	compile_c_program(work, "attach", "#include <stdio.h>\n#include <sys/ptrace.h>\n"
			  "int main(void) { long r = ptrace(PTRACE_ATTACH, 1, 0, 0); printf(\"attach %ld\\n\", r); "
			  "return 0; }\n", exe, sizeof(exe));
	char *argv[] = { exe, NULL };
	struct sandbox_limits lim = { .wall_s = 20, .output_cap = 4096, .cwd = work, .writable_dir = work,
				      .isolation = &policy };
	struct child_result res;
	cr_assert_eq(sandbox_run(argv, &lim, &res, err, sizeof(err)), 0, "%s", err);
	cr_expect_str_eq(res.output, "attach -1\n", "the monitor could be traced");
	cr_expect(res.exited && !res.timed_out, "the run did not end with its program");
	child_result_free(&res);
}

/* In a process with a mount namespace of its own, where the lease locks
 * folder is a fresh tmpfs: every lease lock taken by another process, a
 * fresh process's run is refused, never made as root. Exit status: 0
 * refused, 1 made as root, 2 could not set it up, 3 neither. Only the
 * processes in that namespace see those locks: the machine's own, which
 * the other tests' sandboxes lease from at the same time, are untouched. */
static int lease_every_uid_then_run(void)
{
	int fds[2];
	if (unshare(CLONE_NEWNS) < 0 || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0 ||
	    mount("kit-test-leases", uid_lease_dir(), "tmpfs", 0, "mode=1777") < 0 || pipe(fds) < 0)
		return 2;
	pid_t holder = fork();
	if (holder == 0) {
		close(fds[0]);
		/* A thousand lock files held open: more than the usual soft limit. */
		struct rlimit rl;
		getrlimit(RLIMIT_NOFILE, &rl);
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
		if (rl.rlim_cur < UID_LEASE_COUNT + 64)
			_exit(2);
		for (long uid = UID_LEASE_BASE; uid < UID_LEASE_BASE + UID_LEASE_COUNT; uid++) {
			char path[PATH_MAX];
			snprintf(path, sizeof(path), "%s/cuda-lab-kit-uid-%ld.lock", uid_lease_dir(), uid);
			int fd = open(path, O_RDONLY | O_CREAT | O_CLOEXEC, 0600);
			if (fd < 0 || flock(fd, LOCK_EX | LOCK_NB) < 0)
				_exit(2);
		}
		(void)!write(fds[1], "k", 1);
		sleep(30);
		_exit(0);
	}
	close(fds[1]);
	char c;
	if (read(fds[0], &c, 1) != 1)
		return 2;
	/* A fresh process: it has no lease of its own yet. */
	int status = 0;
	pid_t pid = fork();
	if (pid == 0) {
		struct child_result res;
		char err[512];
		char *argv[] = { "/usr/bin/id", "-u", NULL };
		struct sandbox_limits lim = { .wall_s = 30, .output_cap = 4096, .isolation = &policy };
		if (sandbox_run(argv, &lim, &res, err, sizeof(err)) < 0)
			_exit(strstr(err, "no free sandbox uid") ? 0 : 3);
		_exit(strcmp(res.output, "0\n") == 0 ? 1 : 3);
	}
	waitpid(pid, &status, 0);
	kill(holder, SIGKILL);
	waitpid(holder, NULL, 0);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 3;
}

Test(sandbox_limits, no_free_uid_is_a_refusal_not_root, .init = setup, .fini = teardown)
{
	if (geteuid() != 0)
		cr_skip_test("only root leases sandbox uids");
	pid_t pid = fork();
	if (pid == 0)
		_exit(lease_every_uid_then_run());
	int status;
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	cr_assert(WIFEXITED(status), "the test's process was killed");
	if (WEXITSTATUS(status) == 2)
		cr_skip_test("cannot take every sandbox uid here without taking the machine's: no private "
			     "mount namespace, or %d files cannot be held open", UID_LEASE_COUNT);
	cr_expect_neq(WEXITSTATUS(status), 1, "a run was made as root with every sandbox uid taken");
	cr_expect_eq(WEXITSTATUS(status), 0, "with every sandbox uid taken, the run was not refused");
}

/* Where no memory cgroup can be made (not root, a container that keeps the
 * controller), a run's memory is still capped, process by process, by
 * RLIMIT_DATA, which a CUDA program (unlike under RLIMIT_AS) runs under.
 * Where a cgroup holds the run, the cgroup does it and RLIMIT_DATA is left
 * alone. */
Test(sandbox_limits, without_a_cgroup_each_process_has_a_data_cap, .init = setup, .fini = teardown)
{
	struct child_result res;
	char err[256];
	struct sandbox_limits lim = { .resident_cap = (size_t)256 << 20 };
	cr_assert_eq(run_limited("grep 'Max data size' /proc/self/limits", lim, &res, err, sizeof(err)), 0,
		     "%s", err);
	cr_assert(res.exited && res.exit_status == 0, "%s", res.output);
	if (memory_cgroup_why_not())
		cr_expect(strstr(res.output, "268435456"), "no cgroup (%s), yet no data cap: %s",
			  memory_cgroup_why_not(), res.output);
	else
		cr_expect(strstr(res.output, "unlimited"), "a cgroup holds the run, and a data cap too: %s",
			  res.output);
	child_result_free(&res);
}
