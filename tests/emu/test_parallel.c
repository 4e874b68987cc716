/*
 * Launches whose blocks run in forked worker processes (blocks_parallel.c):
 * the programs of tests/emu/parallel/, run with CUEMU_WORKERS=1 (the serial
 * path) and 2, must print the same, fail the same and exit the same.
 */
#include <criterion/criterion.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "emu_test.h"

/* Runs a program of tests/emu/parallel/ with workers and an argument;
 * returns its status, and its output (stdout then stderr, addresses
 * blanked: device memory's place differs from run to run) in *out. */
static int run_par(const char *prog, const char *arg, int workers, char **out)
{
	char cmd[1024];
	snprintf(cmd, sizeof cmd, "CUEMU_QUIET=0 CUEMU_KERNEL_TIMEOUT=1 CUEMU_WORKERS=%d %s/%s %s",
		 workers, CUEMU_PAR_DIR, prog, arg);
	int status = run_command(cmd, out);
	regex_t re;
	regmatch_t m;
	cr_assert_eq(regcomp(&re, "0x[0-9a-f]{6,}", REG_EXTENDED), 0);
	for (char *p = *out; regexec(&re, p, 1, &m, 0) == 0; p += m.rm_eo)
		memset(p + m.rm_so, 'X', (size_t)(m.rm_eo - m.rm_so));
	regfree(&re);
	return status;
}

/* The same status and output serially and with two workers; returns the
 * parallel run's output (malloc'd). */
static char *same_both_ways(const char *prog, const char *arg, int want_status)
{
	char *serial, *par;
	int s1 = run_par(prog, arg, 1, &serial);
	int s2 = run_par(prog, arg, 2, &par);
	cr_assert_eq(s1, want_status, "serial %s %s: status %d\n%s", prog, arg, s1, serial);
	cr_assert_eq(s2, s1, "%s %s: status %d with 2 workers, %d serially\n%s", prog, arg, s2, s1, par);
	cr_assert_str_eq(par, serial, "%s %s: with 2 workers\n%s\nserially\n%s", prog, arg, par, serial);
	free(serial);
	return par;
}

Test(parallel, blocks_run_in_two_worker_processes)
{
	char *out;
	cr_assert_eq(run_par("blocks", "who", 2, &out), 0, "%s", out);
	cr_assert(strstr(out, "processes 2, this one among them 0"), "%s", out);
	free(out);
	cr_assert_eq(run_par("blocks", "who", 1, &out), 0, "%s", out);
	cr_assert(strstr(out, "processes 1, this one among them 1"), "%s", out);
	free(out);
}

/* same_both_ways, and the parallel run's output says each of said (a
 * NULL-ended list). */
static void both_ways_say(const char *prog, const char *arg, int want_status, const char *const *said)
{
	char *out = same_both_ways(prog, arg, want_status);
	for (int i = 0; said[i]; i++)
		cr_expect(strstr(out, said[i]), "%s %s does not say \"%s\":\n%s", prog, arg, said[i], out);
	free(out);
}

Test(parallel, disjoint_outputs_are_the_same_bytes)
{
	both_ways_say("blocks", "disjoint", 0, (const char *const[]){ "hash ", NULL });
}

Test(parallel, atomics_give_the_exact_total_in_serial_order)
{
	/* 131072 increments, a float sum whose bits depend on the order, and
	 * each block's ticket: all as the serial run has them. */
	both_ways_say("blocks", "count", 0, (const char *const[]){ "total 131072 ", NULL });
}

Test(parallel, the_first_fault_in_block_order_is_reported)
{
	/* Every block from 300 on faults; the serial run meets block 300's first. */
	both_ways_say("blocks", "oob", 3,
		      (const char *const[]){ "error cudaErrorIllegalAddress",
					     "fault kernel oob, block (300,0,0), thread (7,0,0)",
					     "cuemu: kernel oob, block (300,0,0)", NULL });
}

Test(parallel, a_fault_that_does_not_end_the_launch_is_reported_from_its_first_block)
{
	both_ways_say("blocks", "mask", 3,
		      (const char *const[]){ "error cudaErrorLaunchFailure",
					     "fault kernel mask, block (300,0,0): the warp intrinsic", NULL });
}

Test(parallel, a_device_variable_makes_the_launch_serial)
{
	both_ways_say("device_var", "", 0, (const char *const[]){ "total 43691 in this process 1", NULL });
}

Test(parallel, a_chained_scan_waits_for_earlier_blocks)
{
	both_ways_say("blocks", "chained", 0, (const char *const[]){ "scan right", NULL });
}

Test(parallel, a_later_block_spinning_on_an_earlier_one_does_not_count_for_the_watchdog)
{
	/* 0.4 s of CPU serially, under CUEMU_KERNEL_TIMEOUT=1; three workers
	 * (on two cores) spin for several times that, waiting for flags. */
	char *serial, *par;
	cr_assert_eq(run_par("blocks", "chained 80", 1, &serial), 0, "%s", serial);
	cr_assert_eq(run_par("blocks", "chained 80", 3, &par), 0, "%s", par);
	cr_assert_str_eq(par, serial);
	free(serial);
	free(par);
}

Test(parallel, printf_comes_out_in_block_order)
{
	both_ways_say("blocks", "printf", 0,
		      (const char *const[]){ "block 0 says hello\nblock 37 says hello\n",
					     "block 481 says hello\nafter\n", NULL });
}

Test(parallel, a_hang_is_stopped_by_the_watchdog_and_leaves_no_process, .timeout = 60)
{
	both_ways_say("blocks", "hang", 86,
		      (const char *const[]){ "cuemu: kernel hang has run for 1 s of CPU time and is still going: "
					     "block (200,0,0), thread (3,0,0) was at blocks.cu:", NULL });
	char cmd[512], *out;
	snprintf(cmd, sizeof cmd, "pgrep -f '^%s/blocks hang' || true", CUEMU_PAR_DIR);
	run_command(cmd, &out);
	cr_assert_str_eq(out, "", "workers left behind: %s", out);
	free(out);
}

Test(parallel, a_process_limit_falls_back_to_fewer_workers_or_serial)
{
	/* RLIMIT_NPROC binds no root: run as nobody, where one can be root;
	 * from a copy of the program in a folder of its own, since nobody may
	 * not enter the kit's folders where they are private (CI's clone). */
	char cmd[1024], dir[] = "/tmp/cuemu-nproc-XXXXXX", *out[3] = { NULL, NULL, NULL };
	int status[3] = { -1, -1, -1 };
	if (geteuid() != 0 || system("command -v setpriv >/dev/null") != 0)
		cr_skip_test("needs root and setpriv to run as another user");
	cr_assert_not_null(mkdtemp(dir));
	snprintf(cmd, sizeof cmd, "chmod 755 %s && cp %s/blocks %s/ && chmod 755 %s/blocks", dir,
		 CUEMU_PAR_DIR, dir, dir);
	int copied = system(cmd) == 0;
	for (int lim = 1; copied && lim <= 2; lim++) {
		/* the program is 1 process: no worker can start, then one */
		snprintf(cmd, sizeof cmd, "setpriv --reuid=65534 --regid=65534 --clear-groups bash -c "
			 "'ulimit -u %d; CUEMU_WORKERS=2 exec %s/blocks who'", lim, dir);
		status[lim] = run_command(cmd, &out[lim]);
	}
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	cr_expect_eq(system(cmd), 0, "%s is left", dir);
	cr_assert(copied, "cannot copy the program into %s", dir);
	const char *want[] = { "", "processes 1, this one among them 1",
			       "processes 1, this one among them 0" };
	for (int lim = 1; lim <= 2; lim++) {
		cr_expect_eq(status[lim], 0, "limit %d: %s", lim, out[lim]);
		cr_expect(out[lim] && strstr(out[lim], want[lim]), "limit %d: %s", lim, out[lim]);
		free(out[lim]);
	}
}
