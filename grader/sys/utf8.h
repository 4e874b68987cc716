/* UTF-8 checks for text that came from outside (compilers, student programs). */
#ifndef GRADER_UTF8_H
#define GRADER_UTF8_H

#include <stddef.h>

/* Length of the valid UTF-8 sequence at p (1 to 4), or 0 when the bytes
 * there are not one: overlong forms, surrogates and code points above
 * U+10FFFF included, as JSON writers refuse them. */
size_t utf8_len(const unsigned char *p);

/* 1 for an ASCII control character (below 0x20, or DEL): what text from
 * outside must not carry to a terminal, a gradebook or a gnuplot script. */
int is_control_char(unsigned char c);

/* 2 when p holds a C1 control character (U+0080 to U+009F, bytes C2 80 to
 * C2 9F: U+009B is a terminal's CSI, as ESC [ is), else 0. */
size_t c1_control_len(const unsigned char *p);

/* Text from outside made safe to show, in place: every control character
 * (C0, DEL, C1) and every byte that is not UTF-8 becomes '?', except
 * newline and tab when keep_lines. */
void utf8_clean(char *s, int keep_lines);

/* name with every byte that is not printable UTF-8 (controls C0, DEL, C1,
 * invalid bytes) and the backslash written as \xNN: two different names
 * never give the same text. Returns 0, or -1 when it does not fit in len. */
int utf8_escape_name(const char *name, char *out, size_t len);

#endif
