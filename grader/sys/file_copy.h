/*
 * One file copied whole, for a forked grader that runs a build in a folder
 * of its own (steps/side.h): the copy is the grader's, readable and
 * executable by the sandbox uid the folder is handed to, whoever owned the
 * original.
 */
#ifndef GRADER_FILE_COPY_H
#define GRADER_FILE_COPY_H

#include <stddef.h>
#include <sys/types.h>

/* Copies from to a new file to, with mode (to must not exist). Returns 0,
 * or -1 with one line in err; a partial copy is removed. */
int file_copy(const char *from, const char *to, mode_t mode, char *err, size_t errlen);

#endif
