/* The verdict on one harness run, from synthetic reports: what the grader
 * believes and what it refuses to. */
#include <criterion/criterion.h>
#include <stdlib.h>

#include "../common/guard.h"
#include "steps/correctness.h"
#include "steps/correctness_judge.h"
#include "test_support.h"

extern const struct lab lab3_transpose, lab1_naive_scan;


static const char *judge(const struct lab *lab, const struct shape *s, struct harness_report *rep, int expect)
{
	static char msg[2048];
	struct failure f;
	msg[0] = '\0';
	int ok = correctness_judge(lab, s, 7, rep, &f, msg, sizeof(msg));
	cr_expect_eq(ok, expect, "verdict %d, message: %s", ok, msg);
	return msg;
}

Test(correctness, right_answer_passes)
{
	struct shape s = { 2, { 31, 33 } };
	uint32_t *span;
	struct harness_report rep = correct_report(&lab3_transpose, &s, 7, &span);
	judge(&lab3_transpose, &s, &rep, 1);
	json_decref(rep.done);
	free(span);
}

Test(correctness, wrong_element_is_named)
{
	struct shape s = { 2, { 31, 33 } };
	uint32_t *span;
	struct harness_report rep = correct_report(&lab3_transpose, &s, 7, &span);
	span[GUARD_WORDS + 40] ^= 1;
	const char *msg = judge(&lab3_transpose, &s, &rep, 0);
	cr_expect(strstr(msg, "31x33: first wrong element is out[1][9] (should be in[9][1])"), "%s", msg);
	cr_expect(strstr(msg, "1 of 1023 elements are wrong"), "%s", msg);
	json_decref(rep.done);
	free(span);
}

Test(correctness, unwritten_elements_show_the_poison)
{
	struct shape s = { 1, { 1025 } };
	uint32_t *span;
	struct harness_report rep = correct_report(&lab1_naive_scan, &s, 7, &span);
	for (size_t i = 1024; i < 1025; i++)
		span[GUARD_WORDS + i] = POISON_WORD;
	const char *msg = judge(&lab1_naive_scan, &s, &rep, 0);
	cr_expect(strstr(msg, "index 1024 (block 1 of 1024 elements, position 0)"), "%s", msg);
	cr_expect(strstr(msg, "never written"), "%s", msg);
	json_decref(rep.done);
	free(span);
}

Test(correctness, canaries_catch_writes_outside)
{
	struct shape s = { 1, { 33 } };
	uint32_t *span;
	struct harness_report rep = correct_report(&lab1_naive_scan, &s, 7, &span);
	span[GUARD_WORDS + 33 + 2] = 0;
	const char *msg = judge(&lab1_naive_scan, &s, &rep, 0);
	cr_expect(strstr(msg, "wrote past the end of the output: d_out[35]"), "%s", msg);
	span[GUARD_WORDS + 33 + 2] = POISON_WORD;
	span[GUARD_WORDS - 1] = 5;
	msg = judge(&lab1_naive_scan, &s, &rep, 0);
	cr_expect(strstr(msg, "before the start of the output: d_out[-1]"), "%s", msg);
	json_decref(rep.done);
	free(span);
}

Test(correctness, cuda_errors_and_aborts_are_failures)
{
	struct shape s = { 1, { 33 } };
	uint32_t *span;
	struct harness_report rep = correct_report(&lab1_naive_scan, &s, 7, &span);
	json_decref(rep.done);
	rep.done = json_pack("{s:s, s:s, s:s}", "cuda_error", "cudaErrorIllegalAddress", "cuda_error_text",
			     "an illegal memory access was encountered", "detail", "");
	const char *msg = judge(&lab1_naive_scan, &s, &rep, 0);
	cr_expect(strstr(msg, "CUDA error cudaErrorIllegalAddress"), "%s", msg);

	/* exit(0) inside the entry point: began, no MSG_DONE, a clean exit. */
	json_decref(rep.done);
	rep.done = NULL;
	rep.child.exited = 1;
	msg = judge(&lab1_naive_scan, &s, &rep, 0);
	cr_expect(strstr(msg, "inside scan_inclusive(): the entry point must return"), "%s", msg);

	/* Garbage on the channel is never believed, even with a good output. */
	rep.done = json_pack("{s:n}", "cuda_error");
	rep.corrupt = 1;
	msg = judge(&lab1_naive_scan, &s, &rep, 0);
	cr_expect(strstr(msg, "report channel"), "%s", msg);
	json_decref(rep.done);
	free(span);
}

Test(correctness, short_output_is_not_believed)
{
	struct shape s = { 1, { 33 } };
	uint32_t *span;
	struct harness_report rep = correct_report(&lab1_naive_scan, &s, 7, &span);
	rep.output_words -= 1;
	const char *msg = judge(&lab1_naive_scan, &s, &rep, 0);
	cr_expect(strstr(msg, "incomplete"), "%s", msg);
	json_decref(rep.done);
	free(span);
}

Test(correctness, writing_the_input_fails)
{
	struct shape s = { 1, { 33 } };
	uint32_t *span;
	struct harness_report rep = correct_report(&lab1_naive_scan, &s, 7, &span);
	json_object_set_new(rep.done, "input_changed", json_true());
	const char *msg = judge(&lab1_naive_scan, &s, &rep, 0);
	cr_expect(strstr(msg, "wrote into d_in"), "%s", msg);
	json_decref(rep.done);
	free(span);
}

/* A size whose exit() the harness caught fails, whatever else its report
 * holds (here the right output and MSG_DONE), and leaves its process
 * running: the sizes after it are judged where they ran. An exit that
 * ended the process does not. */
Test(correctness, a_caught_exit_fails_and_leaves_the_process_running)
{
	struct shape s = { 2, { 31, 33 } };
	uint32_t *span;
	struct harness_report rep = correct_report(&lab3_transpose, &s, 7, &span);
	rep.exit_called = 1;
	rep.exit_status = 5;
	rep.child.timed_out = 1;	/* the process's fate, a later size's */
	struct failure f;
	char msg[2048];
	cr_expect_eq(correctness_judge(&lab3_transpose, &s, 7, &rep, &f, msg, sizeof(msg)), 0);
	cr_expect(f.kind == FAILURE_EXIT_INSIDE_CALL && f.exit_caught && f.exit_status == 5, "%d: %s", f.kind,
		  msg);
	cr_expect(strstr(msg, "31x33: your code called exit(5) inside transpose()"), "%s", msg);
	cr_expect(failure_leaves_process_running(&f));

	struct failure ended = { .kind = FAILURE_EXIT_INSIDE_CALL };
	cr_expect(!failure_leaves_process_running(&ended));
	json_decref(rep.done);
	free(span);
}
