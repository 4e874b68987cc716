/*
 * What the emulator measured at each line of the student's file, as short
 * notes for the HTML report's source listing. Only report_html*.c use it.
 */
#ifndef GRADER_REPORT_HTML_NOTES_H
#define GRADER_REPORT_HTML_NOTES_H

#include <jansson.h>
#include <stdio.h>

enum note_kind {
	NOTE_FIGURE,	/* a measurement: sectors per request, active warps */
	NOTE_FINDING,	/* something to fix: a race, an uninitialised read, a warning */
};

struct line_note {
	int line;
	enum note_kind kind;
	int given;	/* on a line the skeleton gave, unchanged (steps/given_lines.h) */
	char text[240];
};

struct line_notes {
	struct line_note *v;
	int n, cap;
};

/* The notes of analysis (the emulator's metrics document) that belong to
 * the file whose base name is file, sorted by line. Returns 0, or -1 when
 * out of memory (notes is then empty). */
int line_notes_collect(json_t *analysis, const char *file, struct line_notes *notes);
void line_notes_free(struct line_notes *notes);

/* Writes s to f with &, <, >, " and ' as entities, and every control byte
 * but newline and tab as '?': the page shows text from untrusted programs. */
void html_escape(FILE *f, const char *s);

#endif
