/*
 * A batch's output folder and resume key: a second batch into
 * the same --out refuses while the first runs; --out inside the kit is
 * refused up front and leaves nothing; an option that changes the grade
 * (--no-analysis, --seed) grades everyone again, the same options resume.
 * The one student's file fails to build at once, so each batch is quick.
 */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "grade_runner.h"
#include "sys/kit_paths.h"
#include "sys/sandbox.h"
#include "test_support.h"

static char tmp[64], class_dir[96], out[96];

static void setup(void)
{
	char src[PATH_MAX], cmd[2 * PATH_MAX];
	test_temp_dir(tmp, sizeof(tmp), "test-batch-out");
	chmod(tmp, 0755);
	snprintf(class_dir, sizeof(class_dir), "%s/class", tmp);
	snprintf(out, sizeof(out), "%s/graded", tmp);
	cr_assert_eq(mkdir(class_dir, 0755), 0);
	snprintf(cmd, sizeof(cmd), "cp '%s' '%s/ana.cu'",
		 kit_path(src, sizeof(src), "tests/fixtures/hostile/include_shadow.cu"), class_dir);
	cr_assert_eq(system(cmd), 0);
}

static void teardown(void)
{
	remove_tree(tmp);
}

/* ./grade lab3 --batch CLASS --out OUT_DIR --backend emu [extra...]; its
 * status, its output in log. */
static int batch(const char *out_dir, const char *const *extra, char *log, size_t len)
{
	char grade[PATH_MAX], err[256];
	kit_path(grade, sizeof(grade), "build/grade");
	char *argv[16] = { grade, "lab3", "--batch", class_dir,
			   "--out", (char *)out_dir, "--backend", "emu", "--plot", "none" };
	int n = 10;
	for (int i = 0; extra && extra[i] && n < 15; i++)
		argv[n++] = (char *)extra[i];
	struct sandbox_limits lim = { .wall_s = 300, .output_cap = 1 << 16 };
	struct child_result res;
	cr_assert_eq(sandbox_run(argv, &lim, &res, err, sizeof(err)), 0, "%s", err);
	snprintf(log, len, "%s", res.output);
	int status = res.exited ? res.exit_status : -1;
	child_result_free(&res);
	if (strstr(log, "cannot read the kit"))
		cr_skip_test("the sandbox's uid cannot read the kit here: %s", log);
	return status;
}

static json_int_t batch_count(const char *key)
{
	char path[256];
	snprintf(path, sizeof(path), "%s/batch.json", out);
	json_t *b = json_load_file(path, 0, NULL);
	json_int_t v = json_integer_value(json_object_get(b, key));
	json_decref(b);
	return v;
}

Test(batch_out, a_second_batch_into_the_same_out_refuses, .init = setup, .fini = teardown, .timeout = 120)
{
	if (!have_emulator())
		cr_skip_test("the emulator is not built: run make");
	char lock[160], log[1 << 16];
	cr_assert_eq(mkdir(out, 0755), 0);
	snprintf(lock, sizeof(lock), "%s/.batch.lock", out);
	int fd = open(lock, O_RDONLY | O_CREAT, 0600);
	cr_assert_eq(flock(fd, LOCK_EX | LOCK_NB), 0);	/* as a running batch holds it */
	cr_expect_eq(batch(out, NULL, log, sizeof(log)), 4, "%s", log);
	cr_expect_not_null(strstr(log, "another batch is writing"), "%s", log);
	char gradebook[160];
	snprintf(gradebook, sizeof(gradebook), "%s/gradebook.csv", out);
	cr_expect_neq(access(gradebook, F_OK), 0, "the second batch wrote a gradebook");
	close(fd);
	cr_expect_eq(batch(out, NULL, log, sizeof(log)), 0, "once the first is done: %s", log);
}

Test(batch_out, out_inside_the_kit_is_refused_up_front, .init = setup, .fini = teardown, .timeout = 120)
{
	char inside[PATH_MAX], log[1 << 16], name[64];
	snprintf(name, sizeof(name), "build/test-batch-out-%d", (int)getpid());
	kit_path(inside, sizeof(inside), name);
	cr_expect_eq(batch(inside, NULL, log, sizeof(log)), 2, "%s", log);
	cr_expect_not_null(strstr(log, "inside the kit"), "%s", log);
	cr_expect_neq(access(inside, F_OK), 0, "%s was made", inside);
	remove_tree(inside);
}

Test(batch_out, options_that_change_the_grade_change_the_resume_key, .init = setup, .fini = teardown,
     .timeout = 300)
{
	if (!have_emulator())
		cr_skip_test("the emulator is not built: run make");
	char log[1 << 16];
	const char *no_analysis[] = { "--no-analysis", NULL };
	const char *seeded[] = { "--no-analysis", "--seed", "7", NULL };
	cr_assert_eq(batch(out, NULL, log, sizeof(log)), 0, "%s", log);
	cr_expect_eq(batch_count("graded"), 1, "%s", log);
	cr_assert_eq(batch(out, no_analysis, log, sizeof(log)), 0, "%s", log);
	cr_expect_eq(batch_count("graded"), 1, "--no-analysis kept the grade made with analysis:\n%s", log);
	cr_assert_eq(batch(out, no_analysis, log, sizeof(log)), 0, "%s", log);
	cr_expect_eq(batch_count("resumed"), 1, "the same options graded again:\n%s", log);
	cr_assert_eq(batch(out, seeded, log, sizeof(log)), 0, "%s", log);
	cr_expect_eq(batch_count("graded"), 1, "--seed kept the grade made with fresh seeds:\n%s", log);
}
