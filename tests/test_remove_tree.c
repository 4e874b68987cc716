/*
 * remove_tree on trees that untrusted code shapes: deeper than PATH_MAX and
 * than the descriptors a recursive walk would hold, with links out of the
 * tree (never followed), and a folder that cannot be emptied (the walk
 * still ends).
 */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sys/kit_paths.h"
#include "test_support.h"

static char top[64];

static void setup(void)
{
	test_temp_dir(top, sizeof(top), "test-remove-tree");
}

static void teardown(void)
{
	char cmd[256];
	snprintf(cmd, sizeof(cmd), "chmod -R u+rwx %s 2>/dev/null; rm -rf %s", top, top);
	(void)!system(cmd);
}

/* A chain of depth folders under dir, a file at each level; by descriptor,
 * as a student's program builds it (no path could name the bottom). */
static void deep_chain(const char *dir, int depth)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY);
	cr_assert_geq(fd, 0);
	for (int i = 0; i < depth; i++) {
		int f = openat(fd, "file", O_WRONLY | O_CREAT, 0644);
		cr_assert_geq(f, 0, "level %d", i);
		cr_assert_eq(write(f, "x", 1), 1);
		close(f);
		cr_assert_eq(mkdirat(fd, "d", 0755), 0, "level %d", i);
		int next = openat(fd, "d", O_RDONLY | O_DIRECTORY);
		cr_assert_geq(next, 0);
		close(fd);
		fd = next;
	}
	close(fd);
}

Test(remove_tree, a_tree_2500_deep_goes_whole, .init = setup, .fini = teardown, .timeout = 120)
{
	char tree[128], outside[128], link[160];
	snprintf(tree, sizeof(tree), "%s/tree", top);
	snprintf(outside, sizeof(outside), "%s/keep.txt", top);
	cr_assert_eq(mkdir(tree, 0755), 0);
	FILE *f = fopen(outside, "w");
	cr_assert_not_null(f);
	fputs("not the tree's\n", f);
	fclose(f);
	/* Links out of the tree: to a file and to the folder above. */
	snprintf(link, sizeof(link), "%s/to-file", tree);
	cr_assert_eq(symlink(outside, link), 0);
	snprintf(link, sizeof(link), "%s/to-top", tree);
	cr_assert_eq(symlink(top, link), 0);
	deep_chain(tree, 2500);

	remove_tree(tree);
	struct stat st;
	cr_expect_neq(lstat(tree, &st), 0, "the tree is still there");
	cr_expect_eq(stat(outside, &st), 0, "a link was followed out of the tree");
}

Test(remove_tree, a_file_or_nothing, .init = setup, .fini = teardown)
{
	char file[128];
	snprintf(file, sizeof(file), "%s/plain", top);
	FILE *f = fopen(file, "w");
	cr_assert_not_null(f);
	fclose(f);
	remove_tree(file);
	cr_expect_neq(access(file, F_OK), 0);
	remove_tree(file);	/* gone already: nothing happens */
}

/* A folder the walk may not empty (not root: a folder without write
 * permission) is left, with what is in it, and the walk ends. */
Test(remove_tree, what_cannot_go_stays_and_the_walk_ends, .timeout = 30)
{
	/* Skipped before its folder is made: a skipped test's .fini never runs. */
	if (geteuid() == 0)
		cr_skip_test("root may remove anything: no folder to be stuck in");
	setup();
	char tree[128], locked[160], inner[192];
	snprintf(tree, sizeof(tree), "%s/tree", top);
	snprintf(locked, sizeof(locked), "%s/locked", tree);
	snprintf(inner, sizeof(inner), "%s/inner", locked);
	cr_assert_eq(mkdir(tree, 0755), 0);
	cr_assert_eq(mkdir(locked, 0755), 0);
	cr_assert_eq(mkdir(inner, 0755), 0);
	deep_chain(inner, 3);
	chmod(locked, 0555);
	remove_tree(tree);
	cr_expect_eq(access(inner, F_OK), 0);
	teardown();
}
