/*
 * A single grade (./grade lab3 --submission FILE), as root where the
 * machine allows, against submissions aimed at the host:
 * nothing of /etc/shadow reaches the report, whether the file includes it
 * or is a link to it; a link out of its folder is refused, one inside it is
 * graded; the compiler's memory is capped with a clear verdict; a fork
 * bomb is bounded by the process limit, and nothing of it outlives the
 * grade.
 */
#include <criterion/criterion.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "grade_runner.h"
#include "test_support.h"
#include "sys/kit_paths.h"

static char tmp[64];

static void setup(void)
{
	test_temp_dir(tmp, sizeof(tmp), "test-hostile-single");
	chmod(tmp, 0755);
}

static void teardown(void)
{
	remove_tree(tmp);
}

/* The first line of /etc/shadow when this process can read it ("" if not:
 * then there is nothing to leak, and the checks pass trivially). */
static void shadow_line(char *buf, size_t len)
{
	FILE *f = fopen("/etc/shadow", "r");
	buf[0] = '\0';
	if (f && fgets(buf, (int)len, f))
		buf[strcspn(buf, "\n")] = '\0';
	if (f)
		fclose(f);
}

/* Whether the report, or what ./grade printed, holds secret. */
static int leaked(const struct graded *g, const char *secret)
{
	if (!secret[0])
		return 0;
	char *json = g->report ? json_dumps(g->report, 0) : NULL;
	int found = strstr(g->output, secret) || (json && strstr(json, secret));
	free(json);
	return found;
}

Test(hostile_single, include_of_etc_shadow_leaks_nothing, .init = setup, .fini = teardown, .timeout = 120)
{
	if (!have_emulator())
		cr_skip_test("the emulator is not built: run make");
	char secret[512], file[PATH_MAX];
	shadow_line(secret, sizeof(secret));
	struct graded g;
	kit_path(file, sizeof(file), "tests/fixtures/hostile/include_shadow.cu");
	cr_assert_eq(run_grade("lab3", file, "emu", NULL, &g), 0);
	cr_expect_eq(g.exit_status, 3, "%s", g.output);
	cr_expect(!leaked(&g, secret), "/etc/shadow's first line is in the report:\n%s", g.output);
	graded_free(&g);
}

Test(hostile_single, a_link_out_of_its_folder_is_refused, .init = setup, .fini = teardown, .timeout = 120)
{
	if (!have_emulator())
		cr_skip_test("the emulator is not built: run make");
	char secret[512], dir[128], link[192];
	shadow_line(secret, sizeof(secret));
	snprintf(dir, sizeof(dir), "%s/student", tmp);
	snprintf(link, sizeof(link), "%s/transpose.cu", dir);
	cr_assert_eq(mkdir(dir, 0755), 0);
	cr_assert_eq(symlink("/etc/shadow", link), 0);
	struct graded g;
	cr_assert_eq(run_grade("lab3", dir, "emu", NULL, &g), 0);
	cr_expect_eq(g.exit_status, 2, "%s", g.output);
	cr_expect_not_null(strstr(g.output, "symbolic link to a file outside its folder"), "%s", g.output);
	cr_expect(!leaked(&g, secret), "/etc/shadow's first line is in the report:\n%s", g.output);
	graded_free(&g);
}

/* Legal: a link to a file beside it (an editor's backup scheme). */
Test(hostile_single, a_link_inside_its_folder_is_graded, .init = setup, .fini = teardown, .timeout = 300)
{
	if (!have_emulator())
		cr_skip_test("the emulator is not built: run make");
	char dir[128], real[192], link[192], cmd[PATH_MAX + 256], src[PATH_MAX];
	snprintf(dir, sizeof(dir), "%s/student", tmp);
	snprintf(real, sizeof(real), "%s/mine.cu", dir);
	snprintf(link, sizeof(link), "%s/transpose.cu", dir);
	cr_assert_eq(mkdir(dir, 0755), 0);
	snprintf(cmd, sizeof(cmd), "cp '%s' '%s'", kit_path(src, sizeof(src), "tests/fixtures/lab3/padded.cu"),
		 real);
	cr_assert_eq(system(cmd), 0);
	cr_assert_eq(symlink("mine.cu", link), 0);
	struct graded g;
	cr_assert_eq(run_grade("lab3", dir, "emu", NULL, &g), 0);
	cr_expect_not_null(g.report, "%s", g.output);
	if (g.report)
		cr_expect_str_eq(group_verdict(g.report, "correctness"), "pass", "%s", g.output);
	graded_free(&g);
}

Test(hostile_single, include_of_dev_zero_is_stopped_by_the_memory_limit, .init = setup, .fini = teardown,
     .timeout = 120)
{
	if (!have_emulator())
		cr_skip_test("the emulator is not built: run make");
	char file[PATH_MAX];
	struct graded g;
	kit_path(file, sizeof(file), "tests/fixtures/hostile/include_dev_zero.cu");
	cr_assert_eq(run_grade("lab3", file, "emu", NULL, &g), 0);
	cr_expect_eq(g.exit_status, 3, "%s", g.output);
	cr_expect_not_null(strstr(g.output, "ran out of memory"), "%s", g.output);
	graded_free(&g);
}


/* As root the single grade used to run the harness as root: no process
 * limit at all. Contained, the bomb returns without writing d_out. */
Test(hostile_single, a_hidden_fork_bomb_is_bounded, .init = setup, .fini = teardown, .timeout = 300)
{
	if (!have_emulator())
		cr_skip_test("the emulator is not built: run make");
	char file[PATH_MAX], why[512];
	struct graded g;
	kit_path(file, sizeof(file), "tests/fixtures/hostile/fork_bomb_hidden.cu");
	cr_assert_eq(run_grade("lab3", file, "emu", NULL, &g), 0);
	cr_assert_not_null(g.report, "%s", g.output);
	cr_expect_geq(check_expectations(file, "exit-group", g.report, why, sizeof(why)), 1, "%s\n%s", why,
		      g.output);
	cr_expect_not_null(strstr(g.output, "never written"), "the bomb was not contained:\n%s", g.output);
	cr_expect_eq(processes_named("hostile-bomb"), 0, "children of the bomb outlived the grade");
	graded_free(&g);
}
