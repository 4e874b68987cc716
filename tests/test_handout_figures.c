/*
 * The handouts' figures against where they come from. Every figure a
 * handout takes from a rubric or a committed measurement carries, just
 * before it, an HTML comment (invisible in the rendered page) naming its
 * source:
 *
 *   <!-- fig rubric lab1 [gpu "NVIDIA H100 80GB HBM3"] upper_pct -->20.9%
 *   <!-- fig rubric lab2 [analysis] shape -->2^20 + 7
 *   <!-- fig results docs/results/emu-work-per-1024.md hillis_steele -->352.3
 *
 * A rubric figure is read with the grader's own rubric code; a results
 * figure is the second cell of the table row whose first cell is the key.
 * The handout's figure must equal the source rounded to the decimals the
 * handout prints (a shape: the same number of elements; text where the
 * source holds no number yet, such as "pending"). Some figures must be
 * marked in each handout, so that an unmarked copy cannot pass.
 */
#include <criterion/criterion.h>
#include <ctype.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "labs/lab.h"
#include "shape.h"
#include "steps/analysis_shape.h"
#include "steps/rubric.h"
#include "sys/kit_paths.h"

#define MARK "<!-- fig "
#define H100 "[gpu \"NVIDIA H100 80GB HBM3\"]"

/* A kit file's text, the caller's to free. */
static char *read_kit(const char *rel)
{
	char path[PATH_MAX];
	FILE *f = fopen(kit_path(path, sizeof(path), rel), "r");
	cr_assert_not_null(f, "cannot open %s", path);
	char *text = calloc(1, 1 << 20);
	cr_assert_not_null(text);
	size_t n = fread(text, 1, (1 << 20) - 1, f);
	fclose(f);
	text[n] = '\0';
	return text;
}

/* A source's value: a number, a shape's elements, or text. */
struct value {
	int is_number;
	double number;
	char text[128];
};

static int rubric_value(const char *lab_id, const char *section, const char *key, struct value *v)
{
	const struct lab *lab = lab_find(lab_id);
	cr_assert_not_null(lab, "no lab %s", lab_id);
	char rel[PATH_MAX], path[PATH_MAX], err[512];
	snprintf(rel, sizeof(rel), "labs/%s/lab.ini", lab->dir);
	struct rubric r;
	cr_assert_eq(rubric_load(kit_path(path, sizeof(path), rel), lab->rank, &r, err, sizeof(err)), 0,
		     "%s", err);
	int found = 1;
	v->is_number = 1;
	if (strncmp(section, "[gpu \"", 6) == 0) {
		char device[128];
		snprintf(device, sizeof(device), "%.*s", (int)strcspn(section + 6, "\""), section + 6);
		const struct gpu_band *b = rubric_gpu_band(&r, device);
		found = b && (strcmp(key, "lower_pct") == 0 || strcmp(key, "upper_pct") == 0);
		if (found)
			v->number = strcmp(key, "lower_pct") == 0 ? b->band.lower_pct : b->band.upper_pct;
	} else if (strcmp(section, "[performance]") == 0) {
		if (strcmp(key, "lower_pct") == 0) v->number = r.default_band.lower_pct;
		else if (strcmp(key, "upper_pct") == 0) v->number = r.default_band.upper_pct;
		else if (strcmp(key, "max_occupancy_pct") == 0) v->number = r.max_occupancy_pct;
		else if (strcmp(key, "runs") == 0) v->number = r.runs;
		else if (strcmp(key, "points") == 0) v->number = r.performance_points;
		else if (strcmp(key, "shape") == 0) v->number = (double)shape_elements(&r.perf_shape);
		else found = 0;
	} else if (strcmp(section, "[analysis]") == 0) {
		found = 0;
		if (strcmp(key, "shape") == 0) {
			/* The size the analysis really runs at, whatever the seed. */
			size_t first = shape_elements(&r.analysis_shape);
			for (uint64_t seed = 1; seed <= 64; seed++) {
				struct shape s = analysis_shape_choose(&r, seed);
				if (seed == 1)
					first = shape_elements(&s);
				cr_assert_eq(shape_elements(&s), first,
					     "%s's analysis size depends on the seed: no one figure to quote",
					     lab_id);
			}
			v->number = (double)first;
			found = 1;
		}
		for (int i = 0; i < ANALYSIS_CHECKS; i++)
			if (strcmp(key, analysis_checks[i].rubric_key) == 0 && r.analysis_limit[i] >= 0) {
				v->number = r.analysis_limit[i];
				found = 1;
			}
	} else if (strcmp(section, "[calibrate]") == 0 && strcmp(key, "margin") == 0) {
		v->number = r.calib_margin;
	} else {
		found = 0;
	}
	rubric_free(&r);
	return found ? 0 : -1;
}

static void trim_cell(char *s)
{
	size_t n = strlen(s);
	while (n && (isspace((unsigned char)s[n - 1]) || s[n - 1] == '`'))
		s[--n] = '\0';
	size_t k = strspn(s, " \t`");
	memmove(s, s + k, strlen(s + k) + 1);
}

/* The second cell of the row of FILE's tables whose first cell is key. */
static int results_value(const char *rel, const char *key, struct value *v)
{
	char *text = read_kit(rel);
	int rc = -1;
	for (char *line = strtok(text, "\n"); line && rc < 0; line = strtok(NULL, "\n")) {
		if (line[0] != '|')
			continue;
		char first[128], second[128];
		const char *a = line + 1, *b = strchr(a, '|');
		if (!b)
			continue;
		snprintf(first, sizeof(first), "%.*s", (int)(b - a), a);
		const char *c = strchr(b + 1, '|');
		snprintf(second, sizeof(second), "%.*s", c ? (int)(c - b - 1) : 0, b + 1);
		trim_cell(first);
		trim_cell(second);
		if (strcmp(first, key) != 0)
			continue;
		char *end;
		v->number = strtod(second, &end);
		v->is_number = end != second && *end == '\0';
		snprintf(v->text, sizeof(v->text), "%s", second);
		rc = 0;
	}
	free(text);
	return rc;
}

/* The figure after a mark: a number (its decimals in *decimals) or a shape. */
static double figure_number(const char *p, int shape, int *decimals, char *shown, size_t len)
{
	size_t n = strspn(p, shape ? "0123456789^+- x" : "0123456789.,");
	while (n && (p[n - 1] == ' ' || p[n - 1] == '.' || p[n - 1] == ','))
		n--;
	snprintf(shown, len, "%.*s", (int)n, p);
	if (shape) {
		char compact[64], err[128];
		size_t k = 0;
		for (size_t i = 0; i < n && k + 1 < sizeof(compact); i++)
			if (p[i] != ' ')
				compact[k++] = p[i];
		compact[k] = '\0';
		struct shape s;
		if (shape_parse(compact, &s, err, sizeof(err)) != 0)
			return NAN;
		*decimals = 0;
		return (double)shape_elements(&s);
	}
	char digits[64];
	size_t k = 0;
	for (size_t i = 0; i < n && k + 1 < sizeof(digits); i++)
		if (p[i] != ',')
			digits[k++] = p[i];
	digits[k] = '\0';
	const char *dot = strchr(digits, '.');
	*decimals = dot ? (int)strlen(dot + 1) : 0;
	return k ? strtod(digits, NULL) : NAN;
}

/* Checks every mark of one handout; returns how many, and which sources. */
static int check_handout(const char *rel, char sources[][160], int max_sources)
{
	char *text = read_kit(rel);
	int n = 0;
	for (char *p = strstr(text, MARK); p; p = strstr(p, MARK)) {
		char source[160];
		char *end = strstr(p, "-->");
		cr_assert_not_null(end, "%s: a mark never closed", rel);
		p += strlen(MARK);
		snprintf(source, sizeof(source), "%.*s", (int)(end - p), p);
		trim_cell(source);
		if (n < max_sources)
			snprintf(sources[n], 160, "%s", source);
		n++;
		const char *fig = end + 3;
		struct value v = { 0 };
		int found, shape = 0;
		char kind[16], a[64], b[128], key[64];
		if (sscanf(source, "%15s %63s", kind, a) != 2)
			cr_assert_fail("%s: a mark that names nothing: %s", rel, source);
		if (strcmp(kind, "rubric") == 0) {
			const char *open = strchr(source, '['), *close = open ? strchr(open, ']') : NULL;
			cr_assert(open && close && sscanf(close + 1, "%63s", key) == 1,
				  "%s: a rubric mark is 'rubric LAB [SECTION] KEY': %s", rel, source);
			snprintf(b, sizeof(b), "%.*s", (int)(close - open + 1), open);
			shape = strcmp(key, "shape") == 0;
			found = rubric_value(a, b, key, &v);
		} else {
			cr_assert_str_eq(kind, "results", "%s: a mark is 'rubric ...' or 'results ...': %s",
					 rel, source);
			cr_assert_eq(sscanf(source, "%*s %*s %63s", key), 1, "%s: %s", rel, source);
			found = results_value(a, key, &v);
		}
		cr_assert_eq(found, 0, "%s: no such source: %s", rel, source);
		if (!v.is_number) {
			cr_expect_eq(strncmp(fig, v.text, strlen(v.text)), 0,
				     "%s: '%.40s' after <!-- fig %s -->, where the source says '%s'", rel, fig,
				     source, v.text);
			continue;
		}
		int decimals;
		char shown[64];
		double got = figure_number(fig, shape, &decimals, shown, sizeof(shown));
		cr_assert(!isnan(got), "%s: no figure after <!-- fig %s --> ('%.30s')", rel, source, fig);
		cr_expect_leq(fabs(got - v.number), 0.5 * pow(10, -decimals) + 1e-9,
			      "%s: %s after <!-- fig %s -->, where the source says %.10g", rel, shown, source,
			      v.number);
	}
	free(text);
	return n;
}

/* Every handout's marks hold, and each names the figures it must. */
static void expect_marked(const char *rel, const char *const *required)
{
	char sources[64][160];
	int n = check_handout(rel, sources, 64);
	for (int i = 0; required[i]; i++) {
		int seen = 0;
		for (int k = 0; k < n && k < 64; k++)
			seen |= strcmp(sources[k], required[i]) == 0;
		cr_expect(seen, "%s quotes a figure without naming its source: <!-- fig %s --> is missing",
			  rel, required[i]);
	}
}

Test(handout_figures, lab1)
{
	expect_marked("handouts/lab1-naive-scan.md",
		      (const char *[]){ "rubric lab1 " H100 " lower_pct", "rubric lab1 " H100 " upper_pct",
					NULL });
}

Test(handout_figures, lab2)
{
	expect_marked("handouts/lab2-blelloch-scan.md",
		      (const char *[]){ "rubric lab2 [analysis] shape", "rubric lab2 [analysis] max_work_per_1024",
					"results docs/results/emu-work-per-1024.md hillis_steele",
					"results docs/results/emu-work-per-1024.md hillis_steele_32",
					"results docs/results/emu-warp-steps.md answer_key",
					"results docs/results/emu-warp-steps.md answer_key_steps",
					"results docs/results/emu-warp-steps.md hillis_steele",
					"results docs/results/emu-warp-steps.md blelloch_padded",
					"results docs/results/emu-warp-steps.md blelloch_strided_up_sweep", NULL });
}

Test(handout_figures, lab3)
{
	expect_marked("handouts/lab3-transpose.md",
		      (const char *[]){ "rubric lab3 " H100 " lower_pct", "rubric lab3 " H100 " upper_pct",
					NULL });
}

Test(handout_figures, lab4)
{
	expect_marked("handouts/lab4-occupancy.md",
		      (const char *[]){ "rubric lab4 " H100 " lower_pct", "rubric lab4 " H100 " upper_pct",
					"rubric lab4 [performance] max_occupancy_pct",
					"results docs/results/latency.md sm_90_fma_cycles",
					"results docs/results/latency.md sm_90_global_cycles", NULL });
}

Test(handout_figures, instructors)
{
	const char *parts[] = { "README.md", "rubrics.md", "batch.md", "results.md", "sandbox.md", "slurm.md" };
	char sources[64][160], rel[PATH_MAX];
	for (size_t i = 0; i < sizeof(parts) / sizeof(parts[0]); i++) {
		snprintf(rel, sizeof(rel), "handouts/instructors/%s", parts[i]);
		check_handout(rel, sources, 64);
	}
}

/* Nothing a student or an instructor reads points at a file outside the
 * kit, and nothing in the kit points at an issue of the project's tracker
 * (which the kit does not ship): "issue 15", "issues 10, 11". */
Test(handout_figures, no_pointer_outside_the_kit)
{
	char cmd[PATH_MAX + 512], root[PATH_MAX], hits[4096] = "";
	snprintf(cmd, sizeof(cmd),
		 "cd '%s' && grep -rlIE 'DESIGN\\.md|EMULATOR\\.md|\\.\\./shared/|/work/shared|"
		 "\\b[Ii]ssue [0-9]+|[Ii]ssues [0-9]+(,|-| and)' handouts labs solutions docs README.md "
		 "grader common emu tests mk Makefile 2>/dev/null | grep -v '^tests/test_handout_figures\\.c$'",
		 kit_path(root, sizeof(root), "."));
	FILE *p = popen(cmd, "r");
	cr_assert_not_null(p);
	size_t n = fread(hits, 1, sizeof(hits) - 1, p);
	hits[n] = '\0';
	pclose(p);
	cr_expect_str_empty(hits, "these point outside the kit:\n%s", hits);
}
