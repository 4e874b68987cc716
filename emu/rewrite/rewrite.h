/*
 * cuemu-rewrite: CUDA C++ source in, C++ that g++ compiles (with
 * cuemu_device.h force-included) out. See rewrite.c for the edits.
 */
#ifndef CUEMU_REWRITE_H
#define CUEMU_REWRITE_H

#include <stddef.h>
#include <stdio.h>

/* Returns the rewritten text (malloc'd), starting with #line 1 "path".
 * src is a CUDA source or, better, the preprocessor's output with its line
 * markers; code from files under system_dirs (NULL-terminated; /usr is
 * always one) is left as it is. Errors ("file:line: error: ...") go to err
 * and are counted in *errors; the text is still returned when there are
 * some. NULL: out of memory. */
char *rewrite_source(const char *path, const char *src, size_t len, const char *const *system_dirs,
		     FILE *err, int *errors);

#endif
