/*
 * ./grade LAB --run and --only: the student's file built with its own main() and run
 * in the sandbox, its output shown, nothing graded; a file without a main()
 * is told so.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sys/kit_paths.h"

/* Runs ./grade with args in the kit; its stdout and stderr in out (malloc'd). */
static int grade_run(const char *args, char **out)
{
	char kit[1024], cmd[2048];
	kit_path(kit, sizeof(kit), "");
	snprintf(cmd, sizeof(cmd), "cd '%s' && ./grade %s 2>&1", kit, args);
	FILE *p = popen(cmd, "r");
	cr_assert_not_null(p);
	size_t cap = 1 << 16, n = 0;
	*out = calloc(1, cap + 1);
	n = fread(*out, 1, cap, p);
	(*out)[n] = '\0';
	int st = pclose(p);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void need_emulator(void)
{
	char cc[1024];
	if (access(kit_path(cc, sizeof(cc), "build/emu/cuemu-cc"), X_OK) != 0)
		cr_skip_test("the emulator is not built (build/emu/cuemu-cc): run make");
}

Test(run_program, a_files_own_main_runs_and_is_shown, .timeout = 300)
{
	char *out;
	need_emulator();
	int rc = grade_run("lab3 --submission tests/fixtures/lab3/with_main.cu --run --backend emu", &out);
	cr_expect_eq(rc, 0, "%s", out);
	cr_expect(strstr(out, "ok\n"), "the program's own output is shown:\n%s", out);
	cr_expect(strstr(out, "exited with status 0"), "%s", out);
	cr_expect_null(strstr(out, "Score:"), "nothing is graded:\n%s", out);
	free(out);
}

Test(run_program, a_file_without_main_is_told_so, .timeout = 300)
{
	char *out;
	need_emulator();
	int rc = grade_run("lab3 --submission tests/fixtures/lab3/padded.cu --run --backend emu", &out);
	cr_expect_eq(rc, 3, "%s", out);
	cr_expect(strstr(out, "has no main()"), "%s", out);
	free(out);
}

/* --only SHAPE: the correctness tests of that size alone, as cachelab's
 * test-trans -M -N; a size of the wrong form is a usage error. */
Test(run_program, only_one_size_is_checked, .timeout = 300)
{
	char *out;
	need_emulator();
	int rc = grade_run("lab3 --solution --only 31x33 --backend emu --plot none --no-analysis", &out);
	cr_expect(rc == 0 || rc == 1, "graded (exit %d):\n%s", rc, out);
	cr_expect(strstr(out, "correctness 31x33"), "%s", out);
	cr_expect_null(strstr(out, "correctness 1x1 "), "no other size ran:\n%s", out);
	cr_expect(strstr(out, "not the lab's grade"), "%s", out);
	free(out);
	rc = grade_run("lab3 --only 31 --backend emu", &out);
	cr_expect_eq(rc, 2, "a transpose's size is ROWSxCOLS:\n%s", out);
	cr_expect(strstr(out, "ROWSxCOLS"), "%s", out);
	free(out);
}

/* A student's printf, in the entry point or a kernel, is shown under the
 * test it printed in, in the report and in the JSON. */
Test(run_program, what_the_program_printed_is_shown, .timeout = 300)
{
	char *out;
	need_emulator();
	int rc = grade_run("lab3 --submission tests/fixtures/lab3/printf_kernel.cu --backend emu --plot none "
			   "--no-analysis --only 31x33", &out);
	cr_expect(rc == 0 || rc == 1, "graded (exit %d):\n%s", rc, out);
	cr_expect(strstr(out, "Your program printed"), "%s", out);
	cr_expect(strstr(out, "transpose(31, 33)"), "the entry point's printf:\n%s", out);
	cr_expect(strstr(out, "kernel says hello"), "the kernel's printf:\n%s", out);
	free(out);
}
