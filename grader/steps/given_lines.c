/* The lines the skeleton gave the student (see given_lines.h). */
#include "steps/given_lines.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sys/kit_paths.h"

/* Past this many cells of the pairing table (lines x lines), nothing is
 * marked given: a file that large is not a skeleton completed. */
#define MAX_CELLS (16L * 1024 * 1024)
#define MAX_SKELETON (1L << 20)

struct lines {
	char **text;		/* each line, whitespace removed */
	long n;
};

static void lines_free(struct lines *l)
{
	for (long i = 0; i < l->n; i++)
		free(l->text[i]);
	free(l->text);
	memset(l, 0, sizeof *l);
}

/* Splits s into lines, each without its whitespace. */
static int lines_split(const char *s, struct lines *l)
{
	long cap = 1;
	memset(l, 0, sizeof *l);
	for (const char *p = s; *p; p++)
		cap += *p == '\n';
	l->text = calloc((size_t)cap, sizeof *l->text);
	if (!l->text)
		return -1;
	for (const char *p = s; *p || l->n == 0;) {
		size_t len = strcspn(p, "\n"), o = 0;
		char *t = malloc(len + 1);
		if (!t)
			goto err;
		for (size_t i = 0; i < len; i++)
			if (!isspace((unsigned char)p[i]))
				t[o++] = p[i];
		t[o] = '\0';
		l->text[l->n++] = t;
		p += len;
		if (!*p)
			break;
		p++;
	}
	return 0;
err:
	lines_free(l);
	return -1;
}

/* "TODO:" or "TODO 3:" in the (whitespace-free) line. */
static int has_marker(const char *t)
{
	for (const char *p = strstr(t, "TODO"); p; p = strstr(p + 1, "TODO")) {
		const char *q = p + 4;
		while (isdigit((unsigned char)*q))
			q++;
		if (*q == ':')
			return 1;
	}
	return 0;
}

/* 1 when a block comment is open at the end of the line, given whether
 * one was open at its start. */
static int comment_open_after(const char *t, int open)
{
	for (const char *p = t; *p; p++) {
		if (open && p[0] == '*' && p[1] == '/')
			open = 0, p++;
		else if (!open && p[0] == '/' && p[1] == '*')
			open = 1, p++;
		else if (!open && p[0] == '/' && p[1] == '/')
			break;
	}
	return open;
}

/* Blanks the skeleton's lines in TODO regions: only the others, not
 * blank, can pair with a student's line. */
static void drop_todo_regions(struct lines *k)
{
	int open = 0, todo = 0;
	for (long i = 0; i < k->n; i++) {
		char *t = k->text[i];
		int marked = has_marker(t);
		open = comment_open_after(t, open);
		if (marked || todo)
			t[0] = '\0';
		todo = open && (todo || marked);
	}
}

int given_lines_match(const char *skeleton, const char *student, struct given_lines *gl)
{
	struct lines k = { 0 }, s = { 0 };
	unsigned *len = NULL;
	int rc = -1;

	memset(gl, 0, sizeof *gl);
	if (lines_split(skeleton, &k) < 0 || lines_split(student, &s) < 0)
		goto out;
	drop_todo_regions(&k);
	gl->given = calloc((size_t)s.n, 1);
	if (!gl->given || (k.n + 1) * (s.n + 1) > MAX_CELLS)
		goto out;
	gl->n = s.n;
	/* len[i][j]: the longest common sequence of the first i student lines
	 * and the first j skeleton lines, blank ones never paired. */
	long w = k.n + 1;
	len = calloc((size_t)((s.n + 1) * w), sizeof *len);
	if (!len)
		goto out;
	for (long i = 1; i <= s.n; i++)
		for (long j = 1; j <= k.n; j++) {
			unsigned up = len[(i - 1) * w + j], left = len[i * w + j - 1];
			if (s.text[i - 1][0] && strcmp(s.text[i - 1], k.text[j - 1]) == 0)
				len[i * w + j] = len[(i - 1) * w + j - 1] + 1;
			else
				len[i * w + j] = up > left ? up : left;
		}
	/* From the end, a pair as soon as the lines are equal: of two equal
	 * student lines, the later one is the given one (the student's own
	 * code comes before the given code that follows a TODO). */
	for (long i = s.n, j = k.n; i > 0 && j > 0;) {
		if (s.text[i - 1][0] && strcmp(s.text[i - 1], k.text[j - 1]) == 0)
			gl->given[--i] = 1, j--;
		else if (len[i * w + j - 1] >= len[(i - 1) * w + j])
			j--;	/* on a tie, the student's line stays to pair further up */
		else
			i--;
	}
	rc = 0;
out:
	if (rc < 0)
		given_lines_free(gl);
	free(len);
	lines_free(&k);
	lines_free(&s);
	return rc;
}

void given_lines_free(struct given_lines *gl)
{
	free(gl->given);
	memset(gl, 0, sizeof *gl);
}

int given_lines_is(const struct given_lines *gl, long line)
{
	return gl->given && line >= 1 && line <= gl->n && gl->given[line - 1];
}

const char *given_skeleton_path(const struct lab *lab, char *buf, size_t len)
{
	char rel[512];
	snprintf(rel, sizeof rel, "grader/labs/skeletons/%s/%s", lab->dir, lab->file);
	kit_path(buf, len, rel);
	if (!file_exists(buf)) {
		snprintf(rel, sizeof rel, "labs/%s/%s", lab->dir, lab->file);
		kit_path(buf, len, rel);
	}
	return buf;
}

static int same_file(const char *named, const char *file)
{
	const char *slash = strrchr(named, '/');
	return strcmp(slash ? slash + 1 : named, file) == 0;
}

void given_lines_mark(json_t *metrics, const char *file, const struct given_lines *gl)
{
	const char *key;
	size_t i;
	json_t *v;

	if (json_is_array(metrics))
		json_array_foreach(metrics, i, v)
			given_lines_mark(v, file, gl);
	if (!json_is_object(metrics))
		return;
	const char *named = json_string_value(json_object_get(metrics, "file"));
	json_t *line = json_object_get(metrics, "line");
	if (named && json_is_integer(line) && same_file(named, file) &&
	    given_lines_is(gl, (long)json_integer_value(line)))
		json_object_set_new(metrics, "given", json_true());
	json_object_foreach(metrics, key, v)
		given_lines_mark(v, file, gl);
}

/* The file at path, NUL-terminated, or NULL. */
static char *read_text(const char *path)
{
	FILE *f = fopen(path, "rb");
	char *text = f ? malloc(MAX_SKELETON + 1) : NULL;
	size_t n = text ? fread(text, 1, MAX_SKELETON + 1, f) : 0;
	if (text && (ferror(f) || n > MAX_SKELETON)) {
		free(text);
		text = NULL;
	}
	if (text)
		text[n] = '\0';
	if (f)
		fclose(f);
	return text;
}

void given_lines_mark_grade(const struct lab *lab, struct grade *g)
{
	char path[4096];
	struct given_lines gl;
	char *skeleton = read_text(given_skeleton_path(lab, path, sizeof path));

	if (skeleton && g->source && g->analysis && given_lines_match(skeleton, g->source, &gl) == 0) {
		given_lines_mark(g->analysis, g->source_name, &gl);
		given_lines_free(&gl);
	}
	free(skeleton);
}
