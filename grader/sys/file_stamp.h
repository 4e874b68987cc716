/*
 * A file's stamp for a cache key: its size and modification time. A cache
 * keyed on the stamps of what it was made from is stale once any of them
 * is rebuilt or edited.
 */
#ifndef GRADER_FILE_STAMP_H
#define GRADER_FILE_STAMP_H

#include <stddef.h>

/* Appends " SIZE.SECONDS.NANOSECONDS" of path to key ("-" where it is
 * missing), within len. */
void file_stamp_append(char *key, size_t len, const char *path);

/* The same for every regular file in dir whose name ends in suffix, in
 * name order. */
void file_stamp_append_dir(char *key, size_t len, const char *dir, const char *suffix);

#endif
