#include <criterion/criterion.h>
#include <signal.h>

#include <stdlib.h>
#include <string.h>

#include "sys/clock.h"
#include "sys/isolation.h"
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

/* When a child was reaped, on the grader's clock: after it slept, and not
 * after the call returned (a batch's pace line counts a child's end by it). */
Test(sandbox, the_child_ends_on_the_graders_clock)
{
	double before = now_s();
	struct child_result r = run_sh("sleep 0.2", 10, 4096);
	double after = now_s();
	cr_expect_geq(r.ended_at_s, before + 0.2);
	cr_expect_leq(r.ended_at_s, after);
	cr_expect_float_eq(r.ended_at_s - r.wall_s, before, 0.05, "its start: %.3f, the call at %.3f",
			   r.ended_at_s - r.wall_s, before);
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

/* The script on stdin reaches the child whole; without one it reads nothing. */
Test(sandbox, input_is_the_childs_stdin)
{
	char *argv[] = { "/bin/sh", "-c", "wc -c", NULL };
	static const char text[] = "line one\nline two\n";
	struct sandbox_limits lim = { .wall_s = 10, .output_cap = 4096, .input = text,
				      .input_len = sizeof(text) - 1 };
	struct child_result r;
	char err[256];
	cr_assert_eq(sandbox_run(argv, &lim, &r, err, sizeof(err)), 0, "%s", err);
	cr_expect_eq(atoi(r.output), 18, "%s", r.output);
	child_result_free(&r);
	lim.input = NULL;
	lim.input_len = 0;
	cr_assert_eq(sandbox_run(argv, &lim, &r, err, sizeof(err)), 0, "%s", err);
	cr_expect_eq(atoi(r.output), 0, "stdin is /dev/null: %s", r.output);
	child_result_free(&r);
}

/* The GPU a run names is the child's CUDA_VISIBLE_DEVICES, with or without
 * isolation; the grader's own environment is left as it was. */
Test(sandbox, the_gpu_reaches_the_child_only)
{
	char *argv[] = { "/bin/sh", "-c", "echo \"gpu=$CUDA_VISIBLE_DEVICES\"", NULL };
	struct isolation_policy plain = { .own_user = 1, .no_bwrap = 1 };
	const struct isolation_policy *policies[] = { NULL, &plain };
	setenv("CUDA_VISIBLE_DEVICES", "7", 1);
	for (int i = 0; i < 2; i++) {
		struct sandbox_limits lim = { .wall_s = 10, .output_cap = 4096, .isolation = policies[i],
					      .gpu = "3" };
		struct child_result r;
		char err[256];
		cr_assert_eq(sandbox_run(argv, &lim, &r, err, sizeof(err)), 0, "%s", err);
		cr_expect_str_eq(r.output, "gpu=3\n", "policy %d", i);
		child_result_free(&r);
		lim.gpu = NULL;
		cr_assert_eq(sandbox_run(argv, &lim, &r, err, sizeof(err)), 0, "%s", err);
		cr_expect_str_eq(r.output, "gpu=7\n", "no GPU named: the grader's own (policy %d)", i);
		child_result_free(&r);
	}
	cr_expect_str_eq(getenv("CUDA_VISIBLE_DEVICES"), "7", "the grader's environment changed");
	unsetenv("CUDA_VISIBLE_DEVICES");
}

/* A channel made ready for a large report holds what the child wrote, and
 * no more: the reserved pages past it are not part of the report. */
Test(sandbox, a_reserved_channel_holds_what_was_written, .timeout = 30)
{
	char *argv[] = { "/bin/sh", "-c", "head -c 3000000 /dev/zero | tr '\\0' x >&3; printf end >&3", NULL };
	struct sandbox_limits lim = { .wall_s = 20, .output_cap = 4096, .with_channel = 1,
				      .channel_reserve = (size_t)64 << 20 };
	struct child_result res;
	char err[256];
	cr_assert_eq(sandbox_run(argv, &lim, &res, err, sizeof(err)), 0, "%s", err);
	cr_expect(res.exited && res.exit_status == 0, "%s", res.output);
	cr_assert_eq(res.channel_len, 3000003, "the channel holds %zu bytes", res.channel_len);
	cr_expect_eq(res.channel[0], 'x');
	cr_expect_eq(res.channel[2999999], 'x');
	cr_expect_eq(memcmp(res.channel + 3000000, "end", 3), 0);
	child_result_free(&res);
}
