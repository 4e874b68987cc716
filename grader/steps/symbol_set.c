/* Linker symbol names and the libraries that define them (see symbol_set.h). */
#include "steps/symbol_set.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int symbol_set_add(struct symbol_set *s, const char *name, unsigned source)
{
	size_t len = strcspn(name, "@");
	if (len == 0)
		return 0;
	if (s->n == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 4096;
		struct symbol_entry *v = realloc(s->v, cap * sizeof *v);
		if (!v)
			return -1;
		s->v = v;
		s->cap = cap;
	}
	char *copy = strndup(name, len);
	if (!copy)
		return -1;
	s->v[s->n++] = (struct symbol_entry){ copy, source };
	s->sorted = 0;
	return 0;
}

long symbol_set_add_nm(struct symbol_set *s, char *out, unsigned source)
{
	long added = 0;
	char *save;
	for (char *line = strtok_r(out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		/* "NAME TYPE [VALUE [SIZE]]"; an archive names each member as "lib.a[x.o]:". */
		char *sp = strchr(line, ' ');
		if (!sp || sp[1] == 'U' || sp[1] == 'w' || sp[1] == 'v')
			continue;
		*sp = '\0';
		if (symbol_set_add(s, line, source) < 0)
			return -1;
		added++;
	}
	return added;
}

long symbol_set_add_file(struct symbol_set *s, const char *path, unsigned source)
{
	FILE *f = fopen(path, "r");
	char line[1024];
	long added = 0;
	if (!f)
		return -1;
	while (fgets(line, sizeof line, f)) {
		line[strcspn(line, " \t\r\n")] = '\0';
		if (line[0] == '\0' || line[0] == '#')
			continue;
		if (symbol_set_add(s, line, source) < 0) {
			fclose(f);
			return -1;
		}
		added++;
	}
	fclose(f);
	return added;
}

static int entry_cmp(const void *a, const void *b)
{
	return strcmp(((const struct symbol_entry *)a)->name, ((const struct symbol_entry *)b)->name);
}

/* Sorts, and folds the entries of one name into one, their sources or'ed. */
static void sort_set(struct symbol_set *s)
{
	qsort(s->v, s->n, sizeof *s->v, entry_cmp);
	size_t out = 0;
	for (size_t i = 0; i < s->n; i++) {
		if (out > 0 && strcmp(s->v[out - 1].name, s->v[i].name) == 0) {
			s->v[out - 1].sources |= s->v[i].sources;
			free(s->v[i].name);
			continue;
		}
		s->v[out++] = s->v[i];
	}
	s->n = out;
	s->sorted = 1;
}

unsigned symbol_set_find(struct symbol_set *s, const char *name)
{
	if (!s->sorted)
		sort_set(s);
	struct symbol_entry key = { (char *)name, 0 };
	const struct symbol_entry *e = bsearch(&key, s->v, s->n, sizeof *s->v, entry_cmp);
	return e ? e->sources : 0;
}

const char *symbol_source_name(unsigned mask)
{
	static const struct {
		unsigned bit;
		const char *name;
	} names[] = {
		{ SYM_CUDART, "the CUDA runtime" }, { SYM_EMULATOR, "the emulator's runtime" },
		{ SYM_KIT, "the grading kit" },	    { SYM_LIBC, "the C library" },
		{ SYM_LIBM, "the math library" },   { SYM_LIBSTDCXX, "the C++ library" },
		{ SYM_LIBGCC, "the compiler's runtime" },
	};
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
		if (mask & names[i].bit)
			return names[i].name;
	return "a library";
}

void symbol_set_free(struct symbol_set *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->v[i].name);
	free(s->v);
	*s = (struct symbol_set){ 0 };
}
