/*
 * The lines the skeleton gave the student (grader/steps/given_lines.h):
 * the pairing itself, and a whole grade of lab 2 in the emulator (and on a
 * GPU), where the skeleton's own stores are marked given, not blamed on the student,
 * a given line the student edited is theirs again, and the skeleton's
 * scratch arrays of block sums are aligned (4 sectors per warp's store).
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "grade_runner.h"
#include "steps/given_lines.h"
#include "sys/kit_paths.h"
#include "test_support.h"

static const char skeleton[] =
	"__global__ void k(int *out)\n"			/* 1 */
	"{\n"						/* 2 */
	"	int x = threadIdx.x;\n"			/* 3 */
	"	/* TODO 1: the sweep: x becomes\n"	/* 4 */
	"	 *         the answer. */\n"		/* 5 */
	"\n"						/* 6 */
	"	__syncthreads();\n"			/* 7 */
	"	out[x] = x;\n"				/* 8 */
	"}\n";						/* 9 */

static const char completed[] =
	"__global__ void k(int *out)\n"			/* 1: given */
	"{\n"						/* 2: given */
	"	int  x =  threadIdx.x;   \n"		/* 3: given, spaced otherwise */
	"	for (int d = 1; d < 32; d <<= 1) {\n"	/* 4 */
	"		__syncthreads();\n"		/* 5: the student's own */
	"		x += d;\n"			/* 6 */
	"	}\n"					/* 7 */
	"	__syncthreads();\n"			/* 8: given */
	"	out[x] = x + 0;\n"			/* 9: edited, the student's */
	"}\n";						/* 10: given */

Test(given_lines, pairs_the_skeletons_lines_outside_its_todos)
{
	struct given_lines gl;
	const int want[] = { 0, 1, 1, 1, 0, 0, 0, 0, 1, 0, 1 };

	cr_assert_eq(given_lines_match(skeleton, completed, &gl), 0);
	cr_assert_eq(gl.n, 10);
	for (int line = 1; line <= 10; line++)
		cr_expect_eq(given_lines_is(&gl, line), want[line], "line %d: given %d, expected %d", line,
			     given_lines_is(&gl, line), want[line]);
	given_lines_free(&gl);

	/* The skeleton's own TODO comment is not given, wherever it stays. */
	cr_assert_eq(given_lines_match(skeleton, skeleton, &gl), 0);
	cr_expect(!given_lines_is(&gl, 4) && !given_lines_is(&gl, 5) && !given_lines_is(&gl, 6));
	cr_expect(given_lines_is(&gl, 7) && given_lines_is(&gl, 8));
	given_lines_free(&gl);
}

/* The 1-based line of the file at rel (in the kit) that holds text. */
static int line_of(const char *rel, const char *text)
{
	char path[4096], buf[1024];
	FILE *f = fopen(kit_path(path, sizeof path, rel), "r");
	cr_assert_not_null(f, "%s", path);
	int n = 0, found = 0;
	while (!found && fgets(buf, sizeof buf, f)) {
		n++;
		found = strstr(buf, text) != NULL;
	}
	fclose(f);
	cr_assert(found, "%s has no line %s", rel, text);
	return n;
}

/* Every row of the analysis at line: 1 when all are given, 0 when none,
 * -1 when mixed or there is none. Also the most sectors per request of a
 * global store there, in *spr. */
static int given_at(json_t *report, int line, double *spr)
{
	size_t i, j;
	json_t *launch, *row;
	int given = 0, not_given = 0;
	*spr = 0;
	json_array_foreach(json_object_get(json_object_get(report, "analysis"), "launches"), i, launch)
		json_array_foreach(json_object_get(launch, "lines"), j, row) {
			if (json_integer_value(json_object_get(row, "line")) != line)
				continue;
			json_is_true(json_object_get(row, "given")) ? given++ : not_given++;
			double s = json_number_value(json_object_get(row, "sectors_per_request"));
			if (strcmp(json_string_value(json_object_get(row, "kind")), "store") == 0 && s > *spr)
				*spr = s;
		}
	return given && !not_given ? 1 : not_given && !given ? 0 : -1;
}

static char *slurp_file(const char *path)
{
	FILE *f = fopen(path, "r");
	cr_assert_not_null(f, "%s", path);
	static char text[1 << 21];
	size_t n = fread(text, 1, sizeof text - 1, f);
	fclose(f);
	text[n] = '\0';
	return text;
}

Test(given_lines, lab2s_given_stores_are_the_skeletons_and_aligned, .timeout = 300)
{
	const char *key = "solutions/lab2-blelloch-scan/answer-key/scan.cu";
	const char *store = "out[base + ai] = temp[PADDED(ai)];";
	char dir[256], edited[512], html[512], extra[600], path[4096], cmd[9000];
	struct graded g;
	double spr;

	if (!have_emulator())
		cr_skip_test("the emulator is not built: run make");
	int line = line_of(key, store), own = line_of(key, "temp[PADDED(b)] += temp[PADDED(a)];");
	test_temp_dir(dir, sizeof dir, "given-lines");
	snprintf(html, sizeof html, "%s/key.html", dir);
	snprintf(extra, sizeof extra, "--html=%s", html);

	/* The answer key: the skeleton's store is given, and 4 sectors a
	 * warp at every level (scanned[] started mid-sector: 4.8). */
	cr_assert_eq(run_grade("lab2", kit_path(path, sizeof path, key), "emu", extra, &g), 0);
	cr_assert_not_null(g.report, "%s", g.output);
	cr_expect_eq(given_at(g.report, line, &spr), 1, "line %d (%s) is not marked given", line, store);
	cr_expect_leq(spr, 4.0, "the skeleton's store at line %d takes %.2f sectors per request", line, spr);
	cr_expect_eq(given_at(g.report, own, &spr), 0, "the student's sweep at line %d is marked given", own);
	char *page = slurp_file(html);
	char tr[64];
	snprintf(tr, sizeof tr, "<tr id=\"L%d\" class=\"given\">", line);
	cr_expect(strstr(page, tr) && strstr(page, "given by the skeleton, not yours"),
		  "the report does not mark line %d as the skeleton's", line);
	graded_free(&g);

	/* The same file with that store edited: the student's line now. */
	snprintf(edited, sizeof edited, "%s/scan.cu", dir);
	snprintf(cmd, sizeof cmd, "sed 's/out\\[base + ai\\] = temp\\[PADDED(ai)\\];/out[base + ai] = "
		 "temp[PADDED(ai)] + 0u;/' '%s' > '%s'", path, edited);
	cr_assert_eq(system(cmd), 0);
	snprintf(html, sizeof html, "%s/edited.html", dir);
	snprintf(extra, sizeof extra, "--html=%s", html);
	cr_assert_eq(run_grade("lab2", edited, "emu", extra, &g), 0);
	cr_assert_not_null(g.report, "%s", g.output);
	cr_expect_eq(given_at(g.report, line, &spr), 0, "the edited line %d is still marked given", line);
	snprintf(tr, sizeof tr, "<tr id=\"L%d\" class=\"figure\">", line);
	cr_expect(strstr(slurp_file(html), tr), "the report does not blame the edited line %d", line);
	graded_free(&g);
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	cr_expect_eq(system(cmd), 0);
}

/* On a GPU the analysis runs in a forked grader (steps/side.h), which must
 * keep the submission's text to mark the skeleton's lines: the same marks
 * in the HTML report as the emulator's grade makes. */
Test(given_lines, a_gpus_report_marks_the_skeletons_lines_too, .timeout = 300)
{
	const char *key = "solutions/lab2-blelloch-scan/answer-key/scan.cu";
	char dir[256], html[512], extra[600], path[4096], why[256], tr[64];
	struct graded g;

	if (!have_gpu(why, sizeof why))
		cr_skip_test("needs a CUDA GPU: %s", why);
	int line = line_of(key, "out[base + ai] = temp[PADDED(ai)];");
	test_temp_dir(dir, sizeof dir, "given-lines-gpu");
	snprintf(html, sizeof html, "%s/key.html", dir);
	snprintf(extra, sizeof extra, "--html=%s", html);
	cr_assert_eq(run_grade("lab2", kit_path(path, sizeof path, key), "cuda", extra, &g), 0);
	cr_assert_not_null(g.report, "%s", g.output);
	snprintf(tr, sizeof tr, "<tr id=\"L%d\" class=\"given\">", line);
	cr_expect(strstr(slurp_file(html), tr), "the GPU's report does not mark line %d as the skeleton's\n%s",
		  line, g.output);
	graded_free(&g);
}
