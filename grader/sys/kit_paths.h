/* Where the kit is: the grader finds its own files from its executable. */
#ifndef GRADER_KIT_PATHS_H
#define GRADER_KIT_PATHS_H

#include <stddef.h>

/* The repository root (the folder holding build/, labs/, solutions/).
 * KIT_ROOT in the environment overrides it, for tests. */
const char *kit_root(void);

/* kit_root()/rel into buf; returns buf. */
const char *kit_path(char *buf, size_t len, const char *rel);

/* 1 if path names an existing regular file. */
int file_exists(const char *path);

/* The program a name with a slash names, or the first executable `name`
 * along PATH (an empty entry is "."): the search posix_spawnp and execvp
 * make. Returns 1 and the path in buf, or 0 when there is none. */
int find_program(const char *name, char *buf, size_t len);

/* path made absolute and free of symbolic links (realpath), or only made
 * absolute when it does not exist yet. */
void absolute_path(const char *path, char *out, size_t len);

/* mkdir -p. Returns 0, or -1 with errno set. */
int make_dirs(const char *path);

/* rm -r, without following symbolic links, through a tree of any depth
 * (sys/remove_tree.c). */
void remove_tree(const char *path);

#endif
