/* UTF-8 checks (see utf8.h). */
#include "sys/utf8.h"

#include <stdio.h>
#include <string.h>

size_t utf8_len(const unsigned char *p)
{
	unsigned c = p[0];
	size_t n;
	unsigned cp;

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		n = 2, cp = c & 0x1f;
	else if (c >= 0xe0 && c <= 0xef)
		n = 3, cp = c & 0x0f;
	else if (c >= 0xf0 && c <= 0xf4)
		n = 4, cp = c & 0x07;
	else
		return 0;
	for (size_t i = 1; i < n; i++) {
		if ((p[i] & 0xc0) != 0x80)	/* also stops at the NUL */
			return 0;
		cp = cp << 6 | (p[i] & 0x3f);
	}
	if ((n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) || cp > 0x10ffff ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return n;
}

int is_control_char(unsigned char c)
{
	return c < 0x20 || c == 0x7f;
}

size_t c1_control_len(const unsigned char *p)
{
	return p[0] == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f ? 2 : 0;
}

void utf8_clean(char *s, int keep_lines)
{
	unsigned char *p = (unsigned char *)s;
	while (*p) {
		size_t n = utf8_len(p), c1 = c1_control_len(p);
		if (keep_lines && (*p == '\n' || *p == '\t')) {
			p++;
		} else if (n == 0 || is_control_char(*p)) {
			*p++ = '?';
		} else if (c1) {
			p[0] = '?';	/* one character becomes one: the rest moves up */
			memmove(p + 1, p + 2, strlen((char *)p + 2) + 1);
			p++;
		} else {
			p += n;
		}
	}
}

int utf8_escape_name(const char *name, char *out, size_t len)
{
	size_t o = 0;
	for (const unsigned char *p = (const unsigned char *)name; *p;) {
		size_t n = utf8_len(p);
		int plain = n > 0 && !is_control_char(*p) && !c1_control_len(p) && *p != '\\';
		size_t need = plain ? n : 4;
		if (o + need + 1 > len)
			return -1;
		if (plain) {
			memcpy(out + o, p, n);
			p += n;
		} else {
			snprintf(out + o, 5, "\\x%02X", *p++);
		}
		o += need;
	}
	out[o] = '\0';
	return 0;
}
