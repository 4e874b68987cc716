/* known_symbols' answer on disk (see known_symbols_cache.h). The format:
 *
 *   kit-known-symbols 1
 *   F SIZE MTIME_S MTIME_NS INODE PATH   a file found without running anything
 *   L SIZE MTIME_S MTIME_NS INODE PATH   a library the compiler named
 *   S SOURCES NAME                       a symbol and its sources' mask
 */
#include "steps/known_symbols_cache.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "sys/atomic_file.h"

#define CACHE_HEADER "kit-known-symbols 1\n"

static int put_file(FILE *f, char kind, const char *path)
{
	struct stat st;
	if (stat(path, &st) < 0 || strchr(path, '\n'))
		return -1;
	fprintf(f, "%c %lld %lld %ld %llu %s\n", kind, (long long)st.st_size, (long long)st.st_mtim.tv_sec,
		st.st_mtim.tv_nsec, (unsigned long long)st.st_ino, path);
	return 0;
}

/* Whether a file line's file is still as it was. */
static int unchanged(long long size, long long sec, long nsec, unsigned long long ino, const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && st.st_size == size && st.st_mtim.tv_sec == sec &&
	       st.st_mtim.tv_nsec == nsec && st.st_ino == ino;
}

int known_cache_write(const char *cache, char *const fixed[], char *const found[],
		      const struct symbol_set *set)
{
	struct atomic_file af;
	char err[512];
	if (atomic_open(&af, cache, err, sizeof err) < 0)
		return -1;
	int bad = fputs(CACHE_HEADER, af.f) == EOF;
	for (int i = 0; fixed[i] && !bad; i++)
		bad = put_file(af.f, 'F', fixed[i]) < 0;
	for (int i = 0; found[i] && !bad; i++)
		bad = put_file(af.f, 'L', found[i]) < 0;
	for (size_t i = 0; i < set->n && !bad; i++)
		bad = strchr(set->v[i].name, '\n') != NULL ||
		      fprintf(af.f, "S %u %s\n", set->v[i].sources, set->v[i].name) < 0;
	if (bad) {
		atomic_abort(&af);
		return -1;
	}
	return atomic_commit(&af, err, sizeof err);
}

int known_cache_read(const char *cache, char *const fixed[], struct symbol_set *set)
{
	FILE *f = fopen(cache, "re");
	if (!f)
		return -1;
	struct symbol_set read = { 0 };
	char line[4096 + 128], path[4096];
	int ok = fgets(line, sizeof line, f) && strcmp(line, CACHE_HEADER) == 0;
	int next_fixed = 0, symbols = 0;
	while (ok && fgets(line, sizeof line, f)) {
		size_t len = strlen(line);
		if (len == 0 || line[len - 1] != '\n') {
			ok = 0;	/* cut short */
			break;
		}
		line[len - 1] = '\0';
		long long size, sec;
		long nsec;
		unsigned long long ino;
		unsigned sources;
		int at = 0;
		if ((line[0] == 'F' || line[0] == 'L') &&
		    sscanf(line + 2, "%lld %lld %ld %llu %n", &size, &sec, &nsec, &ino, &at) == 4 && at > 0) {
			snprintf(path, sizeof path, "%s", line + 2 + at);
			ok = !symbols && unchanged(size, sec, nsec, ino, path);
			/* The fixed files in the same order, and no other. */
			if (ok && line[0] == 'F')
				ok = fixed[next_fixed] && strcmp(fixed[next_fixed++], path) == 0;
		} else if (line[0] == 'S' && sscanf(line + 2, "%u %n", &sources, &at) == 1 && at > 0) {
			symbols++;
			ok = symbol_set_add(&read, line + 2 + at, sources) == 0;
		} else {
			ok = 0;
		}
	}
	fclose(f);
	ok = ok && fixed[next_fixed] == NULL && symbols > 0;
	if (!ok) {
		symbol_set_free(&read);
		return -1;
	}
	for (size_t i = 0; i < read.n && ok; i++)
		ok = symbol_set_add(set, read.v[i].name, read.v[i].sources) == 0;
	symbol_set_free(&read);
	return ok ? 0 : -1;
}
