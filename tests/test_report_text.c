/* The terminal report: what a student reads first. */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "steps/grade.h"
#include "report/report_text.h"

static const struct lab lab3 = {
	.id = "lab3", .dir = "lab3-transpose", .file = "transpose.cu",
	.title = "Coalesced matrix transpose", .rank = 2,
};

static struct grade g;

static void setup(void)
{
	grade_init(&g, &lab3);
	g.backend = BACKEND_CUDA;
	snprintf(g.device, sizeof(g.device), "NVIDIA H100 80GB HBM3");
	snprintf(g.submission, sizeof(g.submission), "labs/lab3-transpose/transpose.cu");
	snprintf(g.band_source, sizeof(g.band_source),
		 "the rubric's band for this GPU: 60%% to 85%% of copy");
	g.seed = 42;
}

static void teardown(void)
{
	grade_free(&g);
}

TestSuite(report_text, .init = setup, .fini = teardown);

/* build 10, integrity 10, correctness 2 x 20, performance 40: 100. */
static void add_passing(void)
{
	test_pass(grade_add_test(&g, "build", GROUP_BUILD, 10), NULL);
	test_pass(grade_add_test(&g, "symbols", GROUP_INTEGRITY, 10), NULL);
	test_pass(grade_add_test(&g, "correctness 1", GROUP_CORRECTNESS, 20), NULL);
	test_pass(grade_add_test(&g, "correctness 31x33", GROUP_CORRECTNESS, 20), NULL);
	test_pass(grade_add_test(&g, "performance 16384x16384", GROUP_PERFORMANCE, 40),
		  "92%% of copy");
}

static char *render(int colour)
{
	static char *buf;
	size_t len;
	free(buf);
	FILE *f = open_memstream(&buf, &len);
	report_text(f, &g, colour);
	fclose(f);
	return buf;
}

/* The line that contains needle, as a fresh string (without newline). */
static char *line_with(const char *text, const char *needle)
{
	static char line[2048];
	const char *hit = strstr(text, needle);
	cr_assert_not_null(hit, "no line with '%s' in:\n%s", needle, text);
	const char *start = hit;
	while (start > text && start[-1] != '\n')
		start--;
	size_t n = strcspn(start, "\n");
	snprintf(line, sizeof(line), "%.*s", (int)n, start);
	return line;
}

/* The line after the one that contains needle. */
static char *line_after(const char *text, const char *needle)
{
	const char *hit = strstr(text, needle);
	cr_assert_not_null(hit);
	const char *nl = strchr(hit, '\n');
	cr_assert_not_null(nl);
	return line_with(nl + 1, "");
}

Test(report_text, a_passing_grade)
{
	add_passing();
	char *out = render(0);
	cr_assert_not_null(strstr(out, "lab3: Coalesced matrix transpose\n"), "%s", out);
	cr_assert_not_null(strstr(out, "NVIDIA H100 80GB HBM3"));
	cr_assert_not_null(strstr(out, "labs/lab3-transpose/transpose.cu"));
	cr_assert_not_null(strstr(out, "./grade lab3 --seed 42"));
	cr_assert_not_null(strstr(out, "the rubric's band for this GPU: 60% to 85% of copy"));
	cr_assert_not_null(strstr(line_with(out, "correctness 31x33"), "PASS"));
	cr_assert_not_null(strstr(line_with(out, "correctness 31x33"), "20 / 20"));
	cr_assert_null(strstr(out, "FAIL"));
	cr_assert_not_null(strstr(out, "\nScore: 100 / 100\n"), "%s", out);
	cr_assert_not_null(strstr(out, "\nAll 5 tests passed.\n"), "%s", out);
	cr_assert_null(strchr(out, '\033'), "colour without being asked");
	/* A passed performance test still shows what it measured. */
	cr_assert_not_null(strstr(out, "92% of copy"), "%s", out);
}

Test(report_text, a_failing_grade_shows_why_under_the_test)
{
	add_passing();
	struct test_result *t = &g.tests[3];
	test_fail(t, "out[7][3] (row 7, col 3): expected 1.5, got 0\ninput: seed 42");
	g.tests[4].points = 7.5;
	char *out = render(0);
	char *row = line_with(out, "correctness 31x33");
	cr_assert_not_null(strstr(row, "FAIL"), "%s", row);
	cr_assert_not_null(strstr(row, "0 / 20"), "%s", row);
	cr_assert_str_eq(line_after(out, "correctness 31x33"),
			 "        out[7][3] (row 7, col 3): expected 1.5, got 0");
	cr_assert_str_eq(line_after(out, "got 0"), "        input: seed 42");
	cr_assert_not_null(strstr(line_with(out, "performance 16384"), "7.5 / 40"));
	cr_assert_not_null(strstr(out, "\nScore: 47.5 / 100\n"), "%s", out);
	cr_assert_not_null(strstr(out, "1 of 5 tests did not pass (first: correctness 31x33). "
				       "Same inputs again: ./grade lab3 --seed 42\n"), "%s", out);
}

Test(report_text, groups_come_in_the_order_a_student_reads_them)
{
	test_pass(grade_add_test(&g, "t-analysis", GROUP_ANALYSIS, 1), NULL);
	test_pass(grade_add_test(&g, "t-performance", GROUP_PERFORMANCE, 1), NULL);
	test_pass(grade_add_test(&g, "t-correctness", GROUP_CORRECTNESS, 1), NULL);
	test_pass(grade_add_test(&g, "t-integrity", GROUP_INTEGRITY, 1), NULL);
	test_pass(grade_add_test(&g, "t-build", GROUP_BUILD, 1), NULL);
	char *out = render(0);
	const char *order[] = {"t-build", "t-integrity", "t-correctness", "t-performance",
			       "t-analysis"};
	for (int i = 1; i < 5; i++)
		cr_assert_lt(strstr(out, order[i - 1]), strstr(out, order[i]), "%s", out);
	/* Each group has its header with its subtotal above its tests. */
	cr_assert_lt(strstr(out, "  correctness "), strstr(out, "t-correctness"));
}

Test(report_text, a_build_failure_shows_the_compiler_output)
{
	struct test_result *t = grade_add_test(&g, "build", GROUP_BUILD, 10);
	test_fail(t, "the submission did not compile");
	grade_add_test(&g, "correctness 1", GROUP_CORRECTNESS, 90);	/* skipped */
	g.build_failed = 1;
	snprintf(g.build_log, sizeof(g.build_log),
		 "transpose.cu:12:5: error: 'tile' was not declared in this scope\n"
		 "   12 |     tile[ty][tx] = in[i];\n");
	char *out = render(0);
	cr_assert_not_null(strstr(out, "The compiler said:\n"
				       "transpose.cu:12:5: error: 'tile' was not declared in this scope\n"
				       "   12 |     tile[ty][tx] = in[i];\n"), "%s", out);
	cr_assert_not_null(strstr(line_with(out, "correctness 1"), "skipped"));
	cr_assert_not_null(strstr(out, "\nScore: 0 / 100\n"), "%s", out);
	cr_assert_not_null(strstr(out, "did not build"));
}

Test(report_text, no_build_log_without_a_build_failure)
{
	add_passing();
	snprintf(g.build_log, sizeof(g.build_log), "warning: unused variable 'x'\n");
	cr_assert_null(strstr(render(0), "unused variable"));
}

Test(report_text, an_emulated_grade_says_what_was_not_measured)
{
	add_passing();
	struct test_result *t = &g.tests[4];
	t->status = TEST_NOT_MEASURED;
	t->points = 0;
	snprintf(t->message, sizeof(t->message), "no GPU here: bandwidth needs the cuda backend");
	g.backend = BACKEND_EMU;
	snprintf(g.device, sizeof(g.device), "CPU emulator");
	char *out = render(0);
	char *row = line_with(out, "performance 16384x16384");
	cr_assert_not_null(strstr(row, "not measured"), "%s", row);
	/* One scale: what could not be measured scores 0 of its points. */
	cr_assert_not_null(strstr(row, " 0 / 40"), "%s", row);
	cr_assert_str_eq(line_after(out, "performance 16384x16384"),
			 "        no GPU here: bandwidth needs the cuda backend");
	cr_assert_not_null(strstr(out, "emu on CPU emulator"));
	cr_assert_not_null(strstr(out, "\nScore: 60 / 100  (40 of them could not be measured here, "
				       "and score 0)\n"), "%s", out);
	cr_assert_not_null(strstr(out, "1 of 5 tests did not pass (first: performance 16384x16384)"),
			   "%s", out);
	cr_assert_null(strstr(out, "FAIL"));
}

Test(report_text, an_internal_error_says_so)
{
	g.internal_error = 1;
	snprintf(g.internal_message, sizeof(g.internal_message),
		 "no CUDA device for --backend cuda");
	char *out = render(0);
	cr_assert_not_null(strstr(out, "The grader could not run this submission: no CUDA "
				       "device for --backend cuda\n"), "%s", out);
	cr_assert_not_null(strstr(out, "Not graded"), "%s", out);
}

/* Colour only wraps the verdicts: strip the escapes and the report is the
 * plain one, column for column. */
Test(report_text, colour_changes_nothing_but_the_colours)
{
	add_passing();
	test_fail(&g.tests[2], "wrong");
	g.tests[3].status = TEST_NOT_MEASURED;
	char plain[8192], stripped[8192];
	snprintf(plain, sizeof(plain), "%s", render(0));
	char *col = render(1);
	cr_assert_not_null(strstr(col, "\033[32mPASS\033[0m"));
	cr_assert_not_null(strstr(col, "\033[31mFAIL\033[0m"));
	cr_assert_not_null(strstr(col, "\033[33mnot measured\033[0m"));
	size_t o = 0;
	for (const char *p = col; *p; p++) {
		if (*p == '\033') {
			p += strspn(p + 1, "[0123456789;") + 1;	/* onto the final 'm' */
			continue;
		}
		stripped[o++] = *p;
	}
	stripped[o] = '\0';
	cr_assert_str_eq(stripped, plain);
}

Test(report_text, control_characters_from_messages_do_not_reach_the_terminal)
{
	add_passing();
	test_fail(&g.tests[2], "got \033[2J\033]0;pwned\007 instead");
	snprintf(g.submission, sizeof(g.submission), "evil\033[31m.cu");
	char *out = render(0);
	cr_assert_null(strchr(out, '\033'), "%s", out);
	cr_assert_null(strchr(out, '\007'));
	cr_assert_not_null(strstr(out, "got ?[2J?]0;pwned? instead"), "%s", out);
}

Test(report_text, points_without_noise)
{
	char b[32];
	cr_assert_str_eq(report_points(40, b, sizeof(b)), "40");
	cr_assert_str_eq(report_points(12.5, b, sizeof(b)), "12.5");
	cr_assert_str_eq(report_points(100.0 / 3, b, sizeof(b)), "33.33");
	cr_assert_str_eq(report_points(0.1 + 0.2, b, sizeof(b)), "0.3");
	cr_assert_str_eq(report_points(2.50, b, sizeof(b)), "2.5");
	cr_assert_str_eq(report_points(0, b, sizeof(b)), "0");
	cr_assert_str_eq(report_points(-0.001, b, sizeof(b)), "0");
	cr_assert_str_eq(report_points(1e6, b, sizeof(b)), "1000000");
}

Test(report_text, the_reproduce_command_names_what_was_graded)
{
	char b[700];
	cr_assert_str_eq(report_repro_command(&g, b, sizeof(b)), "./grade lab3 --seed 42");
	snprintf(g.submission, sizeof(g.submission), "/home/ann/kit/labs/lab3-transpose/");
	cr_assert_str_eq(report_repro_command(&g, b, sizeof(b)), "./grade lab3 --seed 42");
	snprintf(g.submission, sizeof(g.submission), "solutions/lab3-transpose/transpose.cu");
	cr_assert_str_eq(report_repro_command(&g, b, sizeof(b)),
			 "./grade lab3 --solution --seed 42");
	snprintf(g.submission, sizeof(g.submission), "subs/ann/transpose.cu");
	cr_assert_str_eq(report_repro_command(&g, b, sizeof(b)),
			 "./grade lab3 --submission subs/ann/transpose.cu --seed 42");
	/* Not fooled by a folder that merely ends the same way. */
	snprintf(g.submission, sizeof(g.submission), "mylabs/lab3-transpose/transpose.cu");
	cr_assert_str_eq(report_repro_command(&g, b, sizeof(b)),
			 "./grade lab3 --submission mylabs/lab3-transpose/transpose.cu --seed 42");
	snprintf(g.submission, sizeof(g.submission), "my dir/it's $HOME.cu");
	cr_assert_str_eq(report_repro_command(&g, b, sizeof(b)),
			 "./grade lab3 --submission 'my dir/it'\\''s $HOME.cu' --seed 42");
	g.seed = 18446744073709551615ull;
	snprintf(g.submission, sizeof(g.submission), "labs/lab3-transpose/transpose.cu");
	cr_assert_str_eq(report_repro_command(&g, b, sizeof(b)),
			 "./grade lab3 --seed 18446744073709551615");
}

/* report_use_colour: a terminal, no non-empty NO_COLOR, a TERM that is not dumb. */
Test(report_text, colour_only_on_a_terminal_without_NO_COLOR)
{
	int m = posix_openpt(O_RDWR | O_NOCTTY);
	cr_assert_geq(m, 0);
	cr_assert_eq(grantpt(m), 0);
	cr_assert_eq(unlockpt(m), 0);
	FILE *tty = fopen(ptsname(m), "w");
	cr_assert_not_null(tty);
	FILE *file = tmpfile();

	unsetenv("NO_COLOR");
	setenv("TERM", "xterm", 1);
	cr_assert_eq(report_use_colour(tty), 1);
	cr_assert_eq(report_use_colour(file), 0);
	setenv("NO_COLOR", "1", 1);
	cr_assert_eq(report_use_colour(tty), 0);
	setenv("NO_COLOR", "", 1);
	cr_assert_eq(report_use_colour(tty), 1, "an empty NO_COLOR is as if unset");
	setenv("TERM", "dumb", 1);
	cr_assert_eq(report_use_colour(tty), 0);
	fclose(tty);
	fclose(file);
	close(m);
}

/* no-color.org: only a non-empty NO_COLOR turns colour off; TERM=dumb too;
 * never colour where the report is not read on a terminal. */
Test(report_text, colour_follows_no_color_and_term_dumb)
{
	cr_expect(report_colour_wanted(1, NULL, "xterm-256color"));
	cr_expect(report_colour_wanted(1, "", "xterm"), "an empty NO_COLOR is as if unset");
	cr_expect(report_colour_wanted(1, NULL, NULL));
	cr_expect_not(report_colour_wanted(1, "1", "xterm"));
	cr_expect_not(report_colour_wanted(1, "0", "xterm"), "any non-empty value turns it off");
	cr_expect_not(report_colour_wanted(1, NULL, "dumb"));
	cr_expect_not(report_colour_wanted(0, NULL, "xterm"));
}
