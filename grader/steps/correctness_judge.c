/* One size's report judged against the reference (see correctness_judge.h). */
#include "steps/correctness_judge.h"

#include <stdio.h>
#include <string.h>

#include "bench_plan.h"
#include "guard.h"
#include "host_buffer.h"
#include "parallel.h"
#include "steps/correctness.h"
#include "steps/output_hash.h"

/* The output span is guard | output | guard: first the canaries, before
 * and after the n words (the span's, or a digest's). */
static int check_guards(const struct lab *lab, const struct shape *s, const uint32_t *guard_before,
			const uint32_t *guard_after, size_t n, struct failure *f, char *msg, size_t len)
{
	char where[64], word[64];
	shape_format(s, where, sizeof(where));
	size_t before = guard_first_changed(guard_before, GUARD_WORDS);
	if (before < GUARD_WORDS) {
		lab_format_word(lab->elem, guard_before[before], word, sizeof(word));
		snprintf(msg, len, "%s: your code wrote before the start of the output: d_out[-%zu] became "
			 "%s (an index that went negative?)", where, (size_t)GUARD_WORDS - before, word);
		f->kind = FAILURE_WROTE_BEFORE_OUTPUT;
		return 0;
	}
	size_t after = guard_first_changed(guard_after, GUARD_WORDS);
	if (after < GUARD_WORDS) {
		lab_format_word(lab->elem, guard_after[after], word, sizeof(word));
		snprintf(msg, len, "%s: your code wrote past the end of the output: d_out[%zu] became %s, "
			 "but the output has only %zu elements (a missing bounds check?)", where, n + after,
			 word, n);
		f->kind = FAILURE_WROTE_PAST_OUTPUT;
		return 0;
	}
	return 1;
}

/* Every word compared, in pieces on the machine's cores (parallel.h). */
struct compare_job {
	const uint32_t *got, *want;
	size_t n;
	size_t first[PARALLEL_MAX_THREADS], wrong[PARALLEL_MAX_THREADS],
		unwritten[PARALLEL_MAX_THREADS];
};

static void compare_pieces(size_t begin, size_t end, void *arg)
{
	struct compare_job *job = arg;
	for (size_t p = begin; p < end; p++) {
		size_t lo = job->n * p / PARALLEL_MAX_THREADS, hi = job->n * (p + 1) / PARALLEL_MAX_THREADS;
		size_t first = job->n, wrong = 0, unwritten = 0;
		for (size_t i = lo; i < hi; i++)
			if (job->got[i] != job->want[i]) {
				if (first == job->n)
					first = i;
				wrong++;
				unwritten += job->got[i] == POISON_WORD;
			}
		job->first[p] = first;
		job->wrong[p] = wrong;
		job->unwritten[p] = unwritten;
	}
}

static int compare_words(const struct lab *lab, const struct shape *s, const uint32_t *got,
			 const uint32_t *want, size_t n, struct failure *f, char *msg, size_t len)
{
	struct compare_job job = { .got = got, .want = want, .n = n };
	/* PARALLEL_MAX_THREADS fixed pieces, shared out among the threads. */
	parallel_for(PARALLEL_MAX_THREADS, n < ((size_t)1 << 20) ? PARALLEL_MAX_THREADS : 1,
		     compare_pieces, &job);
	size_t first = n, wrong = 0, unwritten = 0;
	for (int p = 0; p < PARALLEL_MAX_THREADS; p++) {
		if (first == n)
			first = job.first[p];
		wrong += job.wrong[p];
		unwritten += job.unwritten[p];
	}
	if (wrong == 0)
		return 1;
	char where[64], at[160], w[64], g[64];
	shape_format(s, where, sizeof(where));
	lab->describe_index(s, first, at, sizeof(at));
	lab_format_word(lab->elem, want[first], w, sizeof(w));
	lab_format_word(lab->elem, got[first], g, sizeof(g));
	snprintf(msg, len, "%s: first wrong element is %s: expected %s, got %s%s. %zu of %zu elements "
		 "are wrong%s.", where, at, w, g,
		 got[first] == POISON_WORD ? " (never written: still the poison value)" : "", wrong, n,
		 unwritten ? " (some never written)" : "");
	f->kind = got[first] == POISON_WORD ? FAILURE_OUTPUT_NOT_WRITTEN : FAILURE_WRONG_OUTPUT;
	f->first_wrong = (long long)first;
	return 0;
}

int expected_compute(const struct lab *lab, const struct shape *s, uint64_t seed, struct expected *e)
{
	size_t n_in = lab->in_count(s);
	uint32_t *in = host_buffer_alloc(n_in * 4);
	e->words = lab->out_count(s);
	e->want = host_buffer_alloc(e->words * 4);
	if (in && e->want) {
		lab_fill_input(lab, in, s, seed);
		lab->reference(in, e->want, s);
	} else {
		host_buffer_free(e->want, e->words * 4);
		e->want = NULL;
	}
	host_buffer_free(in, n_in * 4);
	return e->want ? 0 : -1;
}

int expected_compute_hash(const struct lab *lab, const struct shape *s, uint64_t seed, struct expected *e)
{
	e->hashed = output_hash_of_seed(lab, s, seed, &e->hash) == 0;
	return e->hashed ? 0 : -1;
}

void expected_free(struct expected *e)
{
	host_buffer_free(e->want, e->words * 4);
	e->want = NULL;
	e->hashed = 0;
}

/* What came back of the output: whole, or as a digest where one may come. */
enum output_form { OUTPUT_BAD, OUTPUT_WHOLE, OUTPUT_DIGEST };

static enum output_form output_form(const struct harness_report *rep, size_t n_out, int digest_allowed)
{
	if (rep->outputs != 1)
		return OUTPUT_BAD;
	if (rep->output)
		return rep->output_words == GUARD_WORDS + n_out + GUARD_WORDS ? OUTPUT_WHOLE : OUTPUT_BAD;
	return digest_allowed && rep->digest && rep->digest->words == n_out ? OUTPUT_DIGEST : OUTPUT_BAD;
}

/* The digest's hash against the reference's: equal, or a failure that
 * does not stand (the size runs again, first in a new process, whole). */
static int compare_digest(const struct output_digest *d, const struct expected *e, size_t n, const char *where,
			  struct failure *f, char *msg, size_t len)
{
	if (d->hash == (e->hashed ? e->hash : bench_output_hash(e->want, n)))
		return 1;
	snprintf(msg, len, "%s: some elements are wrong (the output's hash, made on the GPU, is not the "
		 "expected output's; a smaller size above shows a wrong element)", where);
	f->kind = FAILURE_DIGEST_DIFFERS;
	return 0;
}

int correctness_judge_against(const struct lab *lab, const struct shape *s, uint64_t seed,
		 const struct harness_report *rep, const struct expected *given, int digest_allowed,
		 struct failure *f, char *msg, size_t len)
{
	size_t n_out = lab->out_count(s);
	char where[64];
	shape_format(s, where, sizeof(where));
	memset(f, 0, sizeof(*f));
	/* An exit() fails its size whatever else the report holds. */
	if (rep->corrupt || !rep->done || rep->exit_called) {
		harness_abort_failure(rep, f);
		harness_explain_abort(rep, lab->entry, where, msg, len);
		return 0;
	}
	const char *cuda_error = json_string_value(json_object_get(rep->done, "cuda_error"));
	if (cuda_error) {
		const char *text = json_string_value(json_object_get(rep->done, "cuda_error_text"));
		const char *detail = json_string_value(json_object_get(rep->done, "detail"));
		snprintf(msg, len, "%s: CUDA error %s (%s) during %s()%s%s", where, cuda_error,
			 text ? text : "", lab->entry, detail && *detail ? ": " : "", detail ? detail : "");
		f->kind = FAILURE_CUDA_ERROR;
		snprintf(f->name, sizeof(f->name), "%.64s", cuda_error);
		return 0;
	}
	enum output_form form = output_form(rep, n_out, digest_allowed);
	if (form == OUTPUT_BAD) {
		snprintf(msg, len, "%s: the harness's report is incomplete (an output of %zu words, "
			 "expected %zu): was the process disturbed?", where, rep->output_words,
			 (size_t)(GUARD_WORDS + n_out + GUARD_WORDS));
		f->kind = FAILURE_INCOMPLETE_REPORT;
		return 0;
	}
	const uint32_t *before = form == OUTPUT_WHOLE ? rep->output : rep->digest->guard_before;
	const uint32_t *after = form == OUTPUT_WHOLE ? rep->output + GUARD_WORDS + n_out : rep->digest->guard_after;
	if (!check_guards(lab, s, before, after, n_out, f, msg, len))
		return 0;
	/* Nothing from the child is used but its output. */
	struct expected own = { 0 };
	int hash_will_do = form == OUTPUT_DIGEST;
	const struct expected *e = given && (given->want || (hash_will_do && given->hashed)) ? given : &own;
	if (!e->want && !(hash_will_do && e->hashed) && expected_compute(lab, s, seed, &own) < 0) {
		snprintf(msg, len, "%s: the grader ran out of memory for the reference", where);
		f->kind = FAILURE_GRADER;
		return 0;
	}
	int ok = form == OUTPUT_WHOLE ? compare_words(lab, s, rep->output + GUARD_WORDS, e->want, n_out, f, msg, len)
				       : compare_digest(rep->digest, e, n_out, where, f, msg, len);
	expected_free(&own);
	if (ok && json_is_true(json_object_get(rep->done, "input_changed"))) {
		snprintf(msg, len, "%s: the output is right, but your code wrote into d_in, which is const "
			 "input", where);
		f->kind = FAILURE_WROTE_INPUT;
		return 0;
	}
	return ok;
}

int correctness_judge(const struct lab *lab, const struct shape *s, uint64_t seed,
		      const struct harness_report *rep, struct failure *f, char *msg, size_t len)
{
	return correctness_judge_against(lab, s, seed, rep, NULL, 0, f, msg, len);
}

int failure_leaves_process_running(const struct failure *f)
{
	switch (f->kind) {
	case FAILURE_WRONG_OUTPUT:
	case FAILURE_OUTPUT_NOT_WRITTEN:
	case FAILURE_WROTE_BEFORE_OUTPUT:
	case FAILURE_WROTE_PAST_OUTPUT:
	case FAILURE_WROTE_INPUT:
	case FAILURE_DIGEST_DIFFERS:
		return 1;
	case FAILURE_EXIT_INSIDE_CALL:
		return f->exit_caught;
	default:
		return 0;
	}
}

int failure_stands(const struct failure *f, int first_in_process, int wrong_words_shown)
{
	if (first_in_process)
		return 1;
	if (f->kind == FAILURE_DIGEST_DIFFERS)
		return wrong_words_shown;
	return failure_leaves_process_running(f);
}

unsigned failure_ending_key(const struct failure *f)
{
	switch (f->kind) {
	case FAILURE_CRASH:
	case FAILURE_CUDA_ERROR:
	case FAILURE_CHANNEL_TAMPERED:
	case FAILURE_EMULATOR_STOPPED:
	case FAILURE_DIED_BEFORE_CALL:
	case FAILURE_EXIT_INSIDE_CALL:
		break;
	default:
		return 0;
	}
	/* FNV-1a over the kind, the signal and the error's name; never 0. */
	unsigned h = 2166136261u;
	unsigned parts[2] = { (unsigned)f->kind, (unsigned)f->signal };
	for (size_t i = 0; i < sizeof(parts); i++)
		h = (h ^ ((const unsigned char *)parts)[i]) * 16777619u;
	for (const char *c = f->name; *c; c++)
		h = (h ^ (unsigned char)*c) * 16777619u;
	return h ? h : 1;
}
