/*
 * The gradebook's verdict: one line an instructor can sort and scan, made
 * from the grade's tests. The student's report has the whole message; this
 * names the first thing that went wrong and the kind of failure, from the
 * tests' kinds and failures (steps/grade.h), never from a message: a
 * message may quote the student's output or source.
 */
#include "batch/batch.h"
#include "steps/analysis_check.h"
#include "report/report_text.h"
#include "sys/utf8.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void batch_clean_text(char *s)
{
	utf8_clean(s, 0);
}

/* A failure no rule below names: its own words (the first line), never a
 * bare "failed". */
static void own_words(const char *m, char *buf, size_t len)
{
	char words[160];
	int room = len > 9 ? (int)len - 9 : 0;	/* what "failed: " leaves */
	batch_cut_text(words, sizeof(words), m, (size_t)room);
	snprintf(buf, len, "failed: %.*s", room, words);
}

/* The words for a failure of a kind named here; 0 for any other kind. */
static int typed_reason(const struct failure *f, char *buf, size_t len)
{
	const char *said = NULL;
	switch (f->kind) {
	case FAILURE_CRASH:
		snprintf(buf, len, "crashed: signal %d (%s)", f->signal, strsignal(f->signal));
		return 1;
	case FAILURE_CUDA_ERROR:
		snprintf(buf, len, "CUDA error %.64s", f->name);
		return 1;
	case FAILURE_CHANNEL_TAMPERED: said = "corrupted report channel"; break;
	case FAILURE_TIME_LIMIT: said = "time limit"; break;
	case FAILURE_EXIT_INSIDE_CALL: said = "exited inside the entry point"; break;
	case FAILURE_WROTE_PAST_OUTPUT: said = "wrote past the end of the output"; break;
	case FAILURE_WROTE_BEFORE_OUTPUT: said = "wrote before the start of the output"; break;
	case FAILURE_WROTE_INPUT: said = "wrote into the input"; break;
	case FAILURE_INCOMPLETE_REPORT: said = "incomplete report"; break;
	case FAILURE_BEFORE_CALL: said = "failed before the call"; break;
	case FAILURE_WRONG_OUTPUT:
	case FAILURE_DIGEST_DIFFERS: said = "wrong output"; break;
	case FAILURE_OUTPUT_NOT_WRITTEN: said = "output not written"; break;
	case FAILURE_AFTER_CALL: said = "error after the call"; break;
	case FAILURE_DIED_BEFORE_CALL: said = "died before the call"; break;
	case FAILURE_NOT_STARTED: said = "the grader could not run it"; break;
	default: break;
	}
	if (said)
		snprintf(buf, len, "%s", said);
	return said != NULL;
}

void batch_failure_reason(const struct test_result *t, char *buf, size_t len)
{
	if (!typed_reason(&t->failure, buf, len))
		own_words(t->message, buf, len);
}

/* "refused: calls fork", from what integrity.c found. */
static void refusal(const struct test_result *t, char *buf, size_t len)
{
	const struct failure *f = &t->failure;
	const char *m = t->message;
	switch (f->refusal) {
	case REFUSED_CALL:
		snprintf(buf, len, "refused: calls %s", f->name);
		break;
	case REFUSED_CALL_NOT_ALLOWED:
		snprintf(buf, len, "refused: calls %s (not allowed)", f->name);
		break;
	case REFUSED_DEFINITION:
		snprintf(buf, len, "refused: defines %s", f->name);
		break;
	default: {	/* the kit's own sentence: its first line, cut at a word */
		char words[208];
		batch_cut_text(words, sizeof(words), strncmp(m, "refused: ", 9) == 0 ? m + 9 : m, 200);
		snprintf(buf, len, "refused: %s", words);
		break;
	}
	}
}

static const struct test_result *first_failed(const struct grade *g, enum test_group group,
					      int *failed, int *total)
{
	const struct test_result *first = NULL;
	*failed = *total = 0;
	for (int i = 0; i < g->n_tests; i++) {
		const struct test_result *t = &g->tests[i];
		if (t->group != group)
			continue;
		(*total)++;
		if (t->status == TEST_FAILED) {
			(*failed)++;
			if (!first)
				first = t;
		}
	}
	return first;
}

static void correctness_verdict(const struct test_result *t, int failed, int total, char *buf,
				size_t len)
{
	char reason[160], shape[64];
	if (t->kind == KIND_SIZE)
		shape_format(&t->shape, shape, sizeof(shape));
	else
		snprintf(shape, sizeof(shape), "%s", t->name);
	batch_failure_reason(t, reason, sizeof(reason));
	snprintf(buf, len, "correctness failed on %s: %s (%d of %d sizes failed)", shape, reason, failed,
		 total);
}

/* Performance earns partial points without failing outright: say how far.
 * A timing that failed otherwise (a wrong result, a crash) says that, even
 * where a speed was measured or predicted. */
static void performance_verdict(const struct grade *g, const struct test_result *t, char *buf,
				size_t len)
{
	char got[32], max[32], reason[160];
	enum failure_kind kind = t->failure.kind;
	int slow = kind == FAILURE_SLOW || kind == FAILURE_NONE;
	report_points(t->points, got, sizeof(got));
	report_points(t->max_points, max, sizeof(max));
	if (kind == FAILURE_TIMINGS_NOT_BELIEVED) {
		snprintf(buf, len, "performance: timings not believed");
	} else if (kind == FAILURE_GATE_SHUT) {
		snprintf(buf, len, "no performance points: a check they depend on did not pass");
	} else if (slow && g->perf.measured) {
		snprintf(buf, len, "slow: %.0f%% of copy bandwidth (%s of %s points)",
			 g->perf.percent_of_copy, got, max);
	} else if (slow && g->backend == BACKEND_EMU && g->prediction.made) {
		snprintf(buf, len, "slow: predicted %.0f%% of copy on %.100s (%s of %s points)",
			 g->prediction.percent_of_copy, g->prediction.gpu, got, max);
	} else {
		if (typed_reason(&t->failure, reason, sizeof(reason))) {
			snprintf(buf, len, "performance failed: %s", reason);
		} else {
			own_words(t->message, reason, sizeof(reason));	/* "failed: ..." */
			snprintf(buf, len, "performance %s", reason);
		}
	}
}

/* Why the build failed: the limit the compiler hit, if any. */
static const char *build_limit(const struct grade *g)
{
	for (int i = 0; i < g->n_tests; i++)
		if (g->tests[i].kind == KIND_BUILD && g->tests[i].status == TEST_FAILED) {
			if (g->tests[i].failure.kind == FAILURE_BUILD_TIME_OUT)
				return " (the compiler ran out of time)";
			if (g->tests[i].failure.kind == FAILURE_BUILD_OUT_OF_MEMORY)
				return " (the compiler ran out of memory)";
		}
	return "";
}

static void append(char *buf, size_t len, const char *part)
{
	size_t at = strlen(buf);
	if (at < len)
		snprintf(buf + at, len - at, "%s%s", at ? "; " : "", part);
}

void batch_verdict(const struct grade *g, char *buf, size_t len)
{
	char part[512];
	int failed, total;
	const struct test_result *t;
	buf[0] = '\0';
	if (g->internal_error) {
		char words[300];
		batch_cut_text(words, sizeof(words), g->internal_message, sizeof(words) - 1);
		snprintf(buf, len, "grader error: %s", words);
	} else if (g->build_failed) {
		snprintf(buf, len, "did not build%s", build_limit(g));
	} else if ((t = first_failed(g, GROUP_INTEGRITY, &failed, &total))) {
		if (t->failure.kind == FAILURE_REFUSED)
			refusal(t, buf, len);
		else	/* the check itself could not run (nm) */
			snprintf(buf, len, "symbol check failed: %.300s", t->message);
	} else if ((t = first_failed(g, GROUP_CORRECTNESS, &failed, &total))) {
		correctness_verdict(t, failed, total, buf, len);
	} else {
		if ((t = first_failed(g, GROUP_PERFORMANCE, &failed, &total))) {
			performance_verdict(g, t, part, sizeof(part));
			append(buf, len, part);
		}
		if ((t = first_failed(g, GROUP_ANALYSIS, &failed, &total))) {
			const char *name = t->kind == KIND_ANALYSIS_CHECK ? analysis_checks[t->check].name
									  : t->name;
			snprintf(part, sizeof(part), "analysis failed: %s%s", name,
				 failed > 1 ? " and more" : "");
			append(buf, len, part);
		}
		if (!buf[0])
			snprintf(buf, len, "%s", grade_passed(g) ? "passed" : "not passed");
	}
	batch_clean_text(buf);
}
