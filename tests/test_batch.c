/*
 * Batch grading, piece by piece: the gradebook's CSV, the verdicts (made
 * from the messages the real correctness, harness and integrity code
 * writes, so that a change of wording there shows here), the listing of a
 * class folder, the summaries a rerun resumes from, Gradescope's JSON and
 * the progress line's arithmetic. The whole batch is in test_batch_e2e.c.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../common/guard.h"
#include "batch/batch.h"
#include "steps/correctness.h"
#include "steps/harness_door.h"
#include "test_support.h"
#include "steps/integrity.h"
#include "sys/kit_paths.h"
#include "steps/rubric.h"

extern const struct lab lab3_transpose;

/* ---- helpers -------------------------------------------------------------- */

static char *csv_of(const char *s)
{
	char *buf = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&buf, &n);
	csv_field(f, s);
	fclose(f);
	return buf;
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	cr_assert_not_null(f, "%s: %s", path, strerror(errno));
	static char buf[1 << 16];
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	return buf;
}

static void temp_dir(char *out, size_t len)
{
	snprintf(out, len, "/tmp/test-batch-XXXXXX");
	cr_assert_not_null(mkdtemp(out));
}

static void rm_tree(const char *dir)
{
	remove_tree(dir);
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	cr_assert_not_null(f, "%s", path);
	fputs(text, f);
	fclose(f);
}

/* ---- CSV ------------------------------------------------------------------- */

Test(batch_csv, plain_fields_stay_bare)
{
	cr_expect_str_eq(csv_of("alice"), "alice");
	cr_expect_str_eq(csv_of("did not build"), "did not build");
	cr_expect_str_eq(csv_of(""), "");
}

Test(batch_csv, rfc4180_quoting)
{
	cr_expect_str_eq(csv_of("refused: calls cub::f(float const*, int)"),
			 "\"refused: calls cub::f(float const*, int)\"");
	cr_expect_str_eq(csv_of("say \"hi\""), "\"say \"\"hi\"\"\"");
	cr_expect_str_eq(csv_of("two\nlines"), "\"two\nlines\"");
	cr_expect_str_eq(csv_of("cr\rhere"), "\"cr\rhere\"");
	cr_expect_str_eq(csv_of(" padded "), "\" padded \"");
}

/* A student named "=HYPERLINK(...)" must not become a live formula. */
Test(batch_csv, formulas_are_defused)
{
	cr_expect_str_eq(csv_of("=1+1"), "'=1+1");
	cr_expect_str_eq(csv_of("+1"), "'+1");
	cr_expect_str_eq(csv_of("-1"), "'-1");
	cr_expect_str_eq(csv_of("@SUM(A1)"), "'@SUM(A1)");
	cr_expect_str_eq(csv_of("=HYPERLINK(\"http://x\",\"y\")"),
			 "\"'=HYPERLINK(\"\"http://x\"\",\"\"y\"\")\"");
}

Test(batch_csv, gradebook_rows_and_empty_columns)
{
	char dir[64], path[128], err[256];
	temp_dir(dir, sizeof(dir));
	struct summary rows[2];
	memset(rows, 0, sizeof(rows));
	snprintf(rows[0].student, sizeof(rows[0].student), "alice");
	snprintf(rows[0].backend, sizeof(rows[0].backend), "cuda");
	rows[0].score = 87.5;
	rows[0].max_score = 100;
	rows[0].has_group[2] = rows[0].has_group[3] = 1;	/* correctness, performance */
	rows[0].group_points[2] = 50;
	rows[0].group_points[3] = 37.5;
	rows[0].percent_of_copy = 71.26;
	snprintf(rows[0].verdict, sizeof(rows[0].verdict), "slow: 71%% of copy, 37.5 of 40 points");
	summary_problem("bob, jr", "", "no submission: expected transpose.cu", 100, &rows[1]);
	snprintf(path, sizeof(path), "%s/gradebook.csv", dir);
	cr_assert_eq(gradebook_write(path, rows, 2, err, sizeof(err)), 0, "%s", err);
	cr_expect_str_eq(slurp(path),
			 "student,score,max_score,build,integrity,correctness,performance,analysis,"
			 "percent_of_copy,verdict\r\n"
			 "alice,87.5,100,,,50,37.5,,71.3,\"slow: 71% of copy, 37.5 of 40 points\"\r\n"
			 "\"bob, jr\",0,100,,,,,,,no submission: expected transpose.cu\r\n");
	rm_tree(dir);
}

/* ---- clean text --------------------------------------------------------------- */


Test(batch_scan, students_skipped_entries_and_problems)
{
	char dir[64], p[256], err[256];
	temp_dir(dir, sizeof(dir));
	snprintf(p, sizeof(p), "%s/alice", dir);
	mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/alice/transpose.cu", dir);
	write_file(p, "// alice\n");
	snprintf(p, sizeof(p), "%s/alice/notes.txt", dir);	/* extra files in a folder are ignored */
	write_file(p, "x");
	snprintf(p, sizeof(p), "%s/bob.cu", dir);
	write_file(p, "// bob\n");
	snprintf(p, sizeof(p), "%s/carol", dir);	/* a folder without the lab's file */
	mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/dave", dir);	/* a link to a folder: not followed */
	cr_assert_eq(symlink("alice", p), 0);
	snprintf(p, sizeof(p), "%s/eve", dir);	/* a folder whose file is a link */
	mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/eve/transpose.cu", dir);
	cr_assert_eq(symlink("/etc/passwd", p), 0);
	snprintf(p, sizeof(p), "%s/bob", dir);	/* the same student twice */
	mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/README.md", dir);
	write_file(p, "x");
	snprintf(p, sizeof(p), "%s/.DS_Store", dir);
	write_file(p, "x");
	snprintf(p, sizeof(p), "%s/graded", dir);	/* the output folder inside the input */
	mkdir(p, 0755);
	char big[300];
	snprintf(big, sizeof(big), "%s/frank.cu", dir);
	FILE *f = fopen(big, "w");
	fseek(f, BATCH_MAX_SOURCE + 1, SEEK_SET);
	fputc('x', f);
	fclose(f);

	struct roster r;
	char out[PATH_MAX];
	cr_assert_not_null(realpath(p, out));
	cr_assert_eq(batch_scan(dir, &lab3_transpose, out, &r, err, sizeof(err)), 0, "%s", err);
	const char *names[] = { "alice", "bob", "carol", "eve", "frank" };
	cr_assert_eq(r.n, 5, "%d students", r.n);
	for (int i = 0; i < 5; i++)
		cr_expect_str_eq(r.students[i].name, names[i]);
	cr_expect_str_eq(r.students[0].problem, "");
	cr_expect(strstr(r.students[0].source, "/alice/transpose.cu"));
	/* bob/ comes before bob.cu in name order: the folder is the student. */
	cr_expect_str_eq(r.students[1].problem, "no submission: expected transpose.cu");
	cr_expect_str_eq(r.students[2].problem, "no submission: expected transpose.cu");
	cr_expect_str_eq(r.students[3].problem, "not graded: transpose.cu is a symbolic link");
	cr_expect(strstr(r.students[4].problem, "larger than"), "%s", r.students[4].problem);
	/* .DS_Store, README.md, bob.cu, dave, graded: in name order */
	cr_assert_eq(r.n_skipped, 5, "%d skipped", r.n_skipped);
	cr_expect_str_eq(r.skipped[0].name, ".DS_Store");
	cr_expect_str_eq(r.skipped[0].why, "hidden");
	cr_expect_str_eq(r.skipped[1].name, "README.md");
	cr_expect_str_eq(r.skipped[1].why, "not a folder or a .cu file");
	cr_expect_str_eq(r.skipped[2].name, "bob.cu");
	cr_expect_str_eq(r.skipped[2].why, "another entry has the same student name");
	cr_expect_str_eq(r.skipped[3].why, "a symbolic link (not followed)");
	cr_expect_str_eq(r.skipped[4].why, "the batch's output folder");
	roster_free(&r);
	rm_tree(dir);
}

Test(batch_scan, copy_refuses_links_and_existing_files)
{
	char dir[64], a[128], b[128], link[128], why[256];
	temp_dir(dir, sizeof(dir));
	snprintf(a, sizeof(a), "%s/a.cu", dir);
	snprintf(b, sizeof(b), "%s/b.cu", dir);
	snprintf(link, sizeof(link), "%s/l.cu", dir);
	write_file(a, "int x;\n");
	cr_assert_eq(symlink("/etc/passwd", link), 0);
	cr_expect_eq(batch_copy_source(a, b, why, sizeof(why)), 0, "%s", why);
	cr_expect_str_eq(slurp(b), "int x;\n");
	cr_expect_eq(batch_copy_source(a, b, why, sizeof(why)), -1, "overwrote an existing file");
	unlink(b);
	cr_expect_eq(batch_copy_source(link, b, why, sizeof(why)), -1, "followed a link");
	rm_tree(dir);
}

/* ---- resume ---------------------------------------------------------------------------- */

Test(batch_resume, hash_changes_with_each_input)
{
	char dir[64], src[128], rubric[128], h[6][65];
	temp_dir(dir, sizeof(dir));
	snprintf(src, sizeof(src), "%s/t.cu", dir);
	snprintf(rubric, sizeof(rubric), "%s/lab.ini", dir);
	write_file(src, "kernel v1\n");
	write_file(rubric, "[correctness]\n");
	cr_assert_eq(batch_hash("lab3", rubric, "", "emu", src, h[0]), 0);
	cr_assert_eq(batch_hash("lab3", rubric, "", "emu", src, h[1]), 0);
	cr_expect_str_eq(h[0], h[1], "the same inputs hash the same");
	cr_assert_eq(batch_hash("lab3", rubric, "s3cret", "emu", src, h[2]), 0);
	cr_assert_eq(batch_hash("lab2", rubric, "", "emu", src, h[3]), 0);
	cr_assert_eq(batch_hash("lab3", rubric, "", "cuda NVIDIA H100", src, h[4]), 0);
	write_file(src, "kernel v2\n");
	cr_assert_eq(batch_hash("lab3", rubric, "", "emu", src, h[5]), 0);
	for (int i = 2; i < 6; i++)
		cr_expect_str_neq(h[0], h[i], "input %d did not change the hash", i);
	write_file(rubric, "[correctness]\ntimeout_s = 5\n");
	cr_assert_eq(batch_hash("lab3", rubric, "", "emu", src, h[1]), 0);
	cr_expect_str_neq(h[1], h[5], "the rubric did not change the hash");
	cr_expect_eq(strlen(h[0]), 64);
	cr_expect_eq(batch_hash("lab3", rubric, "", "emu", "/nonexistent", h[1]), -1);
	rm_tree(dir);
}

Test(batch_resume, kit_fingerprint_follows_the_build)
{
	char dir[64], a[128], b[128], h1[65], h2[65], h3[65];
	temp_dir(dir, sizeof(dir));
	snprintf(a, sizeof(a), "%s/grade", dir);
	snprintf(b, sizeof(b), "%s/missing", dir);
	write_file(a, "build 1");
	const char *paths[] = { a, b };
	batch_fingerprint(paths, 2, h1);
	batch_fingerprint(paths, 1, h2);
	cr_expect_str_eq(h1, h2, "a missing file counts for nothing");
	write_file(a, "build 2");
	batch_fingerprint(paths, 2, h3);
	cr_expect_str_neq(h1, h3, "a rebuilt grader has the same fingerprint");
	rm_tree(dir);
}

Test(batch_resume, summary_round_trip)
{
	char dir[64], path[128], err[256];
	temp_dir(dir, sizeof(dir));
	snprintf(path, sizeof(path), "%s/summary.json", dir);
	struct summary s, back;
	memset(&s, 0, sizeof(s));
	snprintf(s.student, sizeof(s.student), "zo\xc3\xab \"q\"");
	snprintf(s.hash, sizeof(s.hash), "%064d", 7);
	s.complete = 1;
	s.score = 56.25;
	s.max_score = 60;
	s.has_group[2] = 1;
	s.group_points[2] = 46.25;
	s.percent_of_copy = -1;
	snprintf(s.verdict, sizeof(s.verdict), "refused: calls \xff\xfe odd");
	s.exit_status = 1;
	s.seed = 18446744073709551615ull;
	snprintf(s.backend, sizeof(s.backend), "emu");
	s.wall_s = 3.5;
	cr_assert_eq(summary_write(path, &s, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(summary_read(path, &back), 0);
	cr_expect_str_eq(back.student, s.student);
	cr_expect_str_eq(back.hash, s.hash);
	cr_expect(back.complete);
	cr_expect_float_eq(back.score, 56.25, 1e-9);
	cr_expect_float_eq(back.max_score, 60, 1e-9);
	cr_expect(back.has_group[2] && !back.has_group[0] && !back.has_group[3]);
	cr_expect_float_eq(back.group_points[2], 46.25, 1e-9);
	cr_expect_lt(back.percent_of_copy, 0);
	cr_expect_str_eq(back.verdict, "refused: calls ?? odd", "invalid UTF-8 is replaced: %s", back.verdict);
	cr_expect_eq(back.seed, s.seed, "a seed above 2^53 survives");
	cr_expect_eq(back.exit_status, 1);
	write_file(path, "{\"student\": \"x\", trunc");
	cr_expect_eq(summary_read(path, &back), -1, "a broken summary is no summary");
	rm_tree(dir);
}

/* The salt reaches the seeds, and leaves argv. */
Test(batch_resume, salt_is_taken_then_wiped)
{
	char arg1[] = "s3cret", arg2[] = "s3cret", arg3[] = "other", text[64];
	struct options a, b, c, none;
	memset(&a, 0, sizeof(a));
	memset(&none, 0, sizeof(none));
	a.salt = arg1;
	b = a;
	b.salt = arg2;
	c = a;
	c.salt = arg3;
	uint64_t want = options_salt(&b);
	uint64_t got = batch_take_salt(&a, text, sizeof(text));
	cr_expect_eq(got, want, "the salt was not the same as options_salt's");
	cr_expect_neq(got, options_salt(&none), "the salt was lost (wiped before it was used?)");
	cr_expect_neq(batch_take_salt(&c, text, sizeof(text)), got, "two salts, one seed");
	cr_expect_str_eq(text, "other");
	cr_expect_eq(arg1[0], '\0', "the salt is still in argv");
	cr_expect_eq(memcmp(arg1, "\0\0\0\0\0\0", 6), 0);
	cr_expect_eq(batch_take_salt(&none, text, sizeof(text)), 0);
	cr_expect_str_eq(text, "");
}

/* ---- Gradescope -------------------------------------------------------------------------- */

Test(batch_gradescope, results_json_follows_the_spec)
{
	struct grade g;
	grade_init(&g, &lab3_transpose);
	g.seed = 42;
	g.backend = BACKEND_EMU;
	add_graded_test(&g, "build (emulator)", GROUP_BUILD, TEST_PASSED, 0, 0, "");
	add_graded_test(&g, "correctness 1x1", GROUP_CORRECTNESS, TEST_PASSED, 25, 25, "");
	add_graded_test(&g, "correctness 31x33", GROUP_CORRECTNESS, TEST_FAILED, 0, 25, "31x33: wrong \xff");
	add_graded_test(&g, "bandwidth 16384x16384", GROUP_PERFORMANCE, TEST_NOT_MEASURED, 0, 0, "needs a GPU");
	json_t *j = gradescope_json(&g, "correctness failed on 31x33: wrong output", 3.6);
	cr_assert_not_null(j);
	cr_expect_float_eq(json_number_value(json_object_get(j, "score")), 25, 1e-9);
	cr_expect_eq(json_integer_value(json_object_get(j, "execution_time")), 4);
	cr_expect(strstr(json_string_value(json_object_get(j, "output")), "correctness failed on 31x33"));
	cr_expect_str_eq(json_string_value(json_object_get(j, "visibility")), "visible");
	json_t *tests = json_object_get(j, "tests");
	cr_assert_eq(json_array_size(tests), 4);
	json_t *t = json_array_get(tests, 2);
	cr_expect_str_eq(json_string_value(json_object_get(t, "name")), "correctness 31x33");
	cr_expect_float_eq(json_number_value(json_object_get(t, "max_score")), 25, 1e-9);
	cr_expect_str_eq(json_string_value(json_object_get(t, "status")), "failed");
	cr_expect_str_eq(json_string_value(json_object_get(t, "output")), "31x33: wrong ?");
	cr_expect_str_eq(json_string_value(json_array_get(json_object_get(t, "tags"), 0)), "correctness");
	cr_expect_str_eq(json_string_value(json_object_get(json_array_get(tests, 3), "status")), "failed",
			 "a test not measured here is failed: Gradescope shows one without a status as passed");
	cr_expect_float_eq(json_number_value(json_object_get(json_object_get(j, "extra_data"), "max_score")),
			   50, 1e-9);
	json_decref(j);
	grade_free(&g);
}

Test(batch_gradescope, build_failure_shows_the_compiler)
{
	struct grade g;
	grade_init(&g, &lab3_transpose);
	g.build_failed = 1;
	snprintf(g.build_log, sizeof(g.build_log), "transpose.cu:3: error: expected ';'");
	add_graded_test(&g, "build (nvcc)", GROUP_BUILD, TEST_FAILED, 0, 0, "did not compile");
	json_t *j = gradescope_json(&g, "did not build", 1);
	json_t *t = json_array_get(json_object_get(j, "tests"), 0);
	cr_expect_str_eq(json_string_value(json_object_get(t, "output")), "transpose.cu:3: error: expected ';'");
	json_decref(j);
	grade_free(&g);
}

/* ---- progress ------------------------------------------------------------------------------- */

Test(batch_progress, durations)
{
	char b[32];
	cr_expect_str_eq(progress_duration(0, b, sizeof(b)), "0s");
	cr_expect_str_eq(progress_duration(59.4, b, sizeof(b)), "59s");
	cr_expect_str_eq(progress_duration(200, b, sizeof(b)), "3m20s");
	cr_expect_str_eq(progress_duration(3725, b, sizeof(b)), "1h02m");
}

Test(batch_progress, eta_from_the_pace)
{
	struct progress p;
	progress_init(&p, 40, 0);
	cr_expect_lt(progress_eta(&p, p.start + 10), 0, "no estimate before anyone finished");
	p.done = 10;
	cr_expect_float_eq(progress_eta(&p, p.start + 100), 300, 1e-6);
	p.done = 40;
	cr_expect_float_eq(progress_eta(&p, p.start + 400), 0, 1e-6);
}
