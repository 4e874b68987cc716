/*
 * End-to-end test support: run ./grade on a file as a user would, read its
 * JSON report, and compare each test group with what the file's header
 * says to expect:
 *
 *   // expect-cuda: correctness=pass performance=zero
 *   // expect-emu: correctness=pass analysis=fail
 *   // expect-message: wrote into d_in
 */
#ifndef TESTS_GRADE_RUNNER_H
#define TESTS_GRADE_RUNNER_H

#include <jansson.h>
#include <stddef.h>

struct graded {
	int exit_status;
	json_t *report;		/* NULL when no report was written */
	char output[8192];	/* the tail of what ./grade printed */
};

/* ./grade LAB --submission FILE --backend BACKEND --json TMP --plot none [EXTRA];
 * FILE NULL: --solution. Returns 0 when ./grade ran. */
int run_grade(const char *lab, const char *file, const char *backend, const char *extra,
	      struct graded *out);
void graded_free(struct graded *g);

/* "pass" / "fail" for correctness and analysis; "zero" / "partial" / "full"
 * for performance; "none" when the report has no test of that group. */
const char *group_verdict(json_t *report, const char *group);

/* The report's test named name ("correctness 2^24"), or NULL. */
json_t *report_test(json_t *report, const char *name);

/* Checks the file's "expect-KEY:" line against the report. Returns the
 * number of expectations checked (0: the file names none), or -1 with a
 * message in why when one does not hold. */
int check_expectations(const char *file, const char *key, json_t *report, char *why, size_t len);

/* Some test's message in the report holds the words of the file's
 * "expect-message:" line (both backends). Returns 1 when it does, 0 when
 * the file names none, -1 with why. */
int check_message(const char *file, json_t *report, char *why, size_t len);

/* The report's max_score is the shipped rubrics' 100, and the score keeps the
 * bound of the file's "expect-score: <=N" or ">=N" line (file NULL: the
 * maximum only). Returns 1 when a bound was checked, 0 when the file names
 * none, -1 with why. */
int check_score(const char *file, json_t *report, char *why, size_t len);

/* The kit's file rel (a path from the kit's root), whole and
 * NUL-terminated (malloc'd; at most 1 MiB read); NULL if it cannot be read. */
char *kit_file_text(const char *rel);

/* 1 if a CUDA device is here (sets why otherwise); 1 if the emulator is built. */
int have_gpu(char *why, size_t len);
int have_emulator(void);

#endif
