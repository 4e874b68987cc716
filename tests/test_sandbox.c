#include <criterion/criterion.h>
#include <signal.h>

#include "sys/sandbox.h"

static struct child_result run_sh(const char *script, double wall_s, size_t cap)
{
	char *argv[] = { "/bin/sh", "-c", (char *)script, NULL };
	struct sandbox_limits lim = { .wall_s = wall_s, .output_cap = cap, .with_channel = 1 };
	struct child_result res;
	char err[256];
	cr_assert_eq(sandbox_run(argv, &lim, &res, err, sizeof(err)), 0, "%s", err);
	return res;
}

Test(sandbox, output_and_status)
{
	struct child_result r = run_sh("echo hello; echo oops >&2; exit 3", 10, 4096);
	cr_expect(r.exited);
	cr_expect_eq(r.exit_status, 3);
	cr_expect(strstr(r.output, "hello") && strstr(r.output, "oops"), "%s", r.output);
	child_result_free(&r);
}

Test(sandbox, hang_is_killed_with_its_children, .timeout = 20)
{
	struct child_result r = run_sh("sleep 100 & sleep 100", 0.5, 4096);
	cr_expect(r.timed_out);
	cr_expect_lt(r.wall_s, 5);
	char buf[128];
	cr_expect(strstr(child_fate(&r, buf, sizeof(buf)), "time limit") != NULL, "%s", buf);
	child_result_free(&r);
	/* The background sleep went with the group: no process holds our pipe. */
}

Test(sandbox, crash_names_the_signal)
{
	struct child_result r = run_sh("kill -SEGV $$", 10, 4096);
	cr_expect(r.signaled);
	cr_expect_eq(r.signal, SIGSEGV);
	char buf[128];
	cr_expect(strstr(child_fate(&r, buf, sizeof(buf)), "signal 11") != NULL, "%s", buf);
	child_result_free(&r);
}

Test(sandbox, output_is_capped_but_drained, .timeout = 30)
{
	struct child_result r = run_sh("head -c 20000000 /dev/zero | tr '\\0' x", 20, 1000);
	cr_expect(r.exited && r.exit_status == 0, "the writer must not block on a full pipe");
	cr_expect_eq(r.output_len, 1000);
	cr_expect_eq(r.output_dropped, 20000000 - 1000);
	child_result_free(&r);
}

Test(sandbox, channel_is_fd_3)
{
	struct child_result r = run_sh("printf 'frames' >&3", 10, 4096);
	cr_expect_eq(r.channel_len, 6);
	cr_expect_eq(memcmp(r.channel, "frames", 6), 0);
	child_result_free(&r);
}

Test(sandbox, missing_program)
{
	char *argv[] = { "/nonexistent/prog", NULL };
	struct sandbox_limits lim = { .wall_s = 5, .output_cap = 4096 };
	struct child_result r;
	char err[256];
	cr_assert_eq(sandbox_run(argv, &lim, &r, err, sizeof(err)), 0);
	cr_expect(r.exited && r.exit_status == 127);
	cr_expect(strstr(r.output, "cannot run /nonexistent/prog") != NULL, "%s", r.output);
	child_result_free(&r);
}

Test(sandbox, output_tail)
{
	struct child_result r = run_sh("for i in 1 2 3 4 5; do echo line$i; done", 10, 4096);
	cr_expect_str_eq(child_output_tail(&r, 2), "line4\nline5\n");
	child_result_free(&r);
}
