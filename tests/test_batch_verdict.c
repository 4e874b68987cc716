/*
 * Batch grading's verdicts: the one-line reasons of the gradebook, made from
 * the messages the real correctness, harness and integrity code writes, so
 * that a change of wording there shows here.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/guard.h"
#include "batch/batch.h"
#include "steps/correctness.h"
#include "steps/harness_door.h"
#include "test_support.h"
#include "steps/integrity.h"
#include "sys/kit_paths.h"
#include "steps/rubric.h"

extern const struct lab lab3_transpose;

Test(batch_verdict, clean_text_keeps_utf8_and_drops_the_rest)
{
	char s[] = "caf\xc3\xa9 \xff\x1b[31mred\n";
	batch_clean_text(s);
	cr_expect_str_eq(s, "caf\xc3\xa9 ??[31mred?");
	char overlong[] = "\xc0\xaf/";
	batch_clean_text(overlong);
	cr_expect_str_eq(overlong, "?" "?/");
}

/* ---- verdicts from real messages ---------------------------------------------- */

static const char *reason_of(const char *message)
{
	static char buf[256];
	batch_failure_reason(message, buf, sizeof(buf));
	return buf;
}

static struct harness_report report_with_answer(const struct shape *s, uint32_t **span_out)
{
	return correct_report(&lab3_transpose, s, 7, span_out);
}

static const char *judged(struct harness_report *rep, const struct shape *s)
{
	static char msg[2048];
	cr_assert_eq(correctness_judge(&lab3_transpose, s, 7, rep, msg, sizeof(msg)), 0);
	return reason_of(msg);
}

Test(batch_verdict, reasons_from_correctness_messages)
{
	struct shape s = { 2, { 31, 33 } };
	size_t n = 31 * 33;
	uint32_t *span;
	struct harness_report rep = report_with_answer(&s, &span);

	span[GUARD_WORDS + 5] ^= 1;
	cr_expect_str_eq(judged(&rep, &s), "wrong output");
	span[GUARD_WORDS + 5] ^= 1;

	for (size_t i = 0; i < n; i++)
		span[GUARD_WORDS + i] = POISON_WORD;
	cr_expect_str_eq(judged(&rep, &s), "output not written");

	free(span);
	json_decref(rep.done);
	rep = report_with_answer(&s, &span);
	span[GUARD_WORDS + n + 3] = 0;
	cr_expect_str_eq(judged(&rep, &s), "wrote past the end of the output");
	span[GUARD_WORDS + n + 3] = POISON_WORD;
	span[GUARD_WORDS - 1] = 0;
	cr_expect_str_eq(judged(&rep, &s), "wrote before the start of the output");
	span[GUARD_WORDS - 1] = POISON_WORD;

	json_decref(rep.done);
	rep.done = json_pack("{s:n, s:f, s:b}", "cuda_error", "elapsed_ms", 1.0, "input_changed", 1);
	cr_expect_str_eq(judged(&rep, &s), "wrote into the input");

	json_decref(rep.done);
	rep.done = json_pack("{s:s, s:s, s:s}", "cuda_error", "cudaErrorIllegalAddress", "cuda_error_text",
			     "an illegal memory access was encountered", "detail", "");
	cr_expect_str_eq(judged(&rep, &s), "CUDA error cudaErrorIllegalAddress");
	json_decref(rep.done);
	free(span);
}

/* A message no rule knows keeps its own words (the first line): a
 * sandbox's monitor stopped under ptrace, say. */
Test(batch_verdict, an_unknown_failure_says_what_it_was)
{
	char buf[256];
	batch_failure_reason("31x33: the sandbox's monitor was traced and stopped\nmore", buf, sizeof(buf));
	cr_expect_str_eq(buf, "failed: 31x33: the sandbox's monitor was traced and stopped");
}

static const char *aborted(struct harness_report *rep)
{
	static char msg[2048];
	harness_explain_abort(rep, "transpose", "1x1", msg, sizeof(msg));
	return reason_of(msg);
}

Test(batch_verdict, reasons_from_harness_aborts)
{
	struct harness_report rep;
	memset(&rep, 0, sizeof(rep));
	rep.child.timed_out = 1;
	cr_expect_str_eq(aborted(&rep), "time limit");

	memset(&rep, 0, sizeof(rep));
	rep.child.signaled = 1;
	rep.child.signal = 11;
	rep.began = 1;
	cr_expect_str_eq(aborted(&rep), "crashed: signal 11 (Segmentation fault)");
	char msg[1024];
	harness_explain_abort(&rep, "transpose", "1x1", msg, sizeof(msg));
	cr_expect_not_null(strstr(msg, "stack overflow"), "a crash names no likely cause: %s", msg);

	memset(&rep, 0, sizeof(rep));
	rep.child.exited = 1;
	rep.began = 1;
	cr_expect_str_eq(aborted(&rep), "exited inside the entry point");

	memset(&rep, 0, sizeof(rep));
	rep.child.exited = 1;
	rep.child.exit_status = 127;
	cr_expect_str_eq(aborted(&rep), "died before the call");

	memset(&rep, 0, sizeof(rep));
	rep.corrupt = 1;
	rep.began = 1;
	rep.child.exited = 1;
	cr_expect_str_eq(aborted(&rep), "corrupted report channel");

	memset(&rep, 0, sizeof(rep));
	rep.child.exited = 1;
	rep.error = json_pack("{s:s, s:s}", "where", "cudaMalloc (input)", "error", "out of memory");
	cr_expect_str_eq(aborted(&rep), "failed before the call");
	json_decref(rep.error);
}


static const char *verdict_of(const struct grade *g)
{
	static char buf[512];
	batch_verdict(g, buf, sizeof(buf));
	return buf;
}

Test(batch_verdict, whole_grades)
{
	struct grade g;
	grade_init(&g, &lab3_transpose);
	add_graded_test(&g, "build (emulator)", GROUP_BUILD, TEST_PASSED, 0, 0, "");
	add_graded_test(&g, "symbols", GROUP_INTEGRITY, TEST_PASSED, 0, 0, "");
	add_graded_test(&g, "correctness 1x1", GROUP_CORRECTNESS, TEST_PASSED, 25, 25, "");
	add_graded_test(&g, "correctness 31x33", GROUP_CORRECTNESS, TEST_PASSED, 25, 25, "");
	add_graded_test(&g, "bandwidth 16384x16384", GROUP_PERFORMANCE, TEST_NOT_MEASURED, 0, 0, "needs a GPU");
	cr_expect_str_eq(verdict_of(&g), "passed");

	add_graded_test(&g, "analysis: coalesced stores", GROUP_ANALYSIS, TEST_FAILED, 0, 5, "32 sectors");
	add_graded_test(&g, "analysis: bank conflicts", GROUP_ANALYSIS, TEST_FAILED, 0, 5, "32 wavefronts");
	cr_expect_str_eq(verdict_of(&g), "analysis failed: coalesced stores and more");

	g.tests[3].status = TEST_FAILED;
	g.tests[3].points = 0;
	snprintf(g.tests[3].message, sizeof(g.tests[3].message),
		 "31x33: the program was killed by signal 11 (Segmentation fault) while running transpose()");
	cr_expect_str_eq(verdict_of(&g),
			 "correctness failed on 31x33: crashed: signal 11 (Segmentation fault) (1 of 2 sizes failed)");

	g.build_failed = 1;
	cr_expect_str_eq(verdict_of(&g), "did not build");
	snprintf(g.build_log, sizeof(g.build_log), "nvcc took longer than 120 s and was stopped\n");
	cr_expect_str_eq(verdict_of(&g), "did not build (the compiler ran out of time)");
	g.internal_error = 1;
	snprintf(g.internal_message, sizeof(g.internal_message), "the kit is not built");
	cr_expect_str_eq(verdict_of(&g), "grader error: the kit is not built");
	grade_free(&g);
}

Test(batch_verdict, a_symbol_check_that_could_not_run_is_no_refusal)
{
	struct grade g;
	grade_init(&g, &lab3_transpose);
	add_graded_test(&g, "symbols", GROUP_INTEGRITY, TEST_FAILED, 0, 0,
	    "could not list the symbols of your object file (nm): nm: not found");
	cr_expect_str_eq(verdict_of(&g), "symbol check failed: could not list the symbols of your "
			 "object file (nm): nm: not found");
	grade_free(&g);
}

Test(batch_verdict, slow_kernel_says_how_slow)
{
	struct grade g;
	grade_init(&g, &lab3_transpose);
	add_graded_test(&g, "correctness 1x1", GROUP_CORRECTNESS, TEST_PASSED, 50, 50, "");
	add_graded_test(&g, "bandwidth 16384x16384", GROUP_PERFORMANCE, TEST_FAILED, 12.5, 40, "...");
	json_object_set_new(g.metrics, "percent_of_copy", json_real(42.4));
	cr_expect_str_eq(verdict_of(&g), "slow: 42% of copy bandwidth (12.5 of 40 points)");
	snprintf(g.tests[1].message, sizeof(g.tests[1].message),
		 "timing: the reported times add up to 90 ms ... are not believed");
	cr_expect_str_eq(verdict_of(&g), "performance: timings not believed");
	grade_free(&g);
}

/* integrity.c's own message, from nm on a real object file. */
static const char *refusal_for(const char *source)
{
	char dir[64], c[128], o[128], cmd[512], err[512];
	static char buf[512];
	test_temp_dir(dir, sizeof(dir), "test-batch");
	snprintf(c, sizeof(c), "%s/s.c", dir);
	snprintf(o, sizeof(o), "%s/s.o", dir);
	test_write_file(c, source);
	snprintf(cmd, sizeof(cmd), "cc -O0 -fno-builtin -c -o %s %s", o, c);
	cr_assert_eq(system(cmd), 0, "%s", cmd);
	struct rubric r;
	cr_assert_eq(rubric_load(kit_path(cmd, sizeof(cmd), "labs/lab3-transpose/lab.ini"), 2, &r, err,
				 sizeof(err)), 0, "%s", err);
	struct grade g;
	grade_init(&g, &lab3_transpose);
	cr_assert_eq(integrity_check(&r, BACKEND_CUDA, o, NULL, &g), 0, "%s was not refused", source);
	batch_verdict(&g, buf, sizeof(buf));
	grade_free(&g);
	rubric_free(&r);
	remove_tree(dir);
	return buf;
}

Test(batch_verdict, refusals_name_the_symbol)
{
	cr_expect_str_eq(refusal_for("int fork(void); void transpose(void) { fork(); }"),
			 "refused: calls fork");
	cr_expect_str_eq(refusal_for("int getpid(void); void transpose(void) { getpid(); }"),
			 "refused: calls getpid (not allowed)");
	cr_expect_str_eq(refusal_for("int cudaMalloc(void **p, unsigned long n) { return 0; }"),
			 "refused: defines cudaMalloc");
}

/* ---- the class folder --------------------------------------------------------------- */
