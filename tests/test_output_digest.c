/*
 * A large output on a GPU comes back as its digest (common/output_digest.h):
 * the grader believes it only for a size that was not first in its process,
 * judges its guards as it judges a whole span's, and sends a size whose
 * hash differs to run again (a failure that does not stand), where it comes
 * back whole and the student learns the first wrong element.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "../common/bench_plan.h"
#include "../common/channel.h"
#include "../common/output_digest.h"
#include "steps/correctness_judge.h"
#include "steps/harness_door.h"
#include "test_support.h"

extern const struct lab lab1_naive_scan, lab3_transpose;

/* 2048 x 2048 floats: exactly the smallest output that may come as a digest. */
static const struct shape large = { 2, { 2048, 2048 } };
static const struct shape small = { 2, { 31, 33 } };

/* A report of size s whose output is the digest of the right answer. */
static struct harness_report digest_report(const struct shape *s, struct output_digest *d)
{
	uint32_t *span;
	struct harness_report rep = correct_report(&lab3_transpose, s, 7, &span);
	size_t n = lab3_transpose.out_count(s);
	memcpy(d->guard_before, span, sizeof(d->guard_before));
	memcpy(d->guard_after, span + GUARD_WORDS + n, sizeof(d->guard_after));
	d->words = n;
	d->hash = bench_output_hash(span + GUARD_WORDS, n);
	free(span);
	rep.output = NULL;
	rep.output_words = 0;
	rep.digest = d;
	return rep;
}

/* Judged as correctness.c judges a size on a GPU: first, or not, in its process. */
static int judge(struct harness_report *rep, const struct shape *s, int first, struct failure *f)
{
	char msg[2048];
	int allowed = output_sent_as_digest(lab3_transpose.out_count(s), first, 0);
	int ok = correctness_judge_against(&lab3_transpose, s, 7, rep, NULL, allowed, f, msg, sizeof(msg));
	json_decref(rep->done);
	return ok;
}

Test(output_digest, the_rule_sends_only_large_outputs_after_the_first_size_on_a_gpu)
{
	cr_expect(output_sent_as_digest(OUTPUT_DIGEST_MIN_WORDS, 0, 0));
	cr_expect(!output_sent_as_digest(OUTPUT_DIGEST_MIN_WORDS, 1, 0), "a first size must come whole");
	cr_expect(!output_sent_as_digest(OUTPUT_DIGEST_MIN_WORDS - 1, 0, 0));
	cr_expect(!output_sent_as_digest((size_t)1 << 28, 0, 1), "the emulator sends every output whole");
	cr_expect_eq(lab3_transpose.out_count(&large), OUTPUT_DIGEST_MIN_WORDS);
}

Test(output_digest, the_right_digest_passes_a_later_size)
{
	static struct output_digest d;
	struct failure f;
	struct harness_report rep = digest_report(&large, &d);
	cr_expect(judge(&rep, &large, 0, &f), "kind %d", f.kind);
}

/* A digest where the rule says the output comes whole: not believed. */
static void expect_not_believed(const struct shape *s, int first)
{
	static struct output_digest d;
	struct failure f;
	struct harness_report rep = digest_report(s, &d);
	cr_expect(!judge(&rep, s, first, &f));
	cr_expect_eq(f.kind, FAILURE_INCOMPLETE_REPORT);
}

Test(output_digest, a_digest_for_the_first_size_or_a_small_output_is_not_believed)
{
	expect_not_believed(&large, 1);
	expect_not_believed(&small, 0);
}

Test(output_digest, a_digest_that_differs_runs_the_size_again)
{
	static struct output_digest d;
	struct failure f;
	struct harness_report rep = digest_report(&large, &d);
	d.hash ^= 1;
	cr_expect(!judge(&rep, &large, 0, &f));
	cr_expect_eq(f.kind, FAILURE_DIGEST_DIFFERS);
	cr_expect(failure_leaves_process_running(&f), "the process is sound: the next size may run in it");
	cr_expect(!failure_stands(&f, 0, 0),
		  "a digest that differs must not stand: the size comes back whole in a new process");
}

Test(output_digest, a_digest_of_another_length_is_not_believed)
{
	static struct output_digest d;
	struct failure f;
	struct harness_report rep = digest_report(&large, &d);
	d.words--;
	cr_expect(!judge(&rep, &large, 0, &f));
	cr_expect_eq(f.kind, FAILURE_INCOMPLETE_REPORT);
}

Test(output_digest, its_guards_are_judged)
{
	static struct output_digest d;
	struct failure f;
	struct harness_report rep = digest_report(&large, &d);
	d.guard_after[3] = 0;
	cr_expect(!judge(&rep, &large, 0, &f));
	cr_expect_eq(f.kind, FAILURE_WROTE_PAST_OUTPUT);
	rep = digest_report(&large, &d);
	d.guard_before[GUARD_WORDS - 1] = 1;
	cr_expect(!judge(&rep, &large, 0, &f));
	cr_expect_eq(f.kind, FAILURE_WROTE_BEFORE_OUTPUT);
}

/* The frame on the channel: read into the report, and counted as an output. */
Test(output_digest, the_frame_is_read_from_the_channel)
{
	static struct output_digest d;
	static unsigned char data[sizeof(struct output_digest) + 256];
	size_t len = 0;
	const char *begin = "{\"shape\":\"2048x2048\",\"seed\":\"7\"}";
	struct frame_header h = { CHANNEL_MAGIC, MSG_BEGIN, strlen(begin) };
	memcpy(data + len, &h, sizeof(h));
	memcpy(data + len + sizeof(h), begin, strlen(begin));
	len += sizeof(h) + strlen(begin);
	d.words = 42;
	h = (struct frame_header){ CHANNEL_MAGIC, MSG_OUTPUT_DIGEST, sizeof(d) };
	memcpy(data + len, &h, sizeof(h));
	memcpy(data + len + sizeof(h), &d, sizeof(d));
	len += sizeof(h) + sizeof(d);
	struct harness_report whole, parts[2];
	memset(&whole, 0, sizeof(whole));
	whole.child.channel = data;
	whole.child.channel_len = len;
	whole.child.exited = 1;
	cr_assert_eq(harness_split(&whole, parts, 2), 1);
	cr_expect_eq(parts[0].outputs, 1);
	cr_assert_not_null(parts[0].digest);
	cr_expect_eq(parts[0].digest->words, 42);
	cr_expect_null(parts[0].output);
	harness_part_free(&parts[0]);
}

/* A differing digest runs again whole, unless a smaller size already showed
 * wrong words: then it stands, and costs no new process. */
Test(output_digest, a_differing_digest_stands_only_after_wrong_words_were_shown)
{
	struct failure digest = { .kind = FAILURE_DIGEST_DIFFERS };
	struct failure crash = { .kind = FAILURE_CRASH };
	struct failure wrong = { .kind = FAILURE_WRONG_OUTPUT };
	cr_expect(!failure_stands(&digest, 0, 0));
	cr_expect(failure_stands(&digest, 0, 1));
	cr_expect(!failure_stands(&crash, 0, 1), "a crash after the first size runs again alone");
	cr_expect(failure_stands(&crash, 1, 0));
	cr_expect(failure_stands(&wrong, 0, 0));
}

/* Where a size's output will come as a digest, the grader computes only
 * the reference's hash (lab 3: from the input, no transpose): it must be
 * the whole reference's hash, pass the right digest and catch one that
 * differs; for a lab that computes, the same through its reference. */
Test(output_digest, the_hash_alone_judges_a_digest)
{
	static struct output_digest d;
	char msg[2048];
	struct failure f;
	struct expected hashed = { 0 }, whole = { 0 };
	cr_assert_eq(expected_compute_hash(&lab3_transpose, &large, 7, &hashed), 0);
	cr_expect(hashed.hashed && !hashed.want);
	cr_assert_eq(expected_compute(&lab3_transpose, &large, 7, &whole), 0);
	cr_expect_eq(hashed.hash, bench_output_hash(whole.want, whole.words), "lab 3: not the reference's hash");
	expected_free(&whole);
	struct harness_report rep = digest_report(&large, &d);
	cr_expect(correctness_judge_against(&lab3_transpose, &large, 7, &rep, &hashed, 1, &f, msg, sizeof(msg)),
		  "%s", msg);
	d.hash++;
	cr_expect(!correctness_judge_against(&lab3_transpose, &large, 7, &rep, &hashed, 1, &f, msg, sizeof(msg)));
	cr_expect_eq(f.kind, FAILURE_DIGEST_DIFFERS);
	json_decref(rep.done);
	expected_free(&hashed);

	const struct shape scan = { 1, { (1u << 22) + 5 } };
	cr_assert_eq(expected_compute_hash(&lab1_naive_scan, &scan, 7, &hashed), 0);
	cr_assert_eq(expected_compute(&lab1_naive_scan, &scan, 7, &whole), 0);
	cr_expect_eq(hashed.hash, bench_output_hash(whole.want, whole.words), "lab 1: not the reference's hash");
	expected_free(&hashed);
	expected_free(&whole);
}
