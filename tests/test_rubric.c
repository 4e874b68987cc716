#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "steps/prediction.h"
#include "steps/rubric.h"

static char path[64];

/* The rubric a test wrote goes with it. */
static void remove_rubric(void)
{
	if (path[0])
		unlink(path);
}

TestSuite(rubric, .fini = remove_rubric);

static void write_rubric(const char *text)
{
	snprintf(path, sizeof(path), "/tmp/rubric-test-%d.ini", (int)getpid());
	FILE *f = fopen(path, "w");
	cr_assert(f);
	fputs(text, f);
	fclose(f);
}

/* Loads text as a rank-2 rubric; returns the error ("" when it loaded). */
static const char *load(const char *text, struct rubric *r)
{
	static char err[1024];
	err[0] = '\0';
	write_rubric(text);
	rubric_load(path, 2, r, err, sizeof(err));
	return err;
}

#define MINIMAL "[correctness]\nshapes = 1x1 31x33\n[performance]\nshape = 64x64\n"

Test(rubric, shipped_rubrics_load)
{
	const char *files[] = { "labs/lab1-naive-scan/lab.ini", "labs/lab2-blelloch-scan/lab.ini",
				"labs/lab3-transpose/lab.ini", "labs/lab4-occupancy/lab.ini" };
	int ranks[] = { 1, 1, 2, 1 };
	for (int i = 0; i < 4; i++) {
		struct rubric r;
		char err[1024] = "";
		cr_expect_eq(rubric_load(files[i], ranks[i], &r, err, sizeof(err)), 0, "%s", err);
		cr_expect_gt(r.n_shapes, 5);
		cr_expect_gt(r.n_allow, 5);
		cr_expect_gt(r.n_forbid, 5);
		cr_expect_lt(r.default_band.lower_pct, r.default_band.upper_pct);
		/* One scale: the shipped labs are out of 100, whatever the backend. */
		cr_expect_float_eq(rubric_max_score(&r), 100, 1e-9, "%s", files[i]);
		rubric_free(&r);
	}
}

/* An emulated grade predicts every lab for the same GPU, whatever the
 * order of its rubric's [gpu] sections (lab 2's lists the H200 first: the
 * order its bands were calibrated in). */
Test(rubric, every_lab_predicts_for_the_same_gpu)
{
	const char *files[] = { "labs/lab1-naive-scan/lab.ini", "labs/lab2-blelloch-scan/lab.ini",
				"labs/lab3-transpose/lab.ini", "labs/lab4-occupancy/lab.ini" };
	int ranks[] = { 1, 1, 2, 1 };
	for (int i = 0; i < 4; i++) {
		struct rubric r;
		char err[1024] = "", name[128] = "";
		cr_assert_eq(rubric_load(files[i], ranks[i], &r, err, sizeof(err)), 0, "%s", err);
		cr_expect_gt(r.n_gpus, 1, "%s", files[i]);
		cr_expect_eq(prediction_gpu(&r, NULL, name, sizeof(name)), 0);
		cr_expect_str_eq(name, "NVIDIA H100 80GB HBM3", "%s", files[i]);
		rubric_free(&r);
	}
}

Test(rubric, values_and_defaults)
{
	struct rubric r;
	cr_assert_str_eq(load(MINIMAL "runs = 7\nupper_pct = 90\n[analysis]\nmax_races = 0\n", &r), "");
	cr_expect_eq(r.n_shapes, 2);
	cr_expect_eq(r.shapes[1].dim[0], 31);
	cr_expect_eq(r.runs, 7);
	cr_expect_float_eq(r.default_band.upper_pct, 90, 0);
	cr_expect_float_eq(r.analysis_limit[CHECK_RACES], 0, 0);
	cr_expect_lt(r.analysis_limit[CHECK_STORE_SECTORS], 0, "absent checks stay off");
	cr_expect_eq(r.n_emu_shapes, 2, "the emulator uses the same sizes unless told");
	rubric_free(&r);
}

Test(rubric, lab4_occupancy_keys)
{
	struct rubric r;
	cr_assert_str_eq(load(MINIMAL "max_occupancy_pct = 12.5\nsweep_runs = 10\n[occupancy]\n"
				      "tables = sm_80 sm_90\npoints = 30\n", &r), "");
	cr_expect_float_eq(r.max_occupancy_pct, 12.5, 0);
	cr_expect_eq(r.sweep_runs, 10);
	cr_expect_eq(r.n_occupancy_tables, 2);
	cr_expect_str_eq(r.occupancy_tables[1], "sm_90");
	cr_expect_float_eq(r.occupancy_points, 30, 0);
	rubric_free(&r);
	cr_assert_str_eq(load(MINIMAL, &r), "");
	cr_expect_lt(r.max_occupancy_pct, 0, "no cap unless the rubric sets one");
	cr_expect_eq(r.sweep_runs, 0);
	cr_expect_float_eq(r.occupancy_points, 0, 0);
	rubric_free(&r);
}

Test(rubric, predicted_grading_key)
{
	struct rubric r;
	cr_assert_str_eq(load(MINIMAL, &r), "");
	cr_expect_eq(r.predicted, 1, "the emulator grades the prediction unless told not to");
	rubric_free(&r);
	cr_assert_str_eq(load(MINIMAL "predicted = 0\n", &r), "");
	cr_expect_eq(r.predicted, 0);
	rubric_free(&r);
	const char *err = load(MINIMAL "predicted = yes please\n", &r);
	cr_expect(strstr(err, "'predicted'"), "%s", err);
	rubric_free(&r);
}

Test(rubric, lists_continue_on_following_lines)
{
	struct rubric r;
	cr_assert_str_eq(load(MINIMAL "[correctness]\nshapes = 2x2\n", &r), "");
	cr_expect_eq(r.n_shapes, 3);
	rubric_free(&r);
}

/* Each bad rubric names the file, the line and the key. */
struct bad_case {
	const char *text;
	const char *expect;
};

Test(rubric, bad_rubrics_name_line_and_key)
{
	struct bad_case cases[] = {
		{ MINIMAL "runs = many\n", ":5: key 'runs': expected a number, got 'many'" },
		{ MINIMAL "runs = 2.5\n", ":5: key 'runs': expected a whole number" },
		{ MINIMAL "color = red\n", ":5: key 'color': unknown key in [performance]" },
		{ MINIMAL "[extras]\nx = 1\n", ":6: key 'x': unknown section [extras]" },
		{ "[correctness]\nshapes = 31 33\n[performance]\nshape = 64x64\n",
		  ":2: key 'shapes': '31': this lab's sizes are ROWSxCOLS" },
		{ "[correctness]\nshapes = 1x1\n[performance]\nshape = 0x5\n", ":4: key 'shape': '0x5' is not a size" },
		{ MINIMAL "lower_pct = 80\nupper_pct = 40\n", ":6: key 'upper_pct': [performance]: lower_pct (80) must be below upper_pct (40)" },
		{ MINIMAL "points = 5\npoints = 6\n", ":6: key 'points': given twice" },
		{ MINIMAL "upper_pct = 120%\n", ":5: key 'upper_pct': expected a number, got '120%'" },
		{ MINIMAL "this is not ini\n", ":5: not a 'key = value' line" },
		{ MINIMAL "[gpu NVIDIA]\nlower_pct = 1\n", "key 'gpu NVIDIA': write a GPU section as [gpu \"DEVICE NAME\"]" },
		{ MINIMAL "[gpu \"H\"]\nlower_pct = 50\nupper_pct = 10\n", ":7: key 'upper_pct': [gpu \"H\"]: lower_pct (50) must be below" },
		{ "[performance]\nshape = 64x64\n", "key 'shapes': [correctness] needs it" },
		{ MINIMAL "[analysis]\nmax_store_sectors_per_request = 64\n", ":6: key 'max_store_sectors_per_request': 64 is out of range" },
		{ MINIMAL "max_occupancy_pct = 0\n", ":5: key 'max_occupancy_pct': 0 is out of range" },
		{ MINIMAL "sweep_runs = 2.5\n", ":5: key 'sweep_runs': expected a whole number" },
		{ MINIMAL "[occupancy]\ntables = sm_80 sm_75\n", ":6: key 'tables': the kit keeps tables for sm_80 and sm_90, not 'sm_75'" },
		{ MINIMAL "[occupancy]\npoints = 30\n", "key 'tables': [occupancy] gives points, so it needs the stored tables" },
		{ MINIMAL "[occupancy]\nlive = yes\n", ":6: key 'live': unknown key in [occupancy]" },
		/* Not a number at all, though strtod reads them. */
		{ MINIMAL "points = nan\n", ":5: key 'points': expected a finite number, got 'nan'" },
		{ MINIMAL "points = -NaN\n", ":5: key 'points': expected a finite number" },
		{ "[correctness]\nshapes = 1x1\ntimeout_s = nan\n[performance]\nshape = 64x64\n",
		  ":3: key 'timeout_s': expected a finite number, got 'nan'" },
		{ MINIMAL "upper_pct = inf\n", ":5: key 'upper_pct': expected a finite number, got 'inf'" },
		{ MINIMAL "[limits]\nmemory_mb = infinity\n", ":6: key 'memory_mb': expected a finite number" },
		{ MINIMAL "gate = work_efficiency\n", ":5: key 'gate': no analysis check is named "
		  "'work_efficiency' (the checks: load_sectors_per_request, " },
		{ MINIMAL "gate = races, bogus\n[analysis]\nmax_races = 0\n",
		  ":5: key 'gate': no analysis check is named 'bogus'" },
		{ MINIMAL "gate = races\n[analysis]\nmax_uninit_shared_reads = 0\n",
		  ":5: key 'gate': performance is gated on 'races', but [analysis] sets no max_races" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct rubric r;
		const char *err = load(cases[i].text, &r);
		cr_expect(strstr(err, path) != NULL, "case %zu: the file is not named: %s", i, err);
		cr_expect(strstr(err, cases[i].expect) != NULL, "case %zu: got '%s', want '%s'", i, err,
			  cases[i].expect);
		rubric_free(&r);
	}
}

Test(rubric, performance_gates_name_analysis_checks)
{
	struct rubric r;
	cr_assert_str_eq(load(MINIMAL "gate = store_sectors_per_request races\n[analysis]\n"
			      "max_races = 0\nmax_store_sectors_per_request = 8\n", &r), "");
	cr_expect(r.performance_gate[CHECK_STORE_SECTORS]);
	cr_expect(r.performance_gate[CHECK_RACES]);
	cr_expect(!r.performance_gate[CHECK_LOAD_SECTORS]);
	rubric_free(&r);
	cr_assert_str_eq(load(MINIMAL, &r), "");
	for (int i = 0; i < ANALYSIS_CHECKS; i++)
		cr_expect(!r.performance_gate[i], "no gate unless the rubric names one");
	rubric_free(&r);
}

Test(rubric, maximum_without_analysis_checks)
{
	struct rubric r;
	cr_assert_str_eq(load(MINIMAL "points = 30\n[correctness]\npoints = 20\n", &r), "");
	cr_expect_float_eq(rubric_max_score(&r), 50, 1e-9, "no analysis check: no analysis points");
	rubric_free(&r);
}

Test(rubric, missing_file)
{
	struct rubric r;
	char err[512];
	cr_expect_eq(rubric_load("/nonexistent/lab.ini", 2, &r, err, sizeof(err)), -1);
	cr_expect(strstr(err, "/nonexistent/lab.ini: cannot read the rubric") != NULL, "%s", err);
}

/* What is no rubric file is refused at once, by what it is. */
Test(rubric, not_a_regular_file, .timeout = 10)
{
	struct rubric r;
	char err[512];
	cr_expect_eq(rubric_load("/dev/zero", 2, &r, err, sizeof(err)), -1);
	cr_expect(strstr(err, "/dev/zero is not a regular file") != NULL, "%s", err);
	rubric_free(&r);
	cr_expect_eq(rubric_load("/tmp", 2, &r, err, sizeof(err)), -1);
	cr_expect(strstr(err, "/tmp is a folder; a rubric is a file") != NULL, "%s", err);
	rubric_free(&r);
	char big[64];
	snprintf(big, sizeof(big), "/tmp/rubric-test-big-%d.ini", (int)getpid());
	FILE *f = fopen(big, "w");
	cr_assert(f);
	for (int i = 0; i < 200000; i++)
		fputs("; a comment line\n", f);
	fclose(f);
	cr_expect_eq(rubric_load(big, 2, &r, err, sizeof(err)), -1);
	cr_expect(strstr(err, "too large for a rubric") != NULL, "%s", err);
	rubric_free(&r);
	unlink(big);
}

Test(rubric, gpu_bands_are_written_and_replaced)
{
	struct rubric r;
	cr_assert_str_eq(load("; keep this comment\n" MINIMAL "[gpu \"Old GPU\"]\nlower_pct = 1\nupper_pct = 2\n", &r), "");
	rubric_free(&r);
	struct gpu_band b = { .device = "NVIDIA H100 80GB HBM3", .band = { 15.9, 77.3 } };
	snprintf(b.measured, sizeof(b.measured), "calibrated today");
	char err[512];
	cr_assert_eq(rubric_write_gpu_band(path, &b, err, sizeof(err)), 0, "%s", err);
	b.band.upper_pct = 70;	/* again: the section is replaced, not repeated */
	cr_assert_eq(rubric_write_gpu_band(path, &b, err, sizeof(err)), 0, "%s", err);

	cr_assert_eq(rubric_load(path, 2, &r, err, sizeof(err)), 0, "%s", err);
	cr_expect_eq(r.n_gpus, 2);
	const struct gpu_band *got = rubric_gpu_band(&r, "NVIDIA H100 80GB HBM3");
	cr_assert(got);
	cr_expect_float_eq(got->band.lower_pct, 15.9, 1e-9);
	cr_expect_float_eq(got->band.upper_pct, 70, 1e-9);
	cr_expect_str_eq(got->measured, "calibrated today");
	cr_expect(rubric_gpu_band(&r, "Old GPU") != NULL, "other sections are kept");
	cr_expect(rubric_gpu_band(&r, "NVIDIA H200") == NULL);
	rubric_free(&r);
	FILE *f = fopen(path, "r");
	char first[64];
	cr_assert(fgets(first, sizeof(first), f));
	fclose(f);
	cr_expect_str_eq(first, "; keep this comment\n", "comments are kept");
	unlink(path);
}

/* Calibrating on one GPU, then another, then the first again: one section
 * each, one blank line before each, whatever blank lines were there. */
Test(rubric, gpu_sections_for_several_gpus_stay_tidy)
{
	write_rubric(MINIMAL "\n\n\n");
	struct gpu_band h100 = { .device = "NVIDIA H100 80GB HBM3", .band = { 3.3, 46.0 } };
	struct gpu_band h200 = { .device = "NVIDIA H200", .band = { 2.9, 40.5 } };
	snprintf(h100.measured, sizeof(h100.measured), "first");
	snprintf(h200.measured, sizeof(h200.measured), "h200");
	char err[512];
	cr_assert_eq(rubric_write_gpu_band(path, &h100, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(rubric_write_gpu_band(path, &h200, err, sizeof(err)), 0, "%s", err);
	snprintf(h100.measured, sizeof(h100.measured), "second");
	cr_assert_eq(rubric_write_gpu_band(path, &h100, err, sizeof(err)), 0, "%s", err);

	FILE *f = fopen(path, "r");
	cr_assert(f);
	char text[2048];
	size_t len = fread(text, 1, sizeof(text) - 1, f);
	fclose(f);
	text[len] = '\0';
	cr_expect_str_eq(text, MINIMAL "\n[gpu \"NVIDIA H200\"]\nlower_pct = 2.9\nupper_pct = 40.5\n"
			       "measured = h200\n\n[gpu \"NVIDIA H100 80GB HBM3\"]\nlower_pct = 3.3\n"
			       "upper_pct = 46.0\nmeasured = second\n");
	struct rubric r;
	cr_assert_eq(rubric_load(path, 2, &r, err, sizeof(err)), 0, "%s", err);
	cr_expect_eq(r.n_gpus, 2);
	cr_expect_str_eq(rubric_gpu_band(&r, "NVIDIA H100 80GB HBM3")->measured, "second");
	cr_expect_float_eq(rubric_gpu_band(&r, "NVIDIA H200")->band.upper_pct, 40.5, 1e-9);
	rubric_free(&r);
	unlink(path);
}

/* A rubric whose last line has no newline: the new section starts on a line
 * of its own, and the last key keeps its value. */
Test(rubric, gpu_band_after_a_last_line_without_newline)
{
	struct rubric r;
	cr_assert_str_eq(load(MINIMAL "[gpu \"Old GPU\"]\nlower_pct = 1\nupper_pct = 10", &r), "");
	rubric_free(&r);
	struct gpu_band b = { .device = "NVIDIA H100 80GB HBM3", .band = { 15.9, 77.3 } };
	char err[512];
	cr_assert_eq(rubric_write_gpu_band(path, &b, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(rubric_load(path, 2, &r, err, sizeof(err)), 0, "%s", err);
	const struct gpu_band *old = rubric_gpu_band(&r, "Old GPU");
	cr_assert(old, "the old section is kept");
	cr_expect_float_eq(old->band.upper_pct, 10, 1e-9);
	const struct gpu_band *got = rubric_gpu_band(&r, "NVIDIA H100 80GB HBM3");
	cr_assert(got, "the new section is read back");
	cr_expect_float_eq(got->band.upper_pct, 77.3, 1e-9);
	rubric_free(&r);
	unlink(path);
}

/* Every check of the analysis table has its rubric key, and only that key
 * sets its limit. */
Test(rubric, every_analysis_check_has_its_key)
{
	char text[2048];
	int at = snprintf(text, sizeof(text), MINIMAL "[analysis]\n");
	for (int i = 0; i < ANALYSIS_CHECKS; i++)
		at += snprintf(text + at, sizeof(text) - (size_t)at, "%s = %d\n",
			       analysis_checks[i].rubric_key, 2 + i);
	struct rubric r;
	cr_assert_str_eq(load(text, &r), "");
	for (int i = 0; i < ANALYSIS_CHECKS; i++)
		cr_expect_float_eq(r.analysis_limit[i], 2 + i, 0, "%s", analysis_checks[i].rubric_key);
	rubric_free(&r);
	unlink(path);
}
