/* Replacing a word in a fixed-size text: how the grader's copy of a file
 * and its temporary folders become the student's own names in every text
 * a student sees. */
#ifndef GRADER_TEXT_REPLACE_H
#define GRADER_TEXT_REPLACE_H

#include <stddef.h>

/* Every occurrence of from in buf (NUL-terminated, of size len) becomes
 * to. Where the result does not fit, its end is cut, never a name. */
void text_replace_all(char *buf, size_t len, const char *from, const char *to);

#endif
