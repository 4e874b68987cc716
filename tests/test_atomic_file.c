/* atomic_file: whole or nothing, in the target's folder, mode kept. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sys/atomic_file.h"
#include "sys/kit_paths.h"
#include "test_support.h"

static char dir[64];

static void make_dir(void)
{
	test_temp_dir(dir, sizeof(dir), "kit-atomic");
}

static void remove_dir(void)
{
	remove_tree(dir);
}

TestSuite(atomic_file, .init = make_dir, .fini = remove_dir);

static const char *in_dir(const char *name)
{
	static char buf[2][PATH_MAX];
	static int k;
	k ^= 1;
	snprintf(buf[k], sizeof(buf[k]), "%s/%s", dir, name);
	return buf[k];
}

static char *slurp(const char *path)
{
	static char buf[4096];
	FILE *f = fopen(path, "r");
	if (!f)
		return NULL;
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

static void spit(const char *path, const char *s)
{
	FILE *f = fopen(path, "w");
	cr_assert_not_null(f);
	fputs(s, f);
	fclose(f);
}

/* Entries in dir, "." and ".." aside: a temporary left behind shows here. */
static int entries(void)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;
	cr_assert_not_null(d);
	while ((e = readdir(d)))
		n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
	closedir(d);
	return n;
}

Test(atomic_file, writes_a_new_file_with_the_umask_mode)
{
	char err[256] = "";
	umask(022);
	cr_assert_eq(atomic_write(in_dir("a.txt"), "hello\n", 6, err, sizeof(err)), 0, "%s", err);
	cr_assert_str_eq(slurp(in_dir("a.txt")), "hello\n");
	struct stat st;
	cr_assert_eq(stat(in_dir("a.txt"), &st), 0);
	cr_assert_eq(st.st_mode & 0777, 0644);
	cr_assert_eq(entries(), 1, "a temporary was left behind");
}

Test(atomic_file, replaces_a_file_and_keeps_its_mode)
{
	char err[256];
	spit(in_dir("grades.csv"), "old contents, longer than the new\n");
	chmod(in_dir("grades.csv"), 0600);
	cr_assert_eq(atomic_write(in_dir("grades.csv"), "new\n", 4, err, sizeof(err)), 0);
	cr_assert_str_eq(slurp(in_dir("grades.csv")), "new\n");
	struct stat st;
	stat(in_dir("grades.csv"), &st);
	cr_assert_eq(st.st_mode & 0777, 0600);
	cr_assert_eq(entries(), 1);
}

Test(atomic_file, the_target_changes_only_at_commit)
{
	struct atomic_file af;
	char err[256];
	spit(in_dir("r.json"), "old\n");
	cr_assert_eq(atomic_open(&af, in_dir("r.json"), err, sizeof(err)), 0, "%s", err);
	fputs("new\n", af.f);
	fflush(af.f);
	cr_assert_str_eq(slurp(in_dir("r.json")), "old\n");
	/* The temporary sits in the target's folder, hidden. */
	cr_assert_eq(strncmp(af.tmp, dir, strlen(dir)), 0);
	cr_assert_eq(af.tmp[strlen(dir) + 1], '.');
	cr_assert_eq(access(af.tmp, F_OK), 0);
	cr_assert_eq(atomic_commit(&af, err, sizeof(err)), 0, "%s", err);
	cr_assert_str_eq(slurp(in_dir("r.json")), "new\n");
	cr_assert_eq(entries(), 1);
}

Test(atomic_file, abort_keeps_the_old_file_and_removes_the_temporary)
{
	struct atomic_file af;
	char err[256];
	spit(in_dir("r.json"), "old\n");
	cr_assert_eq(atomic_open(&af, in_dir("r.json"), err, sizeof(err)), 0);
	fputs("half a rep", af.f);
	atomic_abort(&af);
	cr_assert_str_eq(slurp(in_dir("r.json")), "old\n");
	cr_assert_eq(entries(), 1);
}

/* A write that fails half-way (here: past RLIMIT_FSIZE, as a full disk
 * would) leaves the old file whole and no temporary. */
Test(atomic_file, a_failed_write_leaves_the_old_file)
{
	char err[256] = "", big[8192];
	spit(in_dir("r.json"), "old\n");
	memset(big, 'x', sizeof(big));
	signal(SIGXFSZ, SIG_IGN);
	struct rlimit lim = {1000, 1000};
	cr_assert_eq(setrlimit(RLIMIT_FSIZE, &lim), 0);
	cr_assert_eq(atomic_write(in_dir("r.json"), big, sizeof(big), err, sizeof(err)), -1);
	cr_assert_str_eq(slurp(in_dir("r.json")), "old\n");
	cr_assert_eq(entries(), 1);
	cr_assert_not_null(strstr(err, "r.json"), "%s", err);
	cr_assert_not_null(strstr(err, "File too large"), "%s", err);
}

Test(atomic_file, a_commit_after_a_failed_write_fails)
{
	struct atomic_file af;
	char err[256] = "", big[8192];
	spit(in_dir("r.json"), "old\n");
	memset(big, 'x', sizeof(big));
	signal(SIGXFSZ, SIG_IGN);
	struct rlimit lim = {1000, 1000};
	setrlimit(RLIMIT_FSIZE, &lim);
	cr_assert_eq(atomic_open(&af, in_dir("r.json"), err, sizeof(err)), 0);
	fwrite(big, 1, sizeof(big), af.f);	/* the caller did not check */
	cr_assert_eq(atomic_commit(&af, err, sizeof(err)), -1);
	cr_assert_str_eq(slurp(in_dir("r.json")), "old\n");
	cr_assert_eq(entries(), 1);
}

Test(atomic_file, refuses_a_folder_name_and_a_missing_folder)
{
	char err[256] = "";
	cr_assert_eq(atomic_write(in_dir("sub/"), "x", 1, err, sizeof(err)), -1);
	cr_assert_eq(atomic_write(in_dir("nowhere/r.json"), "x", 1, err, sizeof(err)), -1);
	cr_assert_not_null(strstr(err, "nowhere/r.json"), "%s", err);
	cr_assert_not_null(strstr(err, "No such file"), "%s", err);
	cr_assert_eq(entries(), 0);
}

Test(atomic_file, a_bare_name_is_written_in_the_current_folder)
{
	char err[256];
	cr_assert_eq(chdir(dir), 0);
	cr_assert_eq(atomic_write("plain.txt", "abc", 3, err, sizeof(err)), 0, "%s", err);
	cr_assert_str_eq(slurp(in_dir("plain.txt")), "abc");
	cr_assert_eq(entries(), 1);
}

Test(atomic_file, writes_an_empty_file)
{
	char err[256];
	spit(in_dir("e"), "old");
	cr_assert_eq(atomic_write(in_dir("e"), "", 0, err, sizeof(err)), 0);
	cr_assert_str_eq(slurp(in_dir("e")), "");
}
