/* A growing string (see sb.h). */
#include "sb.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int sb_reserve(struct sb *s, size_t more)
{
	if (s->oom)
		return -1;
	if (s->len + more + 1 <= s->cap)
		return 0;
	size_t cap = s->cap ? s->cap : 256;
	while (cap < s->len + more + 1)
		cap *= 2;
	char *b = realloc(s->buf, cap);
	if (!b) {
		s->oom = 1;
		return -1;
	}
	s->buf = b;
	s->cap = cap;
	return 0;
}

void sb_printf(struct sb *s, const char *fmt, ...)
{
	va_list ap;
	char small[256];
	va_start(ap, fmt);
	int n = vsnprintf(small, sizeof small, fmt, ap);
	va_end(ap);
	if (n < 0 || sb_reserve(s, (size_t)n) < 0)
		return;
	if ((size_t)n < sizeof small) {
		memcpy(s->buf + s->len, small, (size_t)n + 1);
	} else {
		va_start(ap, fmt);
		vsnprintf(s->buf + s->len, (size_t)n + 1, fmt, ap);
		va_end(ap);
	}
	s->len += (size_t)n;
}

void sb_puts(struct sb *s, const char *text)
{
	size_t n = strlen(text);
	if (sb_reserve(s, n) < 0)
		return;
	memcpy(s->buf + s->len, text, n + 1);
	s->len += n;
}

void sb_json_string(struct sb *s, const char *text)
{
	sb_puts(s, "\"");
	for (const unsigned char *p = (const unsigned char *)text; p && *p; p++) {
		if (*p == '"' || *p == '\\')
			sb_printf(s, "\\%c", *p);
		else if (*p < 0x20)
			sb_printf(s, "\\u%04x", *p);
		else
			sb_printf(s, "%c", *p);
	}
	sb_puts(s, "\"");
}

char *sb_take(struct sb *s)
{
	if (s->oom || sb_reserve(s, 0) < 0) {
		free(s->buf);
		s->buf = NULL;
		return NULL;
	}
	char *b = s->buf;
	s->buf = NULL;
	s->len = s->cap = 0;
	return b;
}
