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
#include "steps/analysis_check.h"
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

/* ---- verdicts from real failures ---------------------------------------------- */

/* The gradebook's reason for a test that failed with message and f. */
static const char *reason_of(const char *message, const struct failure *f)
{
	static char buf[256];
	struct test_result t = { .status = TEST_FAILED, .failure = *f };
	snprintf(t.message, sizeof(t.message), "%s", message);
	batch_failure_reason(&t, buf, sizeof(buf));
	return buf;
}

static struct harness_report report_with_answer(const struct shape *s, uint32_t **span_out)
{
	return correct_report(&lab3_transpose, s, 7, span_out);
}

static const char *judged(struct harness_report *rep, const struct shape *s)
{
	static char msg[2048];
	struct failure f;
	cr_assert_eq(correctness_judge(&lab3_transpose, s, 7, rep, &f, msg, sizeof(msg)), 0);
	return reason_of(msg, &f);
}

Test(batch_verdict, reasons_from_correctness_failures)
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

/* The first wrong element's index travels as a fact. */
Test(batch_verdict, the_first_wrong_index_is_data)
{
	struct shape s = { 2, { 31, 33 } };
	uint32_t *span;
	char msg[2048];
	struct failure f;
	struct harness_report rep = report_with_answer(&s, &span);
	span[GUARD_WORDS + 40] ^= 1;
	cr_assert_eq(correctness_judge(&lab3_transpose, &s, 7, &rep, &f, msg, sizeof(msg)), 0);
	cr_expect_eq(f.kind, FAILURE_WRONG_OUTPUT);
	cr_expect_eq(f.first_wrong, 40);
	json_decref(rep.done);
	free(span);
}

/* A failure of no short name keeps its own words (the first line): a
 * sandbox's monitor stopped under ptrace, say. */
Test(batch_verdict, an_unknown_failure_says_what_it_was)
{
	struct failure f = { .kind = FAILURE_OTHER };
	cr_expect_str_eq(reason_of("31x33: the sandbox's monitor was traced and stopped\nmore", &f),
			 "failed: 31x33: the sandbox's monitor was traced and stopped");
}

static const char *aborted(struct harness_report *rep)
{
	static char msg[2048];
	struct failure f;
	harness_explain_abort(rep, "transpose", "1x1", msg, sizeof(msg));
	harness_abort_failure(rep, &f);
	return reason_of(msg, &f);
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
	g.tests[5].kind = g.tests[6].kind = KIND_ANALYSIS_CHECK;
	g.tests[5].check = CHECK_STORE_SECTORS;
	g.tests[6].check = CHECK_SHARED_WAVEFRONTS;
	cr_expect_str_eq(verdict_of(&g), "analysis failed: coalesced stores and more");

	test_fail_as(&g.tests[3], FAILURE_CRASH,
		     "31x33: the program was killed by signal 11 (Segmentation fault) while running transpose()");
	g.tests[3].failure.signal = 11;
	g.tests[3].shape = (struct shape){ 2, { 31, 33 } };
	cr_expect_str_eq(verdict_of(&g),
			 "correctness failed on 31x33: crashed: signal 11 (Segmentation fault) (1 of 2 sizes failed)");

	g.build_failed = 1;
	test_fail_as(&g.tests[0], FAILURE_BUILD, "did not compile");
	cr_expect_str_eq(verdict_of(&g), "did not build");
	g.tests[0].failure.kind = FAILURE_BUILD_TIME_OUT;
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
	g.tests[0].failure.kind = FAILURE_SYMBOL_CHECK;
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
	g.tests[1].failure.kind = FAILURE_SLOW;
	g.perf.measured = 1;
	g.perf.percent_of_copy = 42.4;
	cr_expect_str_eq(verdict_of(&g), "slow: 42% of copy bandwidth (12.5 of 40 points)");
	test_fail_as(&g.tests[1], FAILURE_TIMINGS_NOT_BELIEVED,
		     "timing: the reported times add up to 90 ms ... are not believed");
	cr_expect_str_eq(verdict_of(&g), "performance: timings not believed");
	grade_free(&g);
}

/* A timing that computed a wrong result, or ended its process, fails for
 * that, not for its speed: in the emulator, whose prediction was made, as
 * on a GPU, whose timing of the other runs was read. */
Test(batch_verdict, a_timing_that_failed_says_why_not_how_slow)
{
	struct grade g;
	grade_init(&g, &lab3_transpose);
	g.backend = BACKEND_EMU;
	add_graded_test(&g, "correctness 1x1", GROUP_CORRECTNESS, TEST_PASSED, 50, 50, "");
	add_graded_test(&g, "bandwidth 16384x16384 (predicted)", GROUP_PERFORMANCE, TEST_FAILED, 0, 40, "");
	test_fail_as(&g.tests[1], FAILURE_WRONG_OUTPUT, "32x32: timed run 7 of 50 computed a wrong result ...");
	g.prediction.made = 1;
	g.prediction.percent_of_copy = 15;
	snprintf(g.prediction.gpu, sizeof(g.prediction.gpu), "NVIDIA H100 80GB HBM3");
	cr_expect_str_eq(verdict_of(&g), "performance failed: wrong output");
	g.tests[1].failure = (struct failure){ .kind = FAILURE_CRASH, .signal = 6 };
	cr_expect_str_eq(verdict_of(&g), "performance failed: crashed: signal 6 (Aborted)");
	g.backend = BACKEND_CUDA;
	g.prediction.made = 0;
	cr_expect_str_eq(verdict_of(&g), "performance failed: crashed: signal 6 (Aborted)");
	grade_free(&g);
}

/* integrity.c's own message, from nm on a real object file. */
static const char *refusal_for(const char *source)
{
	static char buf[512];
	struct grade g;
	grade_init(&g, &lab3_transpose);
	cr_assert_eq(integrity_of_c(source, BACKEND_CUDA, &g), 0, "%s was not refused", source);
	batch_verdict(&g, buf, sizeof(buf));
	grade_free(&g);
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
