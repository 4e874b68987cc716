/*
 * The command line's conventions, as a user meets them: ./grade run as a
 * program. --version, a usage error in two lines, the labs named from the
 * lab table, the backend that was asked for in the header, and stderr's
 * chart lines after the report, once when charts are skipped.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "grade_runner.h"
#include "labs/lab.h"
#include "cli/version.h"

/* Runs `cd KIT_ROOT && CMD` in sh; its output (as CMD redirects it) in
 * out. Returns the exit status. */
static int sh(const char *cmd, char *out, size_t len)
{
	char full[2048];
	snprintf(full, sizeof(full), "cd '%s' && %s", getenv("KIT_ROOT") ?: ".", cmd);
	FILE *p = popen(full, "r");
	cr_assert_not_null(p, "popen %s", full);
	size_t n = fread(out, 1, len - 1, p);
	out[n] = '\0';
	int status = pclose(p);
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static int count_lines(const char *s)
{
	int n = 0;
	for (; *s; s++)
		n += *s == '\n';
	return n;
}

Test(cli, version_names_the_kit_and_its_commit)
{
	char out[512], head[64] = "", want[128];
	cr_assert_eq(sh("./grade --version", out, sizeof(out)), 0);
	snprintf(want, sizeof(want), "CUDA lab kit %s (commit ", KIT_VERSION);
	cr_assert_eq(strncmp(out, want, strlen(want)), 0, "%s", out);
	cr_expect_eq(count_lines(out), 1, "%s", out);
	/* In the kit's own git clone, the commit is the one checked out. */
	if (sh("[ \"$(git rev-parse --show-toplevel 2>/dev/null)\" = \"$(pwd -P)\" ] && "
	       "git rev-parse --short=12 HEAD", head, sizeof(head)) == 0 && head[0]) {
		head[strcspn(head, "\n")] = '\0';
		cr_expect_not_null(strstr(out, head), "%s does not name %s", out, head);
	} else {
		cr_expect_not_null(strstr(out, "(commit unknown)"), "%s", out);
	}
}

Test(cli, a_usage_error_is_one_line_and_a_hint)
{
	char out[4096];
	cr_expect_eq(sh("./grade lab1 --no-such-option 2>&1 >/dev/null", out, sizeof(out)), 2);
	cr_expect_eq(count_lines(out), 2, "%s", out);
	cr_expect_not_null(strstr(out, "--no-such-option"), "%s", out);
	cr_expect_not_null(strstr(out, "\ntry ./grade --help\n"), "%s", out);
	cr_expect_eq(sh("./grade lab1 --seed 2>&1", out, sizeof(out)), 2);
	cr_expect_eq(count_lines(out), 2, "%s", out);
}

Test(cli, no_lab_names_every_lab_of_the_table)
{
	char out[4096];
	cr_expect_eq(sh("./grade 2>&1", out, sizeof(out)), 2);
	cr_expect_eq(count_lines(out), 2, "%s", out);
	for (int i = 0; lab_table[i]; i++)
		cr_expect_not_null(strstr(out, lab_table[i]->id), "%s is not named: %s", lab_table[i]->id,
				   out);
}

Test(cli, backend_cuda_without_a_gpu_says_cuda, .timeout = 120)
{
	char out[8192], why[256];
	if (have_gpu(why, sizeof(why)))
		cr_skip_test("a GPU is here: --backend cuda grades on it");
	cr_expect_eq(sh("./grade lab1 --solution --backend cuda --plot none 2>/dev/null", out,
			sizeof(out)), 4);
	cr_expect_not_null(strstr(out, "backend     cuda"), "%s", out);
	cr_expect_null(strstr(out, "backend     auto"), "%s", out);
}

/* stdout and stderr into one pipe, as CI and `2>&1 | tee` have them: each
 * chart line whole, after the report; "charts skipped" once. */
static void charts_after_the_report(const char *env, int want_skipped)
{
	char cmd[256], out[65536];
	snprintf(cmd, sizeof(cmd), "%s ./grade lab1 --solution --plot svg --seed 7 2>&1", env);
	cr_assert_eq(sh(cmd, out, sizeof(out)), 0, "%s", out);
	const char *score = strstr(out, "\nScore: ");
	cr_assert_not_null(score, "%s", out);
	int charts = 0, skipped = 0;
	for (const char *line = out; *line; line = strchr(line, '\n') + 1) {
		int is_chart = strncmp(line, "chart", 5) == 0;
		charts += is_chart;
		skipped += strncmp(line, "charts skipped", 14) == 0;
		if (is_chart)
			cr_expect(line > score, "a chart line before the report's end:\n%s", out);
		const char *in = strstr(line, "chart: ");
		cr_expect(!in || in == line || in > strchr(line, '\n'), "a split line:\n%s", out);
		if (!strchr(line, '\n'))
			break;
	}
	cr_expect(charts >= 1, "no chart line:\n%s", out);
	cr_expect_eq(skipped, want_skipped, "%s", out);
}

Test(cli, chart_lines_come_after_the_report, .timeout = 300)
{
	charts_after_the_report("", system("command -v gnuplot >/dev/null") == 0 ? 0 : 1);
}

Test(cli, charts_skipped_is_said_once, .timeout = 300)
{
	charts_after_the_report("GNUPLOT=/nonexistent/gnuplot", 1);
}
