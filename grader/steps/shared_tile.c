/* The __shared__ tile a source line indexes (see shared_tile.h). */
#include "steps/shared_tile.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_SOURCE (4 << 20)

static char *read_source(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	char *text = malloc(MAX_SOURCE + 1);
	size_t n = text ? fread(text, 1, MAX_SOURCE, f) : 0;
	fclose(f);
	if (text)
		text[n] = '\0';
	return text;
}

static int ident_char(int c)
{
	return isalnum(c) || c == '_';
}

/* The bracketed text at p ("[16]"): its inside, trimmed, into out; returns
 * the character after the ']', or NULL. */
static const char *subscript(const char *p, char *out, size_t len)
{
	while (*p == ' ' || *p == '\t')
		p++;
	if (*p != '[')
		return NULL;
	const char *end = strchr(p, ']');
	if (!end || memchr(p, '\n', (size_t)(end - p)) || memchr(p + 1, '[', (size_t)(end - p - 1)))
		return NULL;
	p++;
	while (p < end && isspace((unsigned char)*p))
		p++;
	size_t n = (size_t)(end - p);
	while (n && isspace((unsigned char)p[n - 1]))
		n--;
	if (n == 0 || n >= len)
		return NULL;
	memcpy(out, p, n);
	out[n] = '\0';
	return end + 1;
}

/* The declaration "__shared__ ... name[A][B]" in text: its A and B. */
static int declared_dims(const char *text, const char *name, char *a, char *b, size_t len)
{
	size_t nlen = strlen(name);
	for (const char *p = strstr(text, "__shared__"); p; p = strstr(p + 1, "__shared__")) {
		const char *end = strchr(p, ';');
		for (const char *q = p; end && q < end; q++) {
			q = strstr(q, name);
			if (!q || q >= end)
				break;
			if ((q > text && ident_char((unsigned char)q[-1])) || ident_char((unsigned char)q[nlen]))
				continue;
			const char *r = subscript(q + nlen, a, len);
			if (r && subscript(r, b, len))
				return 0;
		}
	}
	return -1;
}

/* The start of line `line` (from 1) of text, or NULL. */
static const char *line_start(const char *text, long line)
{
	for (long k = 1; k < line && text; k++) {
		text = strchr(text, '\n');
		if (text)
			text++;
	}
	return text;
}

int shared_tile_padding(const char *path, long line, char *declared, char *padded, size_t len)
{
	char *text = path ? read_source(path) : NULL;
	const char *p = text ? line_start(text, line) : NULL;
	int found = -1;
	/* Each identifier of the line followed by two subscripts. */
	for (; p && *p && *p != '\n' && found < 0; p++) {
		if (!ident_char((unsigned char)*p) || (p > text && ident_char((unsigned char)p[-1])) ||
		    isdigit((unsigned char)*p))
			continue;
		char name[64], i[128], j[128], a[128], b[128];
		size_t n = 0;
		while (ident_char((unsigned char)p[n]) && n + 1 < sizeof name)
			n++;
		memcpy(name, p, n);
		name[n] = '\0';
		const char *r = subscript(p + n, i, sizeof i);
		if (!r || !subscript(r, j, sizeof j) || declared_dims(text, name, a, b, sizeof a) < 0)
			continue;
		char *endp;
		long cols = strtol(b, &endp, 10);
		snprintf(declared, len, "%s[%s][%s]", name, a, b);
		if (*endp == '\0')
			snprintf(padded, len, "%s[%s][%ld]", name, a, cols + 1);
		else
			snprintf(padded, len, "%s[%s][%s + 1]", name, a, b);
		found = 0;
	}
	free(text);
	return found;
}
