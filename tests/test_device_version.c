/*
 * Two answers ./grade gives about itself: --device's exit status (0 when a
 * GPU will grade, 1 when the emulator will, as README.md and --help say),
 * and --version's "-modified", which a student's edit of their own lab file
 * must not set, and an edit of the kit must (mk/kit_commit.sh, which the
 * Makefile's build/kit-commit runs).
 */
#include <criterion/criterion.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "sys/kit_paths.h"
#include "test_support.h"

/* sh -c CMD in the kit's root; its stdout in out. Returns the exit status. */
static int run(const char *cmd, char *out, size_t len)
{
	char full[4 * PATH_MAX], root[PATH_MAX];
	snprintf(full, sizeof(full), "cd '%s' && %s", kit_path(root, sizeof(root), "."), cmd);
	FILE *p = popen(full, "r");
	cr_assert_not_null(p, "popen %s", full);
	size_t n = fread(out, 1, len - 1, p);
	out[n] = '\0';
	int status = pclose(p);
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

Test(device_version, device_exit_status_is_documented)
{
	char out[4096];
	int rc = run("./grade --device 2>/dev/null", out, sizeof(out));
	int no_gpu = strncmp(out, "no CUDA GPU here", 16) == 0;
	cr_expect_eq(rc, no_gpu ? 1 : 0, "--device said '%s' and exited %d", out, rc);
	cr_assert_eq(run("./grade --help", out, sizeof(out)), 0);
	cr_expect_not_null(strstr(out, "exit 0 with a GPU, 1 without"), "--help does not say it: %s", out);
	cr_assert_eq(run("grep -c 'question instead: 0 when a GPU will grade, 1 when the emulator will' "
			 "README.md", out, sizeof(out)), 0, "README.md's exit statuses do not say it");
}

static void commit_of(const char *clone, char *out, size_t len)
{
	char cmd[2 * PATH_MAX];
	snprintf(cmd, sizeof(cmd), "sh mk/kit_commit.sh '%s'", clone);
	cr_assert_eq(run(cmd, out, len), 0, "%s", cmd);
	out[strcspn(out, "\n")] = '\0';
}

Test(device_version, a_students_edit_is_not_a_modified_kit, .timeout = 120)
{
	char dir[PATH_MAX], clone[PATH_MAX + 8], cmd[4 * PATH_MAX], head[64], got[128], root[PATH_MAX];
	if (run("git rev-parse --verify -q HEAD >/dev/null", got, sizeof(got)) != 0)
		cr_skip_test("the kit is not a git checkout here");
	test_temp_dir(dir, sizeof(dir), "kit-commit");
	snprintf(clone, sizeof(clone), "%s/kit", dir);
	snprintf(cmd, sizeof(cmd), "git clone -q --shared '%s' '%s' && git -C '%s' rev-parse --short=12 HEAD",
		 kit_path(root, sizeof(root), "."), clone, clone);
	cr_assert_eq(run(cmd, head, sizeof(head)), 0, "%s", cmd);
	head[strcspn(head, "\n")] = '\0';

	commit_of(clone, got, sizeof(got));
	cr_expect_str_eq(got, head, "a fresh clone");

	snprintf(cmd, sizeof(cmd), "echo '/* my work */' >> '%s/labs/lab1-naive-scan/scan.cu' && "
		 "echo '/* more */' >> '%s/labs/lab3-transpose/transpose.cu'", clone, clone);
	cr_assert_eq(run(cmd, got, sizeof(got)), 0);
	commit_of(clone, got, sizeof(got));
	cr_expect_str_eq(got, head, "a student's own lab files made the kit '-modified'");

	snprintf(cmd, sizeof(cmd), "echo '; mine' >> '%s/labs/lab1-naive-scan/lab.ini'", clone);
	cr_assert_eq(run(cmd, got, sizeof(got)), 0);
	commit_of(clone, got, sizeof(got));
	char want[128];
	snprintf(want, sizeof(want), "%s-modified", head);
	cr_expect_str_eq(got, want, "an edited rubric is a modified kit");

	snprintf(cmd, sizeof(cmd), "git -C '%s' checkout -q labs/lab1-naive-scan/lab.ini && "
		 "echo '/* x */' >> '%s/grader/cli/version.c'", clone, clone);
	cr_assert_eq(run(cmd, got, sizeof(got)), 0);
	commit_of(clone, got, sizeof(got));
	cr_expect_str_eq(got, want, "an edited grader is a modified kit");

	commit_of(dir, got, sizeof(got));
	cr_expect_str_eq(got, "unknown", "a folder that is no clone of the kit");
	remove_tree(dir);
}
