/*
 * gradebook.csv (RFC 4180: CRLF line ends, quoted fields where needed):
 *
 *   student,score,max_score,build,integrity,correctness,performance,analysis,percent_of_copy,verdict
 *
 * A group's column is empty when the group did not run (a file that did
 * not build has no correctness tests), percent_of_copy when nothing was
 * timed. score and max_score are always there: a student the batch could
 * not grade (no file, a grader error) scores 0 of the rubric's maximum.
 */
#include "batch/batch.h"

#include <string.h>

#include "sys/atomic_file.h"
#include "report/report_text.h"

void csv_field(FILE *f, const char *s)
{
	/* A spreadsheet runs a cell that starts like a formula; names and
	 * verdicts come from students. */
	int formula = s[0] && strchr("=+-@", s[0]);
	size_t n = strlen(s);
	int quote = strpbrk(s, ",\"\r\n") != NULL || (n && (s[0] == ' ' || s[n - 1] == ' ')) ||
		    s[0] == '\t';
	if (quote)
		fputc('"', f);
	if (formula)
		fputc('\'', f);
	for (const char *p = s; *p; p++) {
		if (*p == '"')
			fputc('"', f);
		fputc(*p, f);
	}
	if (quote)
		fputc('"', f);
}

static void number_field(FILE *f, int present, double v)
{
	char buf[32];
	if (present)
		fputs(report_points(v, buf, sizeof(buf)), f);
}

static void row(FILE *f, const struct summary *s)
{
	/* A row the batch could not grade still has the lab's maximum (0 of it). */
	int graded = s->backend[0] != '\0' || s->max_score > 0;
	char pct[32], name[BATCH_NAME_LEN];
	snprintf(name, sizeof(name), "%s", s->student);
	batch_clean_text(name);
	csv_field(f, name);
	fputc(',', f);
	number_field(f, graded, s->score);
	fputc(',', f);
	number_field(f, graded, s->max_score);
	for (int i = 0; i < GROUP_COUNT; i++) {
		fputc(',', f);
		number_field(f, s->has_group[i], s->group_points[i]);
	}
	fputc(',', f);
	if (s->percent_of_copy >= 0) {
		snprintf(pct, sizeof(pct), "%.1f", s->percent_of_copy);
		fputs(pct, f);
	}
	fputc(',', f);
	csv_field(f, s->verdict);
	fputs("\r\n", f);
}

int gradebook_write(const char *path, const struct summary *rows, int n, char *err, size_t errlen)
{
	struct atomic_file af;
	if (atomic_open(&af, path, err, errlen) < 0)
		return -1;
	fputs("student,score,max_score", af.f);
	for (int i = 0; i < GROUP_COUNT; i++)
		fprintf(af.f, ",%s", group_name(group_order[i]));
	fputs(",percent_of_copy,verdict\r\n", af.f);
	for (int i = 0; i < n; i++)
		row(af.f, &rows[i]);
	return atomic_commit(&af, err, errlen);
}
