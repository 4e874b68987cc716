/*
 * The integrity check's list of library and kit symbols, kept on disk
 * (grader/steps/known_symbols_cache.h): believed only while every file it
 * was read from is unchanged and the kit would read the same files.
 */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "steps/known_symbols.h"
#include "steps/known_symbols_cache.h"
#include "sys/kit_paths.h"

static char dir[] = "/tmp/test-known-cache-XXXXXX";
static char cache[256], lib_a[256], lib_b[256], lib_c[256];

static void write_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	cr_assert_not_null(f, "%s", path);
	fputs(text, f);
	fclose(f);
}

static void setup(void)
{
	cr_assert_not_null(mkdtemp(dir));
	snprintf(cache, sizeof cache, "%s/known.txt", dir);
	snprintf(lib_a, sizeof lib_a, "%s/a.so", dir);
	snprintf(lib_b, sizeof lib_b, "%s/b.so", dir);
	snprintf(lib_c, sizeof lib_c, "%s/c.o", dir);
	write_text(lib_a, "a");
	write_text(lib_b, "b");
	write_text(lib_c, "c");
}

static void teardown(void)
{
	remove_tree(dir);
}

/* A cache read from fixed {a} and found {b}: fork from libc, cudaMalloc from the runtime. */
static void write_cache(void)
{
	struct symbol_set set = { 0 };
	cr_assert_eq(symbol_set_add(&set, "fork", SYM_LIBC), 0);
	cr_assert_eq(symbol_set_add(&set, "cudaMalloc", SYM_CUDART), 0);
	char *fixed[] = { lib_a, NULL }, *found[] = { lib_b, NULL };
	cr_assert_eq(known_cache_write(cache, fixed, found, &set), 0);
	symbol_set_free(&set);
}

/* Whether the cache is believed for these fixed files. */
static int believed(char *const fixed[])
{
	struct symbol_set set = { 0 };
	int rc = known_cache_read(cache, fixed, &set);
	if (rc == 0) {
		cr_expect_eq(symbol_set_find(&set, "fork"), SYM_LIBC);
		cr_expect_eq(symbol_set_find(&set, "cudaMalloc"), SYM_CUDART);
	} else {
		cr_expect_eq(set.n, 0, "a cache not believed added %zu names", set.n);
	}
	symbol_set_free(&set);
	return rc == 0;
}

TestSuite(known_cache, .init = setup, .fini = teardown);

Test(known_cache, read_back_as_written)
{
	write_cache();
	char *fixed[] = { lib_a, NULL };
	cr_expect(believed(fixed));
}

Test(known_cache, other_fixed_files_are_not_believed)
{
	write_cache();
	char *more[] = { lib_a, lib_c, NULL }, *other[] = { lib_c, NULL }, *none[] = { NULL };
	cr_expect_not(believed(more), "a kit object more");
	cr_expect_not(believed(other), "another compiler");
	cr_expect_not(believed(none), "no files at all");
}

Test(known_cache, a_changed_file_is_not_believed)
{
	char *fixed[] = { lib_a, NULL };
	write_cache();
	write_text(lib_b, "b, upgraded");	/* a library the compiler named */
	cr_expect_not(believed(fixed));
	write_cache();
	cr_expect(believed(fixed));
	struct stat st;
	cr_assert_eq(stat(lib_a, &st), 0);
	struct timespec times[2] = { st.st_atim, { st.st_mtim.tv_sec, st.st_mtim.tv_nsec + 1 } };
	if (times[1].tv_nsec >= 1000000000)
		times[1] = (struct timespec){ st.st_mtim.tv_sec + 1, 0 };
	cr_assert_eq(utimensat(AT_FDCWD, lib_a, times, 0), 0);	/* same size, rebuilt */
	cr_expect_not(believed(fixed));
	/* A file gone between reading and writing: no cache, the old one stays. */
	unlink(lib_b);
	struct symbol_set set = { 0 };
	cr_assert_eq(symbol_set_add(&set, "fork", SYM_LIBC), 0);
	char *found[] = { lib_b, NULL };
	cr_expect_eq(known_cache_write(cache, fixed, found, &set), -1);
	symbol_set_free(&set);
	cr_expect_eq(access(cache, F_OK), 0);
}

Test(known_cache, a_cut_or_foreign_file_is_not_believed)
{
	char *fixed[] = { lib_a, NULL };
	write_cache();
	struct stat st;
	cr_assert_eq(stat(cache, &st), 0);
	cr_assert_eq(truncate(cache, st.st_size - 3), 0);	/* cut inside the last name */
	cr_expect_not(believed(fixed));
	write_text(cache, "kit-known-symbols 1\nF 1 2 3 4\n");
	cr_expect_not(believed(fixed));
	write_text(cache, "something else\n");
	cr_expect_not(believed(fixed));
	unlink(cache);
	cr_expect_not(believed(fixed));
}

/* The kit's own list: the second load, from the cache, gives the same answers. */
Test(known_cache, the_kits_list_is_the_same_from_the_cache)
{
	const char *names[] = { "fork", "fwrite", "cudaMalloc", "channel_send", "sin", "_Znwm", NULL };
	char path[1024], err[512];
	kit_path(path, sizeof path, "build/known-symbols-emu.txt");
	unlink(path);
	struct symbol_set first = { 0 }, second = { 0 };
	cr_assert_eq(known_symbols_load(BACKEND_EMU, &first, err, sizeof err), 0, "%s", err);
	cr_assert_eq(access(path, F_OK), 0, "no cache was written at %s", path);
	cr_assert_eq(known_symbols_load(BACKEND_EMU, &second, err, sizeof err), 0, "%s", err);
	for (int i = 0; names[i]; i++) {
		cr_expect_neq(symbol_set_find(&first, names[i]), 0, "%s", names[i]);
		cr_expect_eq(symbol_set_find(&first, names[i]), symbol_set_find(&second, names[i]), "%s",
			     names[i]);
	}
	cr_expect_eq(first.n, second.n);
	symbol_set_free(&first);
	symbol_set_free(&second);
}
