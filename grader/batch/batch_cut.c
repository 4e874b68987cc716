/*
 * A verdict's text shortened for the gradebook (see batch.h): cut after a
 * whole word, marked "...", and with the brackets the cut left open closed,
 * so that an instructor never reads "libraries tha" or a "(" that never ends.
 */
#include "batch/batch.h"

#include <string.h>

#define MAX_OPEN 16
#define ELLIPSIS "..."

/* The closer of an opening bracket, or 0. */
static char closer_of(char c)
{
	return c == '(' ? ')' : c == '[' ? ']' : c == '{' ? '}' : 0;
}

/* The brackets text[0..n) leaves open, innermost last, in open[]. */
static int open_brackets(const char *text, size_t n, char *open)
{
	int depth = 0;
	for (size_t i = 0; i < n; i++) {
		char c = text[i];
		if (closer_of(c) && depth < MAX_OPEN)
			open[depth++] = c;
		else if (depth && c == closer_of(open[depth - 1]))
			depth--;
	}
	return depth;
}

void batch_cut_text(char *buf, size_t len, const char *text, size_t max)
{
	if (!len)
		return;
	size_t n = strcspn(text, "\r\n");
	if (max > len - 1)
		max = len - 1;
	if (n <= max) {
		memcpy(buf, text, n);
		buf[n] = '\0';
		return;
	}
	if (max < strlen(ELLIPSIS)) {	/* no room for even the mark */
		buf[0] = '\0';
		return;
	}
	/* Room for the mark and the closers; the cut falls before it. */
	size_t room = strlen(ELLIPSIS) + MAX_OPEN;
	size_t cut = max > room ? max - room : 0;
	/* After a whole word: back to the last space at or before the cut. */
	size_t at = cut;
	while (at > 0 && text[at] != ' ')
		at--;
	if (at == 0) {
		/* One long word: cut it, but never inside a UTF-8 character. */
		at = cut;
		while (at > 0 && ((unsigned char)text[at] & 0xC0) == 0x80)
			at--;
	}
	/* No dangling separator before the mark: "a, b..." not "a, b,...". */
	while (at > 0 && strchr(" ,;:-(", text[at - 1]))
		at--;
	char open[MAX_OPEN];
	int depth = open_brackets(text, at, open);
	memcpy(buf, text, at);
	size_t w = at;
	memcpy(buf + w, ELLIPSIS, strlen(ELLIPSIS));
	w += strlen(ELLIPSIS);
	while (depth > 0)
		buf[w++] = closer_of(open[--depth]);
	buf[w] = '\0';
}
