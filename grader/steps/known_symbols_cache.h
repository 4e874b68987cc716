/*
 * known_symbols' answer kept on disk (build/known-symbols-BACKEND.txt), so
 * that a grade does not run nm and gcc eleven times over the same libraries:
 * about 0.5 s, the largest step of an emulated grade, and again for every
 * student of a batch.
 *
 * The file names every file the answer was read from, with its size,
 * modification time and inode. It is believed only while each of those is
 * unchanged and the files the kit would read now are the same list (the
 * toolkit, the compiler and the kit's objects; a rebuilt kit or a library
 * upgrade reads everything again). A file that cannot be written, in a
 * read-only kit, only means that the next grade reads the libraries again.
 */
#ifndef GRADER_KNOWN_SYMBOLS_CACHE_H
#define GRADER_KNOWN_SYMBOLS_CACHE_H

#include "steps/symbol_set.h"

/* Fills set from cache when it was written from exactly `fixed` (the files
 * found without running anything, in order; NULL-terminated) and no file it
 * names has changed. Returns 0; -1 (set untouched) when it is not to be
 * believed or cannot be read. */
int known_cache_read(const char *cache, char *const fixed[], struct symbol_set *set);

/* Writes set, read from `fixed` and from `found` (the libraries the
 * compiler named), to cache whole or not at all. Returns 0 or -1. */
int known_cache_write(const char *cache, char *const fixed[], char *const found[],
		      const struct symbol_set *set);

#endif
