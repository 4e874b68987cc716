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

#endif
