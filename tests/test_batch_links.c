/*
 * A class folder is read by a grader that may be root: a lab file that is a
 * hard link (another name of a file the student could not read, such as a
 * root-only secret) is refused like a symbolic link, as is a file its
 * folder's owner may not read, and nothing of such a file reaches any
 * report, gradebook or Gradescope file.
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "batch/batch.h"
#include "sys/kit_paths.h"
#include "sys/sandbox.h"
#include "test_support.h"

#define SECRET "root-only-secret-5b1d9e7c"

static char dir[64], in[128], out[128], secret[128];

static void write_file(const char *path, const char *text, mode_t mode)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, mode);
	cr_assert_geq(fd, 0, "%s", path);
	cr_assert_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	chmod(path, mode);
}

static void setup(void)
{
	test_temp_dir(dir, sizeof(dir), "test-batch-links");
	chmod(dir, 0755);
	snprintf(in, sizeof in, "%s/class", dir);
	snprintf(out, sizeof out, "%s/graded", dir);
	snprintf(secret, sizeof secret, "%s/secret.cu", dir);
	cr_assert_eq(mkdir(in, 0755), 0);
	/* The secret: the grader's own (root's, when it runs as root), 0600. */
	write_file(secret, SECRET "\n", 0600);	/* a compiler would quote it */
}

static void teardown(void)
{
	remove_tree(dir);
}

/* The class: mallory's lab file and trudy.cu are hard links to the secret. */
static void hard_linked_class(void)
{
	char p[256];
	snprintf(p, sizeof p, "%s/mallory", in);
	cr_assert_eq(mkdir(p, 0755), 0);
	snprintf(p, sizeof p, "%s/mallory/transpose.cu", in);
	cr_assert_eq(link(secret, p), 0);
	snprintf(p, sizeof p, "%s/trudy.cu", in);
	cr_assert_eq(link(secret, p), 0);
}

Test(batch_links, a_hard_link_is_refused_like_a_symbolic_link, .init = setup, .fini = teardown)
{
	char err[256], why[256], copy[192];
	struct roster r;
	hard_linked_class();
	cr_assert_eq(batch_scan(in, lab_find("lab3"), NULL, &r, err, sizeof err), 0, "%s", err);
	cr_assert_eq(r.n, 2);
	for (int i = 0; i < 2; i++)
		cr_expect(strstr(r.students[i].problem, "is a hard link"), "%s: %s", r.students[i].name,
			  r.students[i].problem);
	/* The copy checks the opened file again. */
	snprintf(copy, sizeof copy, "%s/copy.cu", dir);
	cr_expect_eq(batch_copy_source(r.students[0].source, copy, why, sizeof why), -1, "copied a hard link");
	cr_expect_eq(access(copy, F_OK), -1);
	roster_free(&r);
}

Test(batch_links, a_file_its_folders_owner_cannot_read_is_refused, .init = setup, .fini = teardown)
{
	if (geteuid() != 0)
		cr_skip_test("not root: cannot give a file to another user here");
	char p[256], err[256];
	struct roster r;
	/* oscar's folder is uid 4242's, the file root's and 0600: he could not read it. */
	snprintf(p, sizeof p, "%s/oscar", in);
	cr_assert_eq(mkdir(p, 0755), 0);
	cr_assert_eq(chown(p, 4242, 4242), 0);
	snprintf(p, sizeof p, "%s/oscar/transpose.cu", in);
	write_file(p, "// " SECRET "\n", 0600);
	cr_assert_eq(batch_scan(in, lab_find("lab3"), NULL, &r, err, sizeof err), 0, "%s", err);
	cr_assert_eq(r.n, 1);
	cr_expect(strstr(r.students[0].problem, "not readable by the owner of its folder"), "%s",
		  r.students[0].problem);
	roster_free(&r);
}

/* Whether any file under path holds needle (its path in where). */
static int holds(const char *path, const char *needle, char *where, size_t len)
{
	DIR *d = opendir(path);
	struct dirent *e;
	int found = 0;
	while (d && !found && (e = readdir(d))) {
		char p[PATH_MAX];
		struct stat st;
		if (e->d_name[0] == '.')
			continue;
		snprintf(p, sizeof p, "%s/%s", path, e->d_name);
		if (lstat(p, &st) < 0)
			continue;
		if (S_ISDIR(st.st_mode)) {
			found = holds(p, needle, where, len);
			continue;
		}
		FILE *f = S_ISREG(st.st_mode) ? fopen(p, "r") : NULL;
		static char text[1 << 20];
		size_t n = f ? fread(text, 1, sizeof text - 1, f) : 0;
		if (f)
			fclose(f);
		text[n] = '\0';
		if (strstr(text, needle)) {
			snprintf(where, len, "%s", p);
			found = 1;
		}
	}
	if (d)
		closedir(d);
	return found;
}

Test(batch_links, nothing_of_a_hard_linked_secret_reaches_a_report, .init = setup, .fini = teardown,
     .timeout = 300)
{
	char grade[PATH_MAX], where[PATH_MAX] = "";
	if (access(kit_path(grade, sizeof grade, "build/grade"), X_OK) != 0)
		cr_skip_test("the grader is not built: run make");
	hard_linked_class();
	char *argv[] = { grade, "lab3", "--batch", in, "--out", out, "--backend", "emu", "--plot", "none",
			 "--jobs", "1", NULL };
	struct sandbox_limits lim = { .wall_s = 280, .output_cap = 1 << 20 };
	struct child_result res;
	char err[256];
	cr_assert_eq(sandbox_run(argv, &lim, &res, err, sizeof err), 0, "%s", err);
	if (strstr(res.output, "cannot read the kit"))
		cr_skip_test("a batch refuses to run from this folder here: %s", res.output);
	cr_expect(!strstr(res.output, SECRET), "the secret is in the batch's output:\n%s", res.output);
	cr_expect(!holds(out, SECRET, where, sizeof where), "the secret reached %s", where);
	cr_expect(holds(out, "is a hard link", where, sizeof where), "no report says why:\n%s", res.output);
	child_result_free(&res);
}
