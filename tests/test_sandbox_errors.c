/*
 * sandbox_run's failures, each in turn: every call it makes that can fail
 * (sandbox_calls.h) is made to fail once, and the run must say why and
 * leave nothing behind: no descriptor open, no output buffer, no child.
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sys/isolation.h"
#include "sys/sandbox_calls.h"

static int open_fds(void)
{
	int n = 0;
	DIR *d = opendir("/proc/self/fd");
	cr_assert_not_null(d);
	while (readdir(d))
		n++;
	closedir(d);
	return n;
}

static void *no_memory(size_t n, size_t size)
{
	(void)n;
	(void)size;
	errno = ENOMEM;
	return NULL;
}

static int no_pipe(int fds[2], int flags)
{
	(void)fds;
	(void)flags;
	errno = EMFILE;
	return -1;
}

static int no_memory_file(const char *name, unsigned flags)
{
	(void)name;
	(void)flags;
	errno = EMFILE;
	return -1;
}

/* The channel's memory file comes, the input's does not. */
static int second_memory_file_fails(const char *name, unsigned flags)
{
	if (strcmp(name, "grade-input") == 0) {
		errno = EMFILE;
		return -1;
	}
	return sandbox_system_calls.memory_file(name, flags);
}

static ssize_t short_write(int fd, const void *p, size_t n)
{
	(void)fd;
	(void)p;
	(void)n;
	errno = ENOSPC;
	return -1;
}

static int no_plan(char *const argv[], const struct sandbox_limits *lim, struct isolation_plan *plan,
		   char *err, size_t errlen)
{
	(void)argv;
	(void)lim;
	(void)plan;
	snprintf(err, errlen, "cannot prepare the isolation: test");
	return -1;
}

static pid_t no_fork(void)
{
	errno = EAGAIN;
	return -1;
}

struct failing {
	const char *what;	/* the call that fails */
	const char *says;	/* what err must hold */
	struct sandbox_calls calls;
};

static void table(struct failing *f, int *n)
{
	struct sandbox_calls ok = sandbox_system_calls;
	*n = 0;
	f[*n] = (struct failing){ "calloc", "out of memory", ok };
	f[(*n)++].calls.alloc = no_memory;
	f[*n] = (struct failing){ "pipe2", "pipe: ", ok };
	f[(*n)++].calls.make_pipe = no_pipe;
	f[*n] = (struct failing){ "memfd_create (channel)", "memfd_create: ", ok };
	f[(*n)++].calls.memory_file = no_memory_file;
	f[*n] = (struct failing){ "memfd_create (input)", "cannot hand the child its input", ok };
	f[(*n)++].calls.memory_file = second_memory_file_fails;
	f[*n] = (struct failing){ "write (input)", "cannot hand the child its input", ok };
	f[(*n)++].calls.write_all = short_write;
	f[*n] = (struct failing){ "isolation_prepare", "cannot prepare the isolation", ok };
	f[(*n)++].calls.prepare = no_plan;
	f[*n] = (struct failing){ "fork", "fork: ", ok };
	f[(*n)++].calls.start = no_fork;
}

Test(sandbox_errors, each_failure_is_reported_and_leaks_nothing)
{
	char *argv[] = { "/bin/true", NULL };
	struct sandbox_limits lim = { .wall_s = 10, .output_cap = 1 << 16, .with_channel = 1,
				      .input = "input", .input_len = 5 };
	struct failing f[8];
	int n;
	table(f, &n);
	for (int i = 0; i < n; i++) {
		struct child_result res;
		char err[256] = "";
		int fds = open_fds();
		size_t heap = mallinfo2().uordblks;
		for (int k = 0; k < 20; k++) {
			err[0] = '\0';
			cr_assert_eq(sandbox_run_with(&f[i].calls, argv, &lim, &res, err, sizeof(err)), -1,
				     "%s failed, and the run went on", f[i].what);
			cr_expect_not_null(strstr(err, f[i].says), "%s: the error reads \"%s\"", f[i].what, err);
			cr_expect_null(res.output, "%s: the output buffer was kept", f[i].what);
			cr_expect_null(res.channel, "%s: the channel was kept", f[i].what);
		}
		cr_expect_eq(open_fds(), fds, "%s: %d descriptors left open", f[i].what, open_fds() - fds);
		/* 20 lost buffers would be 20 x 64 KiB. */
		cr_expect_lt(mallinfo2().uordblks, heap + (1 << 16), "%s: %zu bytes of heap lost",
			     f[i].what, mallinfo2().uordblks - heap);
		cr_expect_eq(waitpid(-1, NULL, WNOHANG), -1, "%s: a child was left", f[i].what);
	}
}

/* The same table with nothing failing runs the child as sandbox_run does. */
Test(sandbox_errors, the_systems_calls_run_the_child)
{
	char *argv[] = { "/bin/echo", "hello", NULL };
	struct sandbox_limits lim = { .wall_s = 10, .output_cap = 4096, .with_channel = 1 };
	struct child_result res;
	char err[256] = "";
	int fds = open_fds();
	cr_assert_eq(sandbox_run_with(&sandbox_system_calls, argv, &lim, &res, err, sizeof(err)), 0, "%s", err);
	cr_expect_str_eq(res.output, "hello\n");
	cr_expect(res.exited && res.exit_status == 0);
	child_result_free(&res);
	cr_expect_eq(open_fds(), fds);
}
