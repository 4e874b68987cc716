/*
 * The names a submission must not define, because a real library or the
 * kit defines them, and the names it may call: the exports of libc, libm,
 * libstdc++ and libgcc (read with nm from the libraries this compiler links),
 * of libcudart (nm -D on the toolkit's copy; the stored list
 * grader/steps/cudart_exports.txt where no toolkit is installed), of the
 * emulator's runtime (emulated builds) and of the kit's harness objects.
 * Kept on disk between grades while none of those files changes
 * (known_symbols_cache.h).
 */
#ifndef GRADER_KNOWN_SYMBOLS_H
#define GRADER_KNOWN_SYMBOLS_H

#include "steps/grade.h"
#include "steps/symbol_set.h"

/* Fills set. Returns 0, or -1 when a list that must be there could not be
 * read (err says which). */
int known_symbols_load(enum backend backend, struct symbol_set *set, char *err, size_t errlen);

#endif
