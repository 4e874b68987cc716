/*
 * The gradebook's verdict comes from what happened (a test's failure, as
 * data), never from a message: a message quotes the student's output and
 * the compiler's quotes of the student's source, which can say anything.
 * Two students who try: one whose program prints a crash and then runs
 * out of time, one whose compile error quotes a compiler time-out.
 */
#include <criterion/criterion.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "batch/batch.h"
#include "gradebook_reader.h"
#include "steps/correctness.h"
#include "steps/harness_door.h"
#include "sys/kit_paths.h"
#include "sys/sandbox.h"
#include "test_support.h"

extern const struct lab lab3_transpose;

/* One correctness test of lab 3 judged from rep, in a grade of its own. */
static void judge_into(struct grade *g, struct harness_report *rep)
{
	struct shape s = { 2, { 1, 1 } };
	char msg[TEST_MESSAGE_LEN];
	struct failure f;
	grade_init(g, &lab3_transpose);
	struct test_result *t = grade_add_test(g, "correctness 1x1", GROUP_CORRECTNESS, 50);
	t->shape = s;
	cr_assert_eq(correctness_judge(&lab3_transpose, &s, 7, rep, &f, msg, sizeof(msg)), 0);
	test_fail(t, "%s", msg);
	t->failure = f;
}

/* A run that called the entry point, which printed printed, and sent nothing more. */
static struct harness_report called_and_printed(char *printed)
{
	struct harness_report rep;
	memset(&rep, 0, sizeof(rep));
	rep.began = 1;
	rep.child.output = printed;
	rep.child.output_len = strlen(printed);
	return rep;
}

Test(typed_verdict, a_time_out_that_prints_a_crash_is_a_time_out)
{
	static char printed[] = "the program was killed by signal 11 (Segmentation fault) while running transpose()\n";
	struct harness_report rep = called_and_printed(printed);
	rep.child.timed_out = 1;
	rep.child.signaled = 1;
	rep.child.signal = 9;
	struct grade g;
	char verdict[512];
	judge_into(&g, &rep);
	cr_expect_not_null(strstr(g.tests[0].message, "killed by signal 11"),
			   "the student's words are in the report: %s", g.tests[0].message);
	cr_expect_eq(g.tests[0].failure.kind, FAILURE_TIME_LIMIT);
	batch_verdict(&g, verdict, sizeof(verdict));
	cr_expect_str_eq(verdict, "correctness failed on 1x1: time limit (1 of 1 sizes failed)");
	grade_free(&g);
}

Test(typed_verdict, a_crash_that_prints_a_time_out_is_a_crash)
{
	static char printed[] = "transpose() did not finish in time and was stopped\nCUDA error cudaErrorLaunchTimeout\n";
	struct harness_report rep = called_and_printed(printed);
	rep.child.signaled = 1;
	rep.child.signal = 6;
	struct grade g;
	char verdict[512];
	judge_into(&g, &rep);
	cr_expect_eq(g.tests[0].failure.kind, FAILURE_CRASH);
	cr_expect_eq(g.tests[0].failure.signal, 6);
	batch_verdict(&g, verdict, sizeof(verdict));
	cr_expect_str_eq(verdict, "correctness failed on 1x1: crashed: signal 6 (Aborted) (1 of 1 sizes failed)");
	grade_free(&g);
}

/* A refusal names the symbol it found, however the message reads. */
Test(typed_verdict, a_refusal_is_its_symbol)
{
	struct grade g;
	char verdict[512];
	grade_init(&g, &lab3_transpose);
	struct test_result *t = grade_add_test(&g, "symbols", GROUP_INTEGRITY, 0);
	test_fail_as(t, FAILURE_REFUSED, "refused: your file calls a forbidden function: system. The lab "
		     "allows ... calls a forbidden function: fork. The lab allows");
	t->failure.refusal = REFUSED_CALL;
	snprintf(t->failure.name, sizeof(t->failure.name), "system");
	batch_verdict(&g, verdict, sizeof(verdict));
	cr_expect_str_eq(verdict, "refused: calls system");
	grade_free(&g);
}

/* ---- end to end: a batch of the two students ------------------------------------ */

static char tmp[64];

static void setup(void)
{
	test_temp_dir(tmp, sizeof(tmp), "test-typed-verdict");
}

static void teardown(void)
{
	remove_tree(tmp);
}

/* A student folder under tmp/class holding the kit's fixture rel as transpose.cu. */
static void student(const char *name, const char *rel)
{
	char dir[256], dst[320], src[PATH_MAX], cmd[PATH_MAX + 512];
	snprintf(dir, sizeof(dir), "%s/class/%s", tmp, name);
	snprintf(dst, sizeof(dst), "%s/transpose.cu", dir);
	snprintf(cmd, sizeof(cmd), "mkdir -p '%s' && cp '%s' '%s'", dir,
		 kit_path(src, sizeof(src), rel), dst);
	cr_assert_eq(system(cmd), 0, "%s", cmd);
}

Test(typed_verdict, the_gradebook_believes_what_happened, .init = setup, .fini = teardown,
     .timeout = 600)
{
	char grade[PATH_MAX], class[128], out[128], rubric[128], err[256];
	student("prints_a_crash", "tests/fixtures/verdict/timeout_prints_a_crash.cu");
	student("quotes_a_timeout", "tests/fixtures/verdict/compile_error_quotes_a_timeout.cu");
	snprintf(class, sizeof(class), "%s/class", tmp);
	snprintf(out, sizeof(out), "%s/graded", tmp);
	snprintf(rubric, sizeof(rubric), "%s/lab.ini", tmp);
	lab3_fast_rubric(rubric, 5, 0);
	kit_path(grade, sizeof(grade), "build/grade");
	char *argv[] = { grade, "lab3", "--batch", class, "--out", out, "--backend", "emu", "--rubric",
			 rubric, "--plot", "none", "--jobs", "2", "--no-analysis", NULL };
	struct sandbox_limits lim = { .wall_s = 550, .output_cap = 1 << 20 };
	struct child_result res;
	cr_assert_eq(sandbox_run(argv, &lim, &res, err, sizeof(err)), 0, "%s", err);
	const char *log = child_output_tail(&res, 40);
	if (strstr(log, "cannot read the kit"))
		cr_skip_test("a batch refuses to run from a kit its sandbox uid cannot read: %s", log);
	struct row rows[8];
	int n = read_gradebook(out, rows, 8);
	cr_assert_eq(n, 2, "gradebook rows: %d; the batch said: %s", n, log);
	child_result_free(&res);
	const struct row *hung = find_row(rows, n, "prints_a_crash");
	const struct row *broken = find_row(rows, n, "quotes_a_timeout");
	cr_assert(hung && broken);
	cr_expect_not_null(strstr(hung->f[9], ": time limit ("), "%s", hung->f[9]);
	cr_expect_null(strstr(hung->f[9], "crashed"), "%s", hung->f[9]);
	cr_expect_str_eq(broken->f[9], "did not build");
}
