/* Replacing a word in a fixed-size text (see text_replace.h). */
#include "sys/text_replace.h"

#include <string.h>

void text_replace_all(char *buf, size_t len, const char *from, const char *to)
{
	size_t nf = strlen(from), nt = strlen(to);
	if (nf == 0)
		return;
	for (char *p = strstr(buf, from); p; p = strstr(p + nt, from)) {
		size_t tail = strlen(p + nf);
		if ((size_t)(p - buf) + nt + 1 > len)
			break;
		if ((size_t)(p - buf) + nt + tail + 1 > len)
			tail = len - 1 - (size_t)(p - buf) - nt;	/* cut the end, not the name */
		memmove(p + nt, p + nf, tail);
		p[nt + tail] = '\0';
		memcpy(p, to, nt);
	}
}
