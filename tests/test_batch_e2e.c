/*
 * Batch grading end to end, in the emulator, as an instructor runs it:
 *
 *   ./grade lab3 --batch tests/fixtures/hostile --out TMP --backend emu
 *
 * Every fixture there is one student; its header says what the gradebook
 * must say about it ("expect-verdict:", a substring of the verdict; as a
 * normal user "expect-verdict-as-user:" where that differs) and which test
 * groups pass ("expect-exit-group:"). "expect-needs: bwrap" marks a probe
 * that only bubblewrap contains, "isolation" one that bubblewrap or root's
 * sandbox user contains; on a machine without them the verdict is not
 * checked (the escape is then expected, and the threat model says so).
 *
 * The rubric is the lab's own with shorter time limits, so that the
 * endless loop costs seconds, not the minutes a real rubric allows.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <glob.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "batch/batch.h"
#include "grade_runner.h"
#include "gradebook_reader.h"
#include "test_support.h"
#include "sys/isolation.h"
#include "sys/kit_paths.h"
#include "sys/sandbox.h"

#define SALT "hostile-salt-7d41"

static char tmp[64], out[128], rubric[128];

static void setup(void)
{
	test_temp_dir(tmp, sizeof(tmp), "test-batch-e2e");
	snprintf(out, sizeof(out), "%s/graded", tmp);
	snprintf(rubric, sizeof(rubric), "%s/lab.ini", tmp);
}

static void teardown(void)
{
	remove_tree(tmp);
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Lab 3's rubric with each test's limit cut to 10 s and the analysis
 * run's to 20 s: room for a correct kernel on a loaded machine, little
 * time lost on the endless loop. */
static void fast_rubric(void)
{
	lab3_fast_rubric(rubric, 10, 20);
}

/* ./grade lab3 --batch DIR --out OUT ...; returns its exit status, its
 * output (the tail) in log. */
/* As root, a batch runs students as unprivileged uids, which cannot
 * reach a kit in a private folder: the grader refuses, and says so. */
static void skip_if_refused(const char *log)
{
	if (strstr(log, "cannot read the kit"))
		cr_skip_test("the kit is in a folder the sandbox's uid cannot read, so a batch "
			     "refuses to run here (as it should): %s", log);
}

static int run_batch(const char *dir, char *log, size_t len)
{
	char grade[PATH_MAX];
	kit_path(grade, sizeof(grade), "build/grade");
	char *argv[] = { grade, "lab3", "--batch", (char *)dir, "--out", out, "--backend", "emu",
			 "--rubric", rubric, "--salt", SALT, "--plot", "none", "--jobs", "2", NULL };
	struct sandbox_limits lim = { .wall_s = 900, .output_cap = 1 << 20 };
	struct child_result res;
	char err[256];
	cr_assert_eq(sandbox_run(argv, &lim, &res, err, sizeof(err)), 0, "%s", err);
	snprintf(log, len, "%s", child_output_tail(&res, 60));
	int status = res.exited ? res.exit_status : -1;
	child_result_free(&res);
	skip_if_refused(log);
	return status;
}

/* ---- fixture headers -------------------------------------------------------------------- */

/* The text after "// expect-KEY: " (to the end of the line), or NULL. */
static const char *expectation(const char *file, const char *key, char *buf, size_t len)
{
	FILE *f = fopen(file, "r");
	char want[64], line[512];
	const char *found = NULL;
	snprintf(want, sizeof(want), "// expect-%s: ", key);
	for (int i = 0; f && i < 40 && fgets(line, sizeof(line), f); i++)
		if (strncmp(line, want, strlen(want)) == 0) {
			snprintf(buf, len, "%s", line + strlen(want));
			buf[strcspn(buf, "\r\n")] = '\0';
			found = buf;
			break;
		}
	if (f)
		fclose(f);
	return found;
}

/* Whether this machine contains what the fixture's probe tries. */
static int contained_here(const char *file)
{
	char need[64];
	if (!expectation(file, "needs", need, sizeof(need)))
		return 1;
	if (strcmp(need, "bwrap") == 0)
		return bwrap_available();
	return bwrap_available() || geteuid() == 0;
}

static void student_name(const char *file, char *name, size_t len)
{
	const char *base = strrchr(file, '/');
	snprintf(name, len, "%s", base ? base + 1 : file);
	name[strlen(name) - 3] = '\0';	/* less ".cu" */
}

static void check_student(const char *file, const struct row *r)
{
	char name[256], want[256], path[512], why[512];
	student_name(file, name, sizeof(name));
	cr_assert_not_null(r, "%s has no row in the gradebook", name);
	const char *verdict = r->f[9];
	if (!contained_here(file)) {
		/* Said on stderr, not with cr_log_warn: Criterion fails a whole run
		 * that logged a warning, and hides cr_log_info. */
		fprintf(stderr, "[NOTE] batch_e2e: %s: verdict not checked: this machine has no "
			"sandbox that contains it\n", name);
	} else {
		const char *key = geteuid() != 0 && expectation(file, "verdict-as-user", want, sizeof(want))
					  ? "verdict-as-user" : "verdict";
		cr_assert_not_null(expectation(file, key, want, sizeof(want)), "%s: no expect-%s", file, key);
		cr_expect_not_null(strstr(verdict, want), "%s: the verdict is '%s', expected '%s'", name,
				   verdict, want);
	}
	snprintf(path, sizeof(path), "%s/students/%s/report.json", out, name);
	json_t *report = json_load_file(path, 0, NULL);
	cr_assert_not_null(report, "%s: no report.json", name);
	cr_expect_geq(check_expectations(file, "exit-group", report, why, sizeof(why)), 1, "%s: %s", name,
		      why);
	/* Gradescope's file agrees with the gradebook. */
	snprintf(path, sizeof(path), "%s/students/%s/results.json", out, name);
	json_t *gs = json_load_file(path, 0, NULL);
	cr_assert_not_null(gs, "%s: no results.json", name);
	cr_expect(json_is_array(json_object_get(gs, "tests")));
	double score = json_number_value(json_object_get(gs, "score"));
	cr_expect_float_eq(score, atof(r->f[1]), 0.01, "%s: Gradescope %g, gradebook %s", name, score,
			   r->f[1]);
	json_decref(gs);
	json_decref(report);
}

/* ---- what must not have happened -------------------------------------------------------------- */

static int markers;

static int find_marker(const char *p, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	if (strcmp(p + ftw->base, "escape-marker-hostile.txt") == 0) {
		cr_log_error("a submission wrote %s", p);
		markers++;
		remove(p);
	}
	return 0;
}

/* The salt appears in no file the batch wrote. */
static const char *salt_file;

static int find_salt(const char *p, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)ftw;
	if (flag != FTW_F || st->st_size > (8 << 20))
		return 0;
	FILE *f = fopen(p, "rb");
	static char buf[8 << 20];
	size_t n = f ? fread(buf, 1, sizeof(buf), f) : 0;
	if (f)
		fclose(f);
	if (memmem(buf, n, SALT, strlen(SALT)))
		salt_file = p;
	return salt_file != NULL;
}


Test(batch_e2e, hostile_class, .init = setup, .fini = teardown, .timeout = 900)
{
	if (!have_emulator())
		cr_skip_test("the emulator is not built (build/emu/cuemu-cc): run make emu");
	char dir[PATH_MAX], pattern[PATH_MAX + 8], log[16384];
	kit_path(dir, sizeof(dir), "tests/fixtures/hostile");
	snprintf(pattern, sizeof(pattern), "%s/*.cu", dir);
	glob_t g;
	cr_assert_eq(glob(pattern, 0, NULL, &g), 0);
	fast_rubric();

	double t0 = now_s();
	int rc = run_batch(dir, log, sizeof(log));
	double took = now_s() - t0;
	cr_assert_eq(rc, 0, "the batch exited %d:\n%s", rc, log);
	cr_log_info("%zu students in %.0f s", g.gl_pathc, took);

	struct row *rows = calloc(MAX_ROWS, sizeof(*rows));
	int n = read_gradebook(out, rows, MAX_ROWS);
	cr_expect_eq(n, (int)g.gl_pathc, "%d rows for %zu students:\n%s", n, g.gl_pathc, log);
	for (size_t i = 0; i < g.gl_pathc; i++) {
		char name[256];
		student_name(g.gl_pathv[i], name, sizeof(name));
		check_student(g.gl_pathv[i], find_row(rows, n, name));
	}

	char kit[PATH_MAX];
	nftw(kit_path(kit, sizeof(kit), ""), find_marker, 32, FTW_PHYS);
	cr_expect_eq(markers, 0, "a submission wrote outside its folder");
	nftw(out, find_salt, 16, FTW_PHYS);
	cr_expect_null(salt_file, "the salt is written in %s", salt_file ? salt_file : "");
	cr_expect_eq(processes_named("hostile-bomb"), 0, "children of the fork bomb outlived the batch");

	/* Again: nothing changed, so nothing is graded, and it is quick. */
	t0 = now_s();
	rc = run_batch(dir, log, sizeof(log));
	cr_expect_eq(rc, 0, "the rerun exited %d:\n%s", rc, log);
	cr_expect_lt(now_s() - t0, 30, "the rerun graded again?\n%s", log);
	char path[256];
	snprintf(path, sizeof(path), "%s/batch.json", out);
	json_t *b = json_load_file(path, 0, NULL);
	cr_expect_eq(json_integer_value(json_object_get(b, "graded")), 0, "%s", log);
	cr_expect_eq(json_integer_value(json_object_get(b, "resumed")), (json_int_t)g.gl_pathc, "%s", log);
	cr_expect_eq(read_gradebook(out, rows, MAX_ROWS), n, "the rerun lost rows");
	json_decref(b);
	free(rows);
	globfree(&g);
}

/*
 * The batch killed outright (kill -9, a power cut) loses no finished
 * student, and the same command finishes the rest.
 */
Test(batch_e2e, killed_batch_resumes, .init = setup, .fini = teardown, .timeout = 600)
{
	if (!have_emulator())
		cr_skip_test("the emulator is not built (build/emu/cuemu-cc): run make emu");
	char in[128], src[PATH_MAX], dst[256], log[16384], grade[PATH_MAX];
	const char *names[] = { "ana", "ben", "cho", "dev", "eli", "fay" };
	snprintf(in, sizeof(in), "%s/class", tmp);
	mkdir(in, 0755);
	kit_path(src, sizeof(src), "solutions/lab3-transpose/transpose.cu");
	for (int i = 0; i < 6; i++) {
		snprintf(dst, sizeof(dst), "%s/%s.cu", in, names[i]);
		char cmd[PATH_MAX + 300];
		snprintf(cmd, sizeof(cmd), "cp '%s' '%s'", src, dst);
		cr_assert_eq(system(cmd), 0);
	}
	fast_rubric();
	kit_path(grade, sizeof(grade), "build/grade");
	char first_log[PATH_MAX];
	snprintf(first_log, sizeof(first_log), "%s/first-run.log", tmp);
	pid_t pid = fork();
	if (pid == 0) {
		int fd = open(first_log, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		dup2(fd, 1);
		dup2(fd, 2);
		execl(grade, grade, "lab3", "--batch", in, "--out", out, "--backend", "emu", "--rubric",
		      rubric, "--salt", SALT, "--plot", "none", "--jobs", "1", (char *)NULL);
		_exit(127);
	}
	/* Kill it once two students are in the gradebook. */
	struct row *rows = calloc(MAX_ROWS, sizeof(*rows));
	int n = 0, exited = 0;
	for (int i = 0; i < 1200 && n < 2 && !exited; i++) {
		struct timespec ts = { 0, 100 * 1000 * 1000 };
		nanosleep(&ts, NULL);
		n = read_gradebook(out, rows, MAX_ROWS);
		exited = waitpid(pid, NULL, WNOHANG) == pid;
	}
	if (!exited) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
	} else {
		FILE *f = fopen(first_log, "r");
		size_t got = f ? fread(log, 1, sizeof(log) - 1, f) : 0;
		log[got] = '\0';
		if (f)
			fclose(f);
		skip_if_refused(log);
	}
	int before = read_gradebook(out, rows, MAX_ROWS);
	cr_assert_geq(before, 2, "the gradebook had %d rows", before);
	cr_assert_lt(before, 6, "the batch finished before it could be killed");
	for (int i = 0; i < before; i++)
		cr_expect_str_eq(rows[i].f[9], "passed", "%s: %s", rows[i].f[0], rows[i].f[9]);

	int rc = run_batch(in, log, sizeof(log));
	cr_expect_eq(rc, 0, "%s", log);
	cr_expect_eq(read_gradebook(out, rows, MAX_ROWS), 6, "%s", log);
	const char *skipped = strstr(log, "charts skipped: --plot none\n");
	cr_expect(skipped && !strstr(skipped + 1, "charts skipped"), "the class's charts not skipped once:\n%s",
		  log);
	char path[256];
	snprintf(path, sizeof(path), "%s/batch.json", out);
	json_t *b = json_load_file(path, 0, NULL);
	cr_expect_geq(json_integer_value(json_object_get(b, "resumed")), before,
		      "students finished before the kill were graded again:\n%s", log);
	json_decref(b);
	free(rows);
}

/* ---- one scale ---------------------------------------------------------------------------- */

/* DIR/NAME/FILE, a copy of the kit's file src (NULL: the folder stays empty). */
static void student_folder(const char *dir, const char *name, const char *file, const char *src)
{
	char path[PATH_MAX], from[PATH_MAX], cmd[3 * PATH_MAX];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	cr_assert_eq(mkdir(path, 0755), 0, "%s: %s", path, strerror(errno));
	if (!src)
		return;
	snprintf(cmd, sizeof(cmd), "cp '%s' '%s/%s'", kit_path(from, sizeof(from), src), path, file);
	cr_assert_eq(system(cmd), 0, "%s", cmd);
}

/* Whether s holds the grader's work folders (build/work/...). */
static int names_work_folder(const char *s)
{
	return s && strstr(s, "build/work") != NULL;
}

/* Every row of LAB's emulator batch of these students is out of 100; each
 * folder has a results.json that agrees; nothing names the work folders. */
static void one_scale(const char *lab, const char *file, const char **names, const char **srcs, int n)
{
	char in[128], log[16384], grade[PATH_MAX];
	snprintf(in, sizeof(in), "%s/class-%s", tmp, lab);
	cr_assert_eq(mkdir(in, 0755), 0);
	for (int i = 0; i < n; i++)
		student_folder(in, names[i], file, srcs[i]);
	kit_path(grade, sizeof(grade), "build/grade");
	char *argv[] = { grade, (char *)lab, "--batch", in, "--out", out, "--backend", "emu", "--plot",
			 "none", "--jobs", "2", NULL };
	struct sandbox_limits lim = { .wall_s = 900, .output_cap = 1 << 20 };
	struct child_result res;
	char err[256];
	cr_assert_eq(sandbox_run(argv, &lim, &res, err, sizeof(err)), 0, "%s", err);
	snprintf(log, sizeof(log), "%s", child_output_tail(&res, 60));
	child_result_free(&res);
	if (strstr(log, "cannot read the kit"))
		cr_skip_test("the sandbox's uid cannot read the kit here: %s", log);
	struct row *rows = calloc(MAX_ROWS, sizeof(*rows));
	cr_assert_eq(read_gradebook(out, rows, MAX_ROWS), n, "%s", log);
	for (int i = 0; i < n; i++) {
		const struct row *r = find_row(rows, n, names[i]);
		cr_assert_not_null(r, "%s: no row\n%s", names[i], log);
		cr_expect_str_eq(r->f[2], "100", "%s %s: max_score '%s' (%s)", lab, names[i], r->f[2], r->f[9]);
		char path[512];
		snprintf(path, sizeof(path), "%s/students/%s/results.json", out, names[i]);
		json_t *gs = json_load_file(path, 0, NULL);
		cr_assert_not_null(gs, "%s %s: no results.json", lab, names[i]);
		json_t *extra = json_object_get(gs, "extra_data");
		cr_expect_float_eq(json_number_value(json_object_get(extra, "max_score")), 100, 0, "%s", names[i]);
		cr_expect_float_eq(json_number_value(json_object_get(gs, "score")), atof(r->f[1]), 0.005,
				   "%s: Gradescope and the gradebook differ", names[i]);
		size_t k;
		json_t *t;
		double max = 0;
		json_array_foreach(json_object_get(gs, "tests"), k, t) {
			const char *status = json_string_value(json_object_get(t, "status"));
			const char *output = json_string_value(json_object_get(t, "output"));
			cr_expect(status && (strcmp(status, "passed") == 0 || strcmp(status, "failed") == 0),
				  "%s: a test without a status", names[i]);
			cr_expect(!names_work_folder(output), "%s: %s", names[i], output);
			max += json_number_value(json_object_get(t, "max_score"));
		}
		cr_expect_float_eq(max, 100, 0.05, "%s: the tests' maxima add up to %g", names[i], max);
		if (!srcs[i])
			cr_expect(strstr(json_string_value(json_object_get(gs, "output")), "no submission: expected "),
				  "%s: %s", names[i], json_string_value(json_object_get(gs, "output")));
		json_decref(gs);
		snprintf(path, sizeof(path), "%s/students/%s/report.txt", out, names[i]);
		FILE *f = fopen(path, "r");
		char text[1 << 16] = "";
		size_t got = f ? fread(text, 1, sizeof(text) - 1, f) : 0;
		text[got] = '\0';
		if (f)
			fclose(f);
		cr_expect(!f || strstr(text, "/ 100\n"), "%s: report.txt is not out of 100:\n%s", names[i], text);
		cr_expect(!names_work_folder(text), "%s: report.txt names the work folder:\n%s", names[i], text);
	}
	free(rows);
	/* One seed for the class, drawn by the batch: every graded student's inputs the same. */
	uint64_t seed = 0;
	for (int i = 0; i < n; i++) {
		char path[512];
		struct summary s;
		snprintf(path, sizeof(path), "%s/students/%s/summary.json", out, names[i]);
		if (summary_read(path, &s) != 0 || s.seed == 0)
			continue;
		if (seed == 0)
			seed = s.seed;
		cr_expect_eq(s.seed, seed, "%s: seed %llu, another student's %llu", names[i],
			     (unsigned long long)s.seed, (unsigned long long)seed);
	}
	cr_expect_neq(seed, 0, "no student's summary names a seed");
}

Test(batch_e2e, one_scale_lab2, .init = setup, .fini = teardown, .timeout = 900)
{
	if (!have_emulator())
		cr_skip_test("the emulator is not built (build/emu/cuemu-cc): run make emu");
	const char *names[] = { "hs_warp", "hs", "blelloch", "racy", "one_block", "empty", "broken" };
	const char *srcs[] = { "tests/fixtures/lab2/hillis_steele_warp.cu", "tests/fixtures/lab2/hillis_steele.cu",
			       "tests/fixtures/lab2/blelloch_padded.cu", "tests/fixtures/lab2/racy.cu",
			       "tests/fixtures/lab2/one_block.cu", NULL, "tests/fixtures/hostile/cub_call.cu" };
	one_scale("lab2", "scan.cu", names, srcs, 7);
}

Test(batch_e2e, one_scale_lab3, .init = setup, .fini = teardown, .timeout = 900)
{
	if (!have_emulator())
		cr_skip_test("the emulator is not built (build/emu/cuemu-cc): run make emu");
	const char *names[] = { "naive", "padded", "no_bounds", "refused", "empty", "broken" };
	const char *srcs[] = { "tests/fixtures/lab3/naive.cu", "tests/fixtures/lab3/padded.cu",
			       "tests/fixtures/lab3/no_bounds.cu", "tests/fixtures/hostile/thrust_call.cu", NULL,
			       "tests/fixtures/lab1/block_scan.cu" };
	one_scale("lab3", "transpose.cu", names, srcs, 6);
}
