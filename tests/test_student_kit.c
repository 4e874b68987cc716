/*
 * make student-kit (mk/student_kit.sh): the copy students get holds no
 * solutions, no tests (passing fixtures, conformance files that are whole
 * solutions), no measured variants, nothing for instructors and no
 * history; and no file in it scores full marks: every file that defines a
 * lab's entry point is graded in the emulator and must fall short. And the
 * copy works as its README says: every markdown link in it resolves, no
 * handout sends the reader to answers it lacks, its two commands (make labN
 * && ./grade labN; make test) work in it, and --solution says there is none.
 */
#include <criterion/criterion.h>
#include <ftw.h>
#include <limits.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "grade_runner.h"
#include "labs/lab.h"
#include "sys/kit_paths.h"
#include "test_support.h"

static char tmp[64], copy[128];

/* Unpacks make student-kit's archive into copy/. */
static void unpack(void)
{
	char script[PATH_MAX], cmd[3 * PATH_MAX];
	if (access(kit_path(cmd, sizeof(cmd), ".git"), F_OK) != 0)
		cr_skip_test("the kit is not a git checkout here: there is nothing to archive");
	snprintf(cmd, sizeof(cmd), "sh '%s' '%s/kit.tar.gz' >/dev/null && tar -xzf '%s/kit.tar.gz' -C '%s'",
		 kit_path(script, sizeof(script), "mk/student_kit.sh"), tmp, tmp, tmp);
	cr_assert_eq(system(cmd), 0, "%s", cmd);
}

static void setup(void)
{
	test_temp_dir(tmp, sizeof(tmp), "test-student-kit");
	snprintf(copy, sizeof(copy), "%s/cuda-lab-kit", tmp);
}

static void teardown(void)
{
	remove_tree(tmp);
}

#define MAX_FILES 1024
static char (*files)[PATH_MAX];
static int n_files;

static int list_file(const char *p, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	if (flag == FTW_F && n_files < MAX_FILES)
		snprintf(files[n_files++], PATH_MAX, "%s", p + strlen(copy) + 1);
	return 0;
}

/* The lab whose entry point the file defines (extern "C" ... NAME(), or NULL. */
static const struct lab *defines_entry(const char *path)
{
	FILE *f = fopen(path, "r");
	static char text[1 << 20];
	size_t n = f ? fread(text, 1, sizeof(text) - 1, f) : 0;
	if (f)
		fclose(f);
	text[n] = '\0';
	for (int i = 0; lab_table[i]; i++) {
		char pattern[128];
		regex_t re;
		snprintf(pattern, sizeof(pattern), "void[[:space:]]+%s[[:space:]]*\\(", lab_table[i]->entry);
		cr_assert_eq(regcomp(&re, pattern, REG_EXTENDED | REG_NOSUB), 0);
		int hit = regexec(&re, text, 0, NULL, 0) == 0;
		regfree(&re);
		if (hit)
			return lab_table[i];
	}
	return NULL;
}

Test(student_kit, holds_no_answers_and_nothing_scores_full_marks, .init = setup, .fini = teardown,
     .timeout = 900)
{
	unpack();
	files = calloc(MAX_FILES, PATH_MAX);
	n_files = 0;
	cr_assert_eq(nftw(copy, list_file, 16, FTW_PHYS), 0);
	cr_assert_gt(n_files, 20, "the copy is nearly empty");
	int graded = 0;
	for (int i = 0; i < n_files; i++) {
		const char *f = files[i];
		cr_expect(strncmp(f, "solutions/", 10) != 0 && strncmp(f, "tests/", 6) != 0 &&
			  strncmp(f, "docs/results/lab3-variants/", 27) != 0 && strncmp(f, ".git/", 5) != 0 &&
			  strncmp(f, ".ci/", 4) != 0 && strncmp(f, "handouts/instructors/", 20) != 0,
			  "the students' copy holds %s", f);
		char path[2 * PATH_MAX];
		snprintf(path, sizeof(path), "%s/%s", copy, f);
		size_t len = strlen(f);
		const struct lab *lab = len > 3 && strcmp(f + len - 3, ".cu") == 0 ? defines_entry(path) : NULL;
		if (lab && strncmp(f, "labs/", 5) == 0) {
			/* The pristine copy the grader pairs the student's lines with. */
			char cmd[3 * PATH_MAX];
			snprintf(cmd, sizeof cmd, "cmp -s '%s' '%s/grader/labs/skeletons/%s'", path, copy, f + 5);
			cr_expect_eq(system(cmd), 0, "the copy keeps no pristine skeleton of %s", f);
		}
		if (!lab || !have_emulator() || strncmp(f, "grader/labs/skeletons/", 22) == 0)
			continue;
		struct graded g;
		cr_assert_eq(run_grade(lab->id, path, "emu", NULL, &g), 0);
		double score = json_number_value(json_object_get(g.report, "score"));
		double max = json_number_value(json_object_get(g.report, "max_score"));
		cr_expect(g.report && score < max, "%s scores full marks for %s (%g / %g)", f, lab->id, score,
			  max);
		graded_free(&g);
		graded++;
	}
	cr_expect_geq(graded, have_emulator() ? 4 : 0, "the labs' own files were not found in the copy");
	free(files);
}

/* The links of one markdown file that resolve to nothing in the copy, into
 * bad (appended); code (``` blocks, `spans`) is not looked at. */
static int broken_links(const char *rel, char *bad, size_t len)
{
	char path[PATH_MAX + 256];
	snprintf(path, sizeof(path), "%s/%s", copy, rel);
	FILE *f = fopen(path, "r");
	cr_assert_not_null(f, "%s", path);
	static char text[1 << 20];
	size_t n = fread(text, 1, sizeof(text) - 1, f);
	fclose(f);
	text[n] = '\0';
	char dir[sizeof(path)];
	snprintf(dir, sizeof(dir), "%s", path);
	*strrchr(dir, '/') = '\0';
	int broken = 0;
	for (char *p = text; *p; p++) {
		if (strncmp(p, "```", 3) == 0) {		/* a fenced block: to its end */
			char *end = strstr(p + 3, "```");
			if (!end)
				break;
			p = end + 2;
			continue;
		}
		if (*p == '`') {				/* a code span */
			char *end = strchr(p + 1, '`');
			if (!end)
				break;
			p = end;
			continue;
		}
		if (strncmp(p, "](", 2) != 0)
			continue;
		char target[PATH_MAX];
		size_t k = strcspn(p + 2, ") \n");
		snprintf(target, sizeof(target), "%.*s", (int)k, p + 2);
		target[strcspn(target, "#")] = '\0';
		if (!target[0] || strncmp(target, "http", 4) == 0 || strncmp(target, "mailto:", 7) == 0)
			continue;
		char where[sizeof(dir) + sizeof(target) + 8];
		snprintf(where, sizeof(where), "%s/%s", dir, target);
		if (access(where, F_OK) != 0) {
			size_t at = strlen(bad);
			snprintf(bad + at, len - at, "%s -> %s\n", rel, target);
			broken++;
		}
	}
	return broken;
}

Test(student_kit, every_link_resolves_and_no_answers_are_promised, .init = setup, .fini = teardown,
     .timeout = 120)
{
	unpack();
	files = calloc(MAX_FILES, PATH_MAX);
	n_files = 0;
	cr_assert_eq(nftw(copy, list_file, 16, FTW_PHYS), 0);
	static char bad[1 << 16];
	bad[0] = '\0';
	int broken = 0, pages = 0;
	for (int i = 0; i < n_files; i++) {
		size_t len = strlen(files[i]);
		if (len < 3 || strcmp(files[i] + len - 3, ".md") != 0)
			continue;
		pages++;
		broken += broken_links(files[i], bad, sizeof(bad));
		char cmd[PATH_MAX + 128];
		snprintf(cmd, sizeof(cmd), "grep -q 'Answers are in `solutions/' '%s/%s'", copy, files[i]);
		cr_expect_neq(system(cmd), 0, "%s promises answers in solutions/, which the copy lacks",
			      files[i]);
	}
	cr_expect_geq(pages, 10, "the copy's markdown was not found");
	cr_expect_eq(broken, 0, "%d links lead nowhere in the students' copy:\n%s", broken, bad);
	free(files);
}

/* The README's two commands, in the copy, as a student types them (without
 * the KIT_ROOT these tests run under, which would point the copy's grader at
 * this kit). */
Test(student_kit, the_readmes_commands_work_in_the_copy, .init = setup, .fini = teardown, .timeout = 1500)
{
	unpack();
	char cmd[1024], log[200];
	snprintf(log, sizeof(log), "%s/log", tmp);
	snprintf(cmd, sizeof(cmd), "cd '%s' && unset KIT_ROOT && make -j2 >'%s' 2>&1 && make lab1 >>'%s' 2>&1", copy, log, log);
	cr_assert_eq(system(cmd), 0, "the copy does not build: %s (see %s)", cmd, log);

	/* The skeleton is graded and fails its tests: exit 1, a report. */
	snprintf(cmd, sizeof(cmd), "cd '%s' && unset KIT_ROOT && ./grade lab1 --backend emu --plot none >'%s' 2>&1; "
		 "test $? -eq 1 && grep -q '^Score: ' '%s'", copy, log, log);
	cr_expect_eq(system(cmd), 0, "./grade lab1 in the copy did not grade lab 1's skeleton (%s)", log);

	snprintf(cmd, sizeof(cmd), "cd '%s' && unset KIT_ROOT && make test >'%s' 2>&1 && grep -q 'the kit works here' '%s'",
		 copy, log, log);
	cr_expect_eq(system(cmd), 0, "make test fails in the copy (%s)", log);

	/* --solution: no such thing in the copy, and it says so. */
	snprintf(cmd, sizeof(cmd), "cd '%s' && unset KIT_ROOT && ./grade lab3 --solution >/dev/null 2>'%s'; "
		 "test $? -ne 0 && grep -q 'has no solutions/' '%s'", copy, log, log);
	cr_expect_eq(system(cmd), 0, "./grade lab3 --solution in the copy does not say why it fails (%s)", log);
}
