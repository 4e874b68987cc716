/*
 * The gradebook's verdict: one line an instructor can sort and scan, made
 * from the grade's tests. The student's report has the whole message; this
 * names the first thing that went wrong and the kind of failure, which it
 * reads from the messages correctness.c and harness_door.c write (their
 * wording is tested against these patterns in tests/test_batch_verdict.c).
 */
#include "batch/batch.h"
#include "steps/gates.h"
#include "report/report_text.h"
#include "sys/utf8.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void batch_clean_text(char *s)
{
	utf8_clean(s, 0);
}

/* The signal's number and name out of "killed by signal 11 (Segmentation fault)". */
static int signal_reason(const char *m, char *buf, size_t len)
{
	const char *p = strstr(m, "killed by signal ");
	int sig;
	if (!p || sscanf(p, "killed by signal %d", &sig) != 1)
		return 0;
	const char *open = strchr(p, '('), *close = open ? strchr(open, ')') : NULL;
	if (open && close)
		snprintf(buf, len, "crashed: signal %d %.*s", sig, (int)(close - open + 1), open);
	else
		snprintf(buf, len, "crashed: signal %d", sig);
	return 1;
}

/* "CUDA error cudaErrorIllegalAddress" out of "...: CUDA error NAME (text) during f()". */
static int cuda_reason(const char *m, char *buf, size_t len)
{
	const char *p = strstr(m, "CUDA error ");
	if (!p)
		return 0;
	p += strlen("CUDA error ");
	size_t n = strcspn(p, " (");
	snprintf(buf, len, "CUDA error %.*s", (int)(n < 64 ? n : 64), p);
	return 1;
}

void batch_failure_reason(const char *m, char *buf, size_t len)
{
	static const struct {
		const char *pattern, *reason;
	} table[] = {
		{ "report channel", "corrupted report channel" },
		{ "did not finish in time", "time limit" },
		{ "must return to its caller", "exited inside the entry point" },
		{ "wrote past the end of the output", "wrote past the end of the output" },
		{ "wrote before the start of the output", "wrote before the start of the output" },
		{ "wrote into d_in", "wrote into the input" },
		{ "report is incomplete", "incomplete report" },
		{ "harness failed before calling", "failed before the call" },
	};
	if (signal_reason(m, buf, len) || cuda_reason(m, buf, len))
		return;
	for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++)
		if (strstr(m, table[i].pattern)) {
			snprintf(buf, len, "%s", table[i].reason);
			return;
		}
	if (strstr(m, "first wrong element")) {
		/* The first wrong word still holding the poison was never written. */
		snprintf(buf, len, "%s", strstr(m, "never written: still the poison") ? "output not written"
										     : "wrong output");
		return;
	}
	if (strstr(m, "returned: "))
		snprintf(buf, len, "error after the call");
	else if (strstr(m, " was called"))
		snprintf(buf, len, "died before the call");
	else if (strstr(m, "could not start"))
		snprintf(buf, len, "the grader could not run it");
	else {	/* what no rule knows: its own words, never a bare "failed" */
		char words[160];
		batch_cut_text(words, sizeof(words), m, len > 9 ? len - 9 : 0);
		snprintf(buf, len, "failed: %s", words);
	}
}

/* "refused: calls fork" from integrity.c's "refused: your file WHY: SYMBOL. The lab allows ...". */
static void refusal(const char *m, char *buf, size_t len)
{
	static const struct {
		const char *why, *says;
	} kinds[] = {
		{ "calls a forbidden function: ", "calls" },
		{ "calls a function the lab does not allow: ", "calls" },
		{ "defines a forbidden symbol: ", "defines" },
		{ "defines a symbol of ", "defines" },	/* "... of the C library: write" */
	};
	const char *end = strstr(m, ". The lab allows");
	for (size_t i = 0; end && i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		const char *p = strstr(m, kinds[i].why);
		if (p && p < end) {
			p += strlen(kinds[i].why);
			const char *colon = strstr(p - 2, ": ");
			if (colon && colon < end)
				p = colon + 2;
			char what[256], words[160];
			snprintf(what, sizeof(what), "%.*s", (int)(end - p) < 255 ? (int)(end - p) : 255, p);
			batch_cut_text(words, sizeof(words), what, sizeof(words) - 1);
			snprintf(buf, len, "refused: %s %s%s", kinds[i].says, words,
				 strstr(kinds[i].why, "not allow") ? " (not allowed)" : "");
			return;
		}
	}
	char words[200];
	batch_cut_text(words, sizeof(words), strncmp(m, "refused: ", 9) == 0 ? m + 9 : m, sizeof(words) - 1);
	snprintf(buf, len, "refused: %s", words);
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
	char reason[160];
	const char *shape = strncmp(t->name, "correctness ", 12) == 0 ? t->name + 12 : t->name;
	batch_failure_reason(t->message, reason, sizeof(reason));
	snprintf(buf, len, "correctness failed on %s: %s (%d of %d sizes failed)", shape, reason, failed,
		 total);
}

/* Performance earns partial points without failing outright: say how far. */
static void performance_verdict(const struct grade *g, const struct test_result *t, char *buf,
				size_t len)
{
	char got[32], max[32];
	json_t *pct = json_object_get(g->metrics, "percent_of_copy");
	json_t *predicted = json_object_get(g->metrics, "predicted_percent_of_copy");
	const char *gpu = json_string_value(json_object_get(g->metrics, "predicted_for"));
	report_points(t->points, got, sizeof(got));
	report_points(t->max_points, max, sizeof(max));
	if (strstr(t->message, "not believed"))
		snprintf(buf, len, "performance: timings not believed");
	else if (strncmp(t->message, GATE_SHUT, strlen(GATE_SHUT)) == 0)
		snprintf(buf, len, "no performance points: a check they depend on did not pass");
	else if (json_is_number(pct))
		snprintf(buf, len, "slow: %.0f%% of copy bandwidth (%s of %s points)",
			 json_number_value(pct), got, max);
	else if (g->backend == BACKEND_EMU && json_is_number(predicted) && gpu)
		snprintf(buf, len, "slow: predicted %.0f%% of copy on %.100s (%s of %s points)",
			 json_number_value(predicted), gpu, got, max);
	else {
		char words[200];
		batch_cut_text(words, sizeof(words), t->message, sizeof(words) - 1);
		snprintf(buf, len, "performance failed: %s", words);
	}
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
		snprintf(buf, len, "did not build%s",
			 strstr(g->build_log, "took longer than") ? " (the compiler ran out of time)"
			 : strstr(g->build_log, "ran out of memory: the build may use") ?
				" (the compiler ran out of memory)" : "");
	} else if ((t = first_failed(g, GROUP_INTEGRITY, &failed, &total))) {
		if (strncmp(t->message, "refused: ", 9) == 0)
			refusal(t->message, buf, len);
		else {	/* the check itself could not run (nm) */
			char words[300];
			batch_cut_text(words, sizeof(words), t->message, sizeof(words) - 1);
			snprintf(buf, len, "symbol check failed: %s", words);
		}
	} else if ((t = first_failed(g, GROUP_CORRECTNESS, &failed, &total))) {
		correctness_verdict(t, failed, total, buf, len);
	} else {
		if ((t = first_failed(g, GROUP_PERFORMANCE, &failed, &total))) {
			performance_verdict(g, t, part, sizeof(part));
			append(buf, len, part);
		}
		if ((t = first_failed(g, GROUP_ANALYSIS, &failed, &total))) {
			const char *name = strncmp(t->name, "analysis: ", 10) == 0 ? t->name + 10 : t->name;
			snprintf(part, sizeof(part), "analysis failed: %s%s", name,
				 failed > 1 ? " and more" : "");
			append(buf, len, part);
		}
		if (!buf[0])
			snprintf(buf, len, "%s", grade_passed(g) ? "passed" : "not passed");
	}
	batch_clean_text(buf);
}
