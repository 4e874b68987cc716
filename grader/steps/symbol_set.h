/*
 * A set of linker symbol names, each tagged with the libraries that define
 * it: what the integrity check compares a submission's symbols against.
 * Names are raw (mangled) and without a version ("write", not
 * "write@@GLIBC_2.2.5").
 */
#ifndef GRADER_SYMBOL_SET_H
#define GRADER_SYMBOL_SET_H

#include <stddef.h>

/* Where a name comes from (bits of a mask). */
enum symbol_source {
	SYM_LIBC = 1 << 0,
	SYM_LIBM = 1 << 1,
	SYM_LIBSTDCXX = 1 << 2,
	SYM_LIBGCC = 1 << 3,
	SYM_CUDART = 1 << 4,
	SYM_EMULATOR = 1 << 5,
	SYM_KIT = 1 << 6,
};

struct symbol_entry {
	char *name;
	unsigned sources;
};

struct symbol_set {
	struct symbol_entry *v;
	size_t n, cap;
	int sorted;
};

/* Adds name (up to its first '@', if any) from source. Returns 0, or -1 when out of memory. */
int symbol_set_add(struct symbol_set *s, const char *name, unsigned source);

/* Adds the names of `nm -P` output (one "NAME TYPE ..." a line; archive
 * member headers and undefined names are skipped). Returns the count added,
 * or -1 when out of memory. */
long symbol_set_add_nm(struct symbol_set *s, char *nm_output, unsigned source);

/* Adds a stored list: one name a line, '#' starts a comment line. Returns
 * the count added, or -1 when the file cannot be read. */
long symbol_set_add_file(struct symbol_set *s, const char *path, unsigned source);

/* The sources that define name (0: none). Sorts the set on first use. */
unsigned symbol_set_find(struct symbol_set *s, const char *name);

/* "libc", "the CUDA runtime", ...: the first source in mask. */
const char *symbol_source_name(unsigned mask);

void symbol_set_free(struct symbol_set *s);

#endif
