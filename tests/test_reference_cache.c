/*
 * The reference solution's harness kept between grades
 * (grader/steps/reference_cache.h): an entry is found again only while
 * what it was built from is unchanged, is taken whole, and replaces the
 * entry of the same lab and architecture it supersedes. Run on a stand-in
 * lab and file, so that no compiler is needed.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "steps/reference_cache.h"
#include "sys/kit_paths.h"

static const struct lab stand_in = { .id = "cachetest" };
/* Another lab's name for the second test: a keep replaces its own lab's entries. */
static const struct lab other_stand_in = { .id = "cachetest2" };

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	cr_assert_not_null(f, "%s", path);
	fputs(text, f);
	fclose(f);
}

static void read_file(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	cr_assert_not_null(f, "%s", path);
	size_t n = fread(buf, 1, len - 1, f);
	buf[n] = '\0';
	fclose(f);
}

Test(reference_cache, an_entry_is_found_while_its_sources_are_unchanged)
{
	char dir[] = "/tmp/reference-cache-XXXXXX", solution[128], harness[128], taken[128];
	char kept[4096], again[4096], other_gpu[4096], edited[4096], text[64];
	struct device_info h100 = { .present = 1, .major = 9, .minor = 0 }, a100 = { .present = 1, .major = 8 };
	cr_assert_not_null(mkdtemp(dir));
	snprintf(solution, sizeof solution, "%s/solution.cu", dir);
	snprintf(harness, sizeof harness, "%s/harness", dir);
	snprintf(taken, sizeof taken, "%s/taken", dir);
	write_file(solution, "one");
	write_file(harness, "the first build");

	reference_cache_path(&stand_in, &h100, solution, kept, sizeof kept);
	reference_cache_path(&stand_in, &h100, solution, again, sizeof again);
	reference_cache_path(&stand_in, &a100, solution, other_gpu, sizeof other_gpu);
	cr_expect_str_eq(kept, again);
	cr_expect_str_neq(kept, other_gpu, "another architecture shares an entry");
	cr_expect(strstr(kept, "/build/reference-harness/cachetest-sm_90-"), "%s", kept);
	cr_expect_eq(reference_cache_take(kept, taken), -1, "an entry never kept was taken");

	reference_cache_keep(harness, kept);
	cr_assert_eq(reference_cache_take(kept, taken), 0);
	read_file(taken, text, sizeof text);
	cr_expect_str_eq(text, "the first build");
	struct stat st;
	cr_expect(stat(taken, &st) == 0 && (st.st_mode & 0111), "the copy cannot be run");

	/* The solution edited: another entry, which replaces the first. */
	write_file(solution, "two, edited");
	reference_cache_path(&stand_in, &h100, solution, edited, sizeof edited);
	cr_expect_str_neq(kept, edited, "an edited solution finds the old harness");
	write_file(harness, "the second build");
	reference_cache_keep(harness, edited);
	cr_expect(access(kept, F_OK) != 0, "the replaced entry is still kept");
	unlink(taken);
	cr_assert_eq(reference_cache_take(edited, taken), 0);
	read_file(taken, text, sizeof text);
	cr_expect_str_eq(text, "the second build");

	unlink(edited);
	unlink(taken);
	unlink(harness);
	unlink(solution);
	rmdir(dir);
}

/* Another grade's copy in progress (NAME.PID.tmp, not yet renamed) is
 * not removed by a keep that replaces the entries beside it; one its
 * grade left long ago is. */
Test(reference_cache, a_copy_another_grade_is_writing_is_left_alone)
{
	char dir[] = "/tmp/reference-cache-XXXXXX", solution[128], harness[128];
	char kept[4096], edited[4096], writing[4200], abandoned[4200];
	struct device_info h100 = { .present = 1, .major = 9, .minor = 0 };
	cr_assert_not_null(mkdtemp(dir));
	snprintf(solution, sizeof solution, "%s/solution.cu", dir);
	snprintf(harness, sizeof harness, "%s/harness", dir);
	write_file(solution, "one");
	write_file(harness, "a build");
	reference_cache_path(&other_stand_in, &h100, solution, kept, sizeof kept);
	snprintf(writing, sizeof writing, "%s.999999.tmp", kept);
	snprintf(abandoned, sizeof abandoned, "%s.999998.tmp", kept);
	reference_cache_keep(harness, kept);	/* makes the folder */
	write_file(writing, "half a copy");
	write_file(abandoned, "a copy whose grade died");
	struct timeval long_ago[2] = { { time(NULL) - 3600, 0 }, { time(NULL) - 3600, 0 } };
	cr_assert_eq(utimes(abandoned, long_ago), 0);

	write_file(solution, "two, edited");
	reference_cache_path(&other_stand_in, &h100, solution, edited, sizeof edited);
	reference_cache_keep(harness, edited);
	cr_expect(access(kept, F_OK) != 0, "the replaced entry is still kept");
	cr_expect_eq(access(writing, F_OK), 0, "a copy being written was removed");
	cr_expect(access(abandoned, F_OK) != 0, "an abandoned copy is kept forever");

	unlink(writing);
	unlink(edited);
	unlink(harness);
	unlink(solution);
	rmdir(dir);
}
