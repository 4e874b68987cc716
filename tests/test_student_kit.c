/*
 * make student-kit (mk/student_kit.sh): the copy students get holds no
 * solutions, no tests (passing fixtures, conformance files that are whole
 * solutions), no measured variants and no history; and no file in it
 * scores full marks: every file that defines a lab's entry point is graded
 * in the emulator and must fall short.
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

static char tmp[64], copy[128];

static void setup(void)
{
	snprintf(tmp, sizeof(tmp), "/tmp/test-student-kit-XXXXXX");
	cr_assert_not_null(mkdtemp(tmp));
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
	char script[PATH_MAX], cmd[3 * PATH_MAX];
	if (access(kit_path(cmd, sizeof(cmd), ".git"), F_OK) != 0)
		cr_skip_test("the kit is not a git checkout here: there is nothing to archive");
	snprintf(cmd, sizeof(cmd), "sh '%s' '%s/kit.tar.gz' >/dev/null && tar -xzf '%s/kit.tar.gz' -C '%s'",
		 kit_path(script, sizeof(script), "mk/student_kit.sh"), tmp, tmp, tmp);
	cr_assert_eq(system(cmd), 0, "%s", cmd);
	files = calloc(MAX_FILES, PATH_MAX);
	n_files = 0;
	cr_assert_eq(nftw(copy, list_file, 16, FTW_PHYS), 0);
	cr_assert_gt(n_files, 20, "the copy is nearly empty");
	int graded = 0;
	for (int i = 0; i < n_files; i++) {
		const char *f = files[i];
		cr_expect(strncmp(f, "solutions/", 10) != 0 && strncmp(f, "tests/", 6) != 0 &&
			  strncmp(f, "docs/results/", 13) != 0 && strncmp(f, ".git/", 5) != 0,
			  "the students' copy holds %s", f);
		char path[2 * PATH_MAX];
		snprintf(path, sizeof(path), "%s/%s", copy, f);
		size_t len = strlen(f);
		const struct lab *lab = len > 3 && strcmp(f + len - 3, ".cu") == 0 ? defines_entry(path) : NULL;
		if (!lab || !have_emulator())
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
