/*
 * mk/deps.sh, the check before the first build: on a PATH that lacks a
 * tool, it names it and prints the install command for Debian/Ubuntu and
 * for Fedora; grading does not ask for Criterion.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sys/kit_paths.h"
#include "test_support.h"

static char bin[64];

/* A folder of links to the named programs (and pkg-config where it is
 * installed; deps.sh looks for headers without it): a PATH with only those. */
static void path_of(const char *const *programs)
{
	test_temp_dir(bin, sizeof(bin), "kit-deps");
	char cmd[512];
	snprintf(cmd, sizeof(cmd), "p=$(command -v pkg-config) && ln -s \"$p\" %s/pkg-config", bin);
	(void)!system(cmd);
	for (int i = 0; programs[i]; i++) {
		snprintf(cmd, sizeof(cmd), "p=$(command -v %s) && ln -s \"$p\" %s/%s", programs[i], bin,
			 programs[i]);
		cr_assert_eq(system(cmd), 0, "%s is not installed here", programs[i]);
	}
}

static void remove_bin(void)
{
	if (bin[0])
		remove_tree(bin);
}

TestSuite(deps, .fini = remove_bin);

/* Runs mk/deps.sh WHAT on a PATH of only programs, never installing; its
 * stderr in out (4096 bytes). Returns its exit status. */
static int deps(const char *const *programs, const char *what, char *out)
{
	const size_t len = 4096;
	char cmd[1024];
	path_of(programs);
	snprintf(cmd, sizeof(cmd), "cd '%s' && KIT_NO_INSTALL=1 PATH=%s /bin/sh mk/deps.sh %s 2>&1",
		 getenv("KIT_ROOT") ?: ".", bin, what);
	FILE *p = popen(cmd, "r");
	cr_assert_not_null(p);
	size_t n = fread(out, 1, len - 1, p);
	out[n] = '\0';
	int status = pclose(p);
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

Test(deps, a_missing_make_is_named_with_both_commands)
{
	char out[4096];
	cr_expect_eq(deps((const char *const[]){ "gcc", NULL }, "grade", out), 1, "%s", out);
	cr_expect_not_null(strstr(out, "missing for the grader: make"), "%s", out);
	cr_expect_not_null(strstr(out, "Debian/Ubuntu:  sudo apt-get install make"), "%s", out);
	cr_expect_not_null(strstr(out, "Fedora:         sudo dnf install make"), "%s", out);
}

Test(deps, a_missing_compiler_is_named)
{
	char out[4096];
	cr_expect_eq(deps((const char *const[]){ "make", NULL }, "grade", out), 1, "%s", out);
	cr_expect_not_null(strstr(out, "missing for the grader: gcc"), "%s", out);
}

/* gnuplot and bubblewrap are optional: named, with the command, exit 0. */
Test(deps, optional_programs_do_not_stop_the_build)
{
	char out[4096];
	cr_expect_eq(deps((const char *const[]){ "gcc", "make", NULL }, "grade", out), 0, "%s", out);
	cr_expect_not_null(strstr(out, "not installed: gnuplot-nox bubblewrap"), "%s", out);
	cr_expect_not_null(strstr(out, "sudo dnf install gnuplot bubblewrap"), "%s", out);
	cr_expect_null(strstr(out, "criterion"), "grading asked for Criterion: %s", out);
}

Test(deps, an_unknown_request_is_a_usage_error)
{
	char out[4096];
	cr_expect_eq(deps((const char *const[]){ "gcc", "make", NULL }, "everything", out), 2, "%s", out);
	cr_expect_not_null(strstr(out, "usage"), "%s", out);
}
