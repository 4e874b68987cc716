/* The rewriter's shared helpers (see rw.h). */
#include "rw.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

void error_at(struct rw *w, int line, const char *fmt, ...)
{
	va_list ap;
	fprintf(w->err, "%s:%d: error: ", w->file[0] ? w->file : w->path, line + w->line_delta);
	va_start(ap, fmt);
	vfprintf(w->err, fmt, ap);
	va_end(ap);
	fputc('\n', w->err);
	w->errors++;
}

static int count_newlines(const char *s, size_t n)
{
	int k = 0;
	for (size_t i = 0; i < n; i++)
		k += s[i] == '\n';
	return k;
}

/* The lines of input [start, end) without their code: its newlines, and its
 * directives (the line markers that g++ -E puts around a macro from a
 * system header, NULL say) each on its line, so that the lines after an
 * edit keep their numbers. text: what the code became (one line), taken. */
static char *with_line_structure(const struct rw *w, size_t start, size_t end, char *text)
{
	struct sb s = { 0 };
	size_t at = start;
	sb_puts(&s, text);
	free(text);
	for (size_t i = 0; i < w->tk.n && tok(w, i)->start < end; i++) {
		const struct token *t = tok(w, i);
		if (t->kind != TK_DIRECTIVE || t->start < start)
			continue;
		for (int k = count_newlines(w->src + at, t->start - at); k > 0; k--)
			sb_puts(&s, "\n");
		sb_printf(&s, "%.*s", (int)(t->end - t->start), w->src + t->start);
		at = t->end;
	}
	for (int k = count_newlines(w->src + at, end - at); k > 0; k--)
		sb_puts(&s, "\n");
	return sb_take(&s);
}

void add_edit(struct rw *w, size_t start, size_t end, char *text)
{
	if (text)
		text = with_line_structure(w, start, end, text);
	if (!text) {
		w->errors++;
		return;
	}
	if (w->n_edits == w->cap_edits) {
		size_t cap = w->cap_edits ? 2 * w->cap_edits : 32;
		struct edit *e = realloc(w->edits, cap * sizeof *e);
		if (!e) {
			free(text);
			w->errors++;
			return;
		}
		w->edits = e;
		w->cap_edits = cap;
	}
	w->edits[w->n_edits++] = (struct edit){ start, end, text };
}

void put_span(struct sb *s, const struct rw *w, size_t a, size_t b)
{
	for (size_t i = a; i <= b && i < w->tk.n; i++) {
		const struct token *t = tok(w, i);
		if (t->kind == TK_DIRECTIVE)
			continue;
		if (i > a && t->start > tok(w, i - 1)->end)
			sb_puts(s, " ");
		for (size_t k = t->start; k < t->end; k++)
			sb_printf(s, "%c", w->src[k] == '\n' || w->src[k] == '\r' ? ' ' : w->src[k]);
	}
}

/* System headers (the compiler's and the C library's, under /usr) and the
 * emulator's own headers: their code is the toolchain's, not the student's.
 * By path, not by the marker's "system header" flag, which a student's
 * file could earn with #pragma GCC system_header. */
static int system_file(const struct rw *w, const char *file)
{
	if (strncmp(file, "/usr/", 5) == 0 || file[0] == '<')
		return 1;
	for (int i = 0; w->system_dirs && w->system_dirs[i]; i++) {
		size_t n = strlen(w->system_dirs[i]);
		if (n && strncmp(file, w->system_dirs[i], n) == 0 && file[n] == '/')
			return 1;
	}
	return 0;
}

/* "# 12 "file.cu" 2" or "#line 12 "file.cu"": the next line is line 12 of file.cu. */
void follow_line_marker(struct rw *w, size_t i)
{
	const struct token *t = tok(w, i);
	const char *p = w->src + t->start + 1, *end = w->src + t->end;
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	if (end - p > 4 && strncmp(p, "line", 4) == 0 && !isalnum((unsigned char)p[4]))
		p += 4;
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	if (p >= end || !isdigit((unsigned char)*p))
		return;
	long line = strtol(p, (char **)&p, 10);
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	if (p < end && *p == '"') {
		size_t n = 0;
		for (p++; p < end && *p != '"' && n + 1 < sizeof w->file; p++) {
			if (*p == '\\' && p + 1 < end)
				p++;
			w->file[n++] = *p;
		}
		w->file[n] = 0;
		w->in_system = system_file(w, w->file);
	}
	w->line_delta = (int)line - (t->line + 1);
}
