/*
 * The emulator's per-line figures turned into notes on the student's lines.
 * The metrics document (docs/emu-metrics.md) keeps its figures per launch
 * and per (line, space, kind); a student reads them per line, so the notes
 * of every launch that ran a line are gathered at that line.
 */
#include "report/report_html_notes.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sys/utf8.h"

void html_escape(FILE *f, const char *s)
{
	char *clean = strdup(s ? s : "");
	if (!clean)
		return;
	utf8_clean(clean, 1);
	for (const char *p = clean; *p; p++) {
		switch (*p) {
		case '&': fputs("&amp;", f); break;
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '"': fputs("&quot;", f); break;
		case '\'': fputs("&#39;", f); break;
		default: fputc(*p, f);
		}
	}
	free(clean);
}

static int add(struct line_notes *notes, json_t *where, int line, enum note_kind kind,
	       const char *fmt, ...) __attribute__((format(printf, 5, 6)));

/* A note at line of where (the metrics' object that names the line); one
 * on a line the skeleton gave says so (steps/given_lines.h). */
static int add(struct line_notes *notes, json_t *where, int line, enum note_kind kind,
	       const char *fmt, ...)
{
	if (notes->n == notes->cap) {
		int cap = notes->cap ? notes->cap * 2 : 32;
		struct line_note *v = realloc(notes->v, (size_t)cap * sizeof *v);
		if (!v)
			return -1;
		notes->v = v;
		notes->cap = cap;
	}
	struct line_note *n = &notes->v[notes->n++];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(n->text, sizeof n->text, fmt, ap);
	va_end(ap);
	n->line = line;
	n->kind = kind;
	n->given = json_is_true(json_object_get(where, "given"));
	if (n->given) {
		size_t used = strlen(n->text);
		snprintf(n->text + used, sizeof n->text - used, " (given by the skeleton, not yours)");
	}
	return 0;
}

/* 1 when the metrics' file name (as the compiler saw it: a path or a base
 * name) names the student's file. */
static int same_file(json_t *where, const char *file)
{
	const char *f = json_string_value(json_object_get(where, "file"));
	if (!f)
		return 0;
	const char *base = strrchr(f, '/');
	return strcmp(base ? base + 1 : f, file) == 0;
}

static int line_of(json_t *where)
{
	return (int)json_integer_value(json_object_get(where, "line"));
}

/* Sectors per request at a global line (4 is a warp's 32 floats, the
 * ideal; a request of W > 4 bytes a lane is judged per 4 bytes, as W/4
 * requests), wavefronts per request at a shared one (1 is conflict-free). */
static int access_note(struct line_notes *notes, json_t *row, const char *kernel)
{
	const char *space = json_string_value(json_object_get(row, "space"));
	const char *kind = json_string_value(json_object_get(row, "kind"));
	double requests = json_number_value(json_object_get(row, "requests"));

	if (!space || !kind)
		return 0;
	if (strcmp(space, "global") == 0) {
		double spr = json_number_value(json_object_get(row, "sectors_per_request"));
		json_t *words = json_object_get(row, "sectors_per_word_request");
		double spw = json_is_number(words) ? json_number_value(words) : spr;
		char wide[96] = "";
		if (spw < spr - 0.05)
			snprintf(wide, sizeof wide, ", %.1f for each 4 bytes a thread moves", spw);
		return add(notes, row, line_of(row), NOTE_FIGURE,
			   "%s: global %s, %.0f requests, %.1f sectors per request%s%s", kernel, kind,
			   requests, spr, wide,
			   spw > 4.5 ? " (a warp of 4-byte words needs 4: not coalesced)" : "");
	}
	double wpr = json_number_value(json_object_get(row, "wavefronts_per_request"));
	return add(notes, row, line_of(row), NOTE_FIGURE,
		   "%s: shared %s, %.0f requests, %.1f wavefronts per request%s", kernel, kind, requests,
		   wpr, wpr > 1.05 ? " (more than 1: bank conflicts)" : "");
}

/* "steps 11-19" of the block's barrier intervals, as the active-threads
 * chart numbers them (interval_indices, docs/emu-metrics.md). */
static void step_range(json_t *at, char *buf, size_t len)
{
	size_t n = json_array_size(at);
	long long first = json_integer_value(json_array_get(at, 0));
	long long last = json_integer_value(json_array_get(at, n ? n - 1 : 0));
	if (n == 0)
		snprintf(buf, len, "steps not recorded");
	else if (last - first == (long long)n - 1)
		snprintf(buf, len, "steps %lld-%lld", first, last);
	else
		snprintf(buf, len, "%zu steps from %lld to %lld", n, first, last);
}

static int steps_note(struct line_notes *notes, json_t *row, const char *kernel)
{
	char steps[160] = "", range[64];
	size_t i, o = 0;
	json_t *s;

	json_array_foreach(json_object_get(row, "steps"), i, s) {
		int w = snprintf(steps + o, sizeof steps - o, "%s%lld", i ? " " : "",
				 (long long)json_integer_value(s));
		if (w < 0 || (size_t)w >= sizeof steps - o)
			break;
		o += (size_t)w;
	}
	step_range(json_object_get(row, "interval_indices"), range, sizeof range);
	return add(notes, row, line_of(row), NOTE_FIGURE,
		   "%s: active warps %s in %s of one block (%lld warp-steps)", kernel, steps, range,
		   (long long)json_integer_value(json_object_get(row, "total")));
}

static int race_notes(struct line_notes *notes, json_t *race, const char *file)
{
	json_t *first = json_object_get(race, "first"), *second = json_object_get(race, "second");
	const char *kind = json_string_value(json_object_get(race, "kind"));
	const char *scope = json_string_value(json_object_get(race, "scope"));
	const char *space = json_string_value(json_object_get(race, "space"));
	long long count = (long long)json_integer_value(json_object_get(race, "count"));
	int rc = 0;

	if (same_file(second, file))
		rc |= add(notes, second, line_of(second), NOTE_FINDING,
			  "race (%s, %s, %s memory): %lld accesses here conflict with line %d with no barrier between",
			  kind ? kind : "?", scope ? scope : "?", space ? space : "?", count, line_of(first));
	if (same_file(first, file) && line_of(first) != line_of(second))
		rc |= add(notes, first, line_of(first), NOTE_FINDING,
			  "race (%s): the other side of the race at line %d", kind ? kind : "?",
			  line_of(second));
	return rc;
}

static int launch_notes(struct line_notes *notes, json_t *launch, const char *file)
{
	const char *kernel = json_string_value(json_object_get(launch, "kernel"));
	size_t i;
	json_t *row;
	int rc = 0;

	if (!kernel)
		kernel = "kernel";
	json_array_foreach(json_object_get(launch, "lines"), i, row)
		if (same_file(row, file))
			rc |= access_note(notes, row, kernel);
	json_array_foreach(json_object_get(launch, "active_warps_per_line"), i, row)
		if (same_file(row, file))
			rc |= steps_note(notes, row, kernel);
	json_array_foreach(json_object_get(launch, "races"), i, row)
		rc |= race_notes(notes, row, file);
	json_array_foreach(json_object_get(launch, "uninit_shared_reads"), i, row)
		if (same_file(row, file))
			rc |= add(notes, row, line_of(row), NOTE_FINDING,
				  "%s: %lld reads of shared memory that nothing in the block wrote", kernel,
				  (long long)json_integer_value(json_object_get(row, "count")));
	return rc;
}

/* Notes the same line, kind and text only once: a kernel launched many
 * times, or by several launches of one kind, says it once. */
static int note_order(const void *a, const void *b)
{
	const struct line_note *x = a, *y = b;
	if (x->line != y->line)
		return x->line - y->line;
	if (x->kind != y->kind)
		return (int)y->kind - (int)x->kind;	/* findings first */
	return strcmp(x->text, y->text);
}

static void drop_repeats(struct line_notes *notes)
{
	int o = 0;
	qsort(notes->v, (size_t)notes->n, sizeof *notes->v, note_order);
	for (int i = 0; i < notes->n; i++)
		if (o == 0 || note_order(&notes->v[o - 1], &notes->v[i]) != 0)
			notes->v[o++] = notes->v[i];
	notes->n = o;
}

int line_notes_collect(json_t *analysis, const char *file, struct line_notes *notes)
{
	size_t i;
	json_t *row;
	int rc = 0;

	memset(notes, 0, sizeof *notes);
	json_array_foreach(json_object_get(analysis, "launches"), i, row)
		rc |= launch_notes(notes, row, file);
	json_array_foreach(json_object_get(analysis, "warnings"), i, row)
		if (same_file(row, file)) {
			const char *m = json_string_value(json_object_get(row, "message"));
			rc |= add(notes, row, line_of(row), NOTE_FINDING, "%s", m ? m : "warning");
		}
	if (rc) {
		line_notes_free(notes);
		return -1;
	}
	drop_repeats(notes);
	return 0;
}

void line_notes_free(struct line_notes *notes)
{
	free(notes->v);
	memset(notes, 0, sizeof *notes);
}
