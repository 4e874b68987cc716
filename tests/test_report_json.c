/* The JSON report: the schema report_json.h states, and written whole or not at all. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "steps/grade.h"
#include "sys/kit_paths.h"
#include "test_support.h"
#include "report/report_json.h"
#include "report/report_load.h"

static const struct lab lab3 = {
	.id = "lab3", .dir = "lab3-transpose", .file = "transpose.cu",
	.title = "Coalesced matrix transpose", .rank = 2,
};

static struct grade g;
static char dir[64];


static void setup(void)
{
	grade_init(&g, &lab3);
	g.backend = BACKEND_CUDA;
	snprintf(g.device, sizeof(g.device), "NVIDIA H100 80GB HBM3");
	snprintf(g.submission, sizeof(g.submission), "labs/lab3-transpose/transpose.cu");
	snprintf(g.band_source, sizeof(g.band_source), "rubric [gpu \"NVIDIA H100 80GB HBM3\"]");
	g.seed = 42;
	test_pass(grade_add_test(&g, "build", GROUP_BUILD, 10), NULL);
	test_pass(grade_add_test(&g, "correctness 1", GROUP_CORRECTNESS, 25), NULL);
	test_fail(grade_add_test(&g, "correctness 31x33", GROUP_CORRECTNESS, 25),
		  "out[7][3]: expected 1.5, got 0");
	struct test_result *t = grade_add_test(&g, "performance 16384x16384", GROUP_PERFORMANCE, 40);
	t->status = TEST_PASSED;
	t->points = 37.5;
	g.perf.measured = 1;
	g.perf.gbps = 2765.5;
	g.perf.percent_of_copy = 92.2;
	add_bench_point(&g, 1024, 1024, 300, 350, 600);
	add_bench_point(&g, 16384, 16384, 2765.5, -1, 3000);

	test_temp_dir(dir, sizeof(dir), "kit-json");
}

static void teardown(void)
{
	grade_free(&g);
	remove_tree(dir);
}

TestSuite(report_json, .init = setup, .fini = teardown);

static json_t *get(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);
	cr_assert_not_null(v, "no \"%s\"", key);
	return v;
}

Test(report_json, has_every_field_of_the_schema_with_its_type)
{
	json_t *j = report_json(&g);
	cr_assert_not_null(j);
	cr_assert(json_is_integer(get(j, "schema_version")));
	cr_assert_eq(json_integer_value(get(j, "schema_version")), REPORT_JSON_SCHEMA_VERSION);
	cr_assert_str_eq(json_string_value(get(j, "lab")), "lab3");
	cr_assert_str_eq(json_string_value(get(j, "backend")), "cuda");
	cr_assert_str_eq(json_string_value(get(j, "device")), "NVIDIA H100 80GB HBM3");
	cr_assert_str_eq(json_string_value(get(j, "submission")), "labs/lab3-transpose/transpose.cu");
	cr_assert_str_eq(json_string_value(get(j, "band_source")),
			 "rubric [gpu \"NVIDIA H100 80GB HBM3\"]");
	cr_assert(json_is_integer(get(j, "seed")));
	cr_assert_eq(json_integer_value(get(j, "seed")), 42);
	cr_assert(json_is_number(get(j, "score")));
	cr_assert_float_eq(json_number_value(get(j, "score")), 72.5, 1e-9);
	cr_assert_float_eq(json_number_value(get(j, "max_score")), 100, 1e-9);
	cr_assert(json_is_false(get(j, "passed")));
	cr_assert_eq(json_integer_value(get(j, "exit_status")), 1);
	cr_assert_str_eq(json_string_value(get(j, "reproduce")), "./grade lab3 --seed 42");

	json_t *tests = get(j, "tests");
	cr_assert(json_is_array(tests));
	cr_assert_eq(json_array_size(tests), 4);
	json_t *t = json_array_get(tests, 2);
	cr_assert_str_eq(json_string_value(get(t, "name")), "correctness 31x33");
	cr_assert_str_eq(json_string_value(get(t, "group")), "correctness");
	cr_assert_str_eq(json_string_value(get(t, "status")), "failed");
	cr_assert(json_is_false(get(t, "passed")));
	cr_assert(json_is_number(get(t, "points")));
	cr_assert_float_eq(json_number_value(get(t, "max_points")), 25, 1e-9);
	cr_assert_str_eq(json_string_value(get(t, "message")), "out[7][3]: expected 1.5, got 0");
	t = json_array_get(tests, 3);
	cr_assert(json_is_true(get(t, "passed")));
	cr_assert_float_eq(json_number_value(get(t, "points")), 37.5, 1e-9);
	cr_assert_str_eq(json_string_value(get(t, "message")), "");

	json_t *groups = get(j, "groups");
	cr_assert_float_eq(json_number_value(get(get(groups, "correctness"), "points")), 25, 1e-9);
	cr_assert_float_eq(json_number_value(get(get(groups, "correctness"), "max_points")), 50,
			   1e-9);
	cr_assert_null(json_object_get(groups, "analysis"), "a group with no test");

	json_t *m = get(j, "metrics");
	cr_assert(json_is_object(m));
	cr_assert_float_eq(json_number_value(get(m, "percent_of_copy")), 92.2, 1e-9);

	cr_assert_null(json_object_get(j, "analysis"));
	cr_assert_null(json_object_get(j, "build_log"));
	cr_assert_null(json_object_get(j, "internal_error"));
	json_decref(j);
}

Test(report_json, bench_points_with_null_for_not_measured)
{
	json_t *j = report_json(&g);
	json_t *bench = get(j, "bench");
	cr_assert_eq(json_array_size(bench), 2);
	json_t *b = json_array_get(bench, 1);
	cr_assert_str_eq(json_string_value(get(b, "shape")), "16384x16384");
	cr_assert_eq(json_integer_value(get(b, "elements")), 16384 * 16384);
	cr_assert_float_eq(json_number_value(get(b, "bytes")), 8.0 * 16384 * 16384, 1);
	cr_assert_float_eq(json_number_value(get(b, "student_gbps")), 2765.5, 1e-9);
	cr_assert(json_is_null(get(b, "reference_gbps")));
	cr_assert_float_eq(json_number_value(get(b, "copy_gbps")), 3000, 1e-9);
	json_decref(j);
}

Test(report_json, a_seed_past_2_53_is_a_string)
{
	g.seed = REPORT_JSON_MAX_INT_SEED;
	json_t *j = report_json(&g);
	cr_assert(json_is_integer(get(j, "seed")));
	cr_assert_eq((unsigned long long)json_integer_value(get(j, "seed")),
		     9007199254740991ull);
	json_decref(j);

	g.seed = REPORT_JSON_MAX_INT_SEED + 1;
	j = report_json(&g);
	cr_assert_str_eq(json_string_value(get(j, "seed")), "9007199254740992");
	json_decref(j);

	g.seed = 18446744073709551615ull;
	j = report_json(&g);
	cr_assert_str_eq(json_string_value(get(j, "seed")), "18446744073709551615");
	json_decref(j);
}

Test(report_json, carries_a_copy_of_the_analysis)
{
	json_error_t e;
	g.analysis = json_loads("{\"launches\": [{\"kernel\": \"transpose_naive\"}], "
				"\"totals\": {\"races\": 0}}", 0, &e);
	cr_assert_not_null(g.analysis);
	json_t *j = report_json(&g);
	json_t *a = get(j, "analysis");
	cr_assert(json_equal(a, g.analysis));
	cr_assert_neq(a, g.analysis, "shared, not copied");
	json_decref(j);
	cr_assert_eq(g.analysis->refcount, 1);
}

Test(report_json, a_build_failure_carries_the_log)
{
	g.build_failed = 1;
	snprintf(g.build_log, sizeof(g.build_log), "transpose.cu:3: error: expected ';'\n");
	json_t *j = report_json(&g);
	cr_assert_str_eq(json_string_value(get(j, "build_log")), "transpose.cu:3: error: expected ';'\n");
	cr_assert_eq(json_integer_value(get(j, "exit_status")), 3);
	json_decref(j);
}

Test(report_json, an_internal_error_carries_its_message)
{
	g.internal_error = 1;
	snprintf(g.internal_message, sizeof(g.internal_message), "no CUDA device");
	json_t *j = report_json(&g);
	cr_assert_str_eq(json_string_value(get(j, "internal_error")), "no CUDA device");
	cr_assert_eq(json_integer_value(get(j, "exit_status")), 4);
	json_decref(j);
}

/* jansson refuses invalid UTF-8; the report replaces it rather than
 * losing the field (or the report). */
Test(report_json, invalid_utf8_becomes_the_replacement_character)
{
	snprintf(g.submission, sizeof(g.submission), "subs/Jos\xe9/transpose.cu");
	snprintf(g.tests[2].message, sizeof(g.tests[2].message), "got \xff\xfe, \xc3\xa9 ok");
	g.build_failed = 1;
	snprintf(g.build_log, sizeof(g.build_log), "cut in the middle \xe2\x82");
	json_t *j = report_json(&g);
	cr_assert_not_null(j);
	cr_assert_str_eq(json_string_value(get(j, "submission")), "subs/Jos\xef\xbf\xbd/transpose.cu");
	cr_assert_str_eq(json_string_value(get(json_array_get(get(j, "tests"), 2), "message")),
			 "got \xef\xbf\xbd\xef\xbf\xbd, \xc3\xa9 ok");
	cr_assert_str_eq(json_string_value(get(j, "build_log")),
			 "cut in the middle \xef\xbf\xbd\xef\xbf\xbd");
	json_decref(j);
}

Test(report_json, a_nan_is_null_not_a_lost_report)
{
	g.tests[3].points = NAN;
	g.bench[0].student_gbps = INFINITY;
	json_t *j = report_json(&g);
	cr_assert_not_null(j);
	cr_assert(json_is_null(get(json_array_get(get(j, "tests"), 3), "points")));
	cr_assert(json_is_null(get(json_array_get(get(j, "bench"), 0), "student_gbps")));
	json_decref(j);
}

static char *in_dir(const char *name)
{
	static char buf[128];
	snprintf(buf, sizeof(buf), "%s/%s", dir, name);
	return buf;
}

Test(report_json, writes_the_report_to_a_file)
{
	char err[256] = "";
	cr_assert_eq(report_json_write(&g, in_dir("r.json"), err, sizeof(err)), 0, "%s", err);
	json_error_t e;
	json_t *back = json_load_file(in_dir("r.json"), 0, &e);
	cr_assert_not_null(back, "%s", e.text);
	json_t *j = report_json(&g);
	/* Ten significant digits round-trip every figure here exactly. */
	cr_assert(json_equal(back, j));
	json_decref(back);
	json_decref(j);
	FILE *f = fopen(in_dir("r.json"), "r");
	fseek(f, -1, SEEK_END);
	cr_assert_eq(fgetc(f), '\n', "a text file ends with a newline");
	fclose(f);
}

static int entries(void)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;
	while ((e = readdir(d)))
		n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
	closedir(d);
	return n;
}

Test(report_json, a_failed_write_leaves_the_old_report)
{
	char err[256] = "";
	FILE *f = fopen(in_dir("r.json"), "w");
	fputs("{\"old\": true}\n", f);
	fclose(f);
	/* The report is well over 100 bytes: the write fails part-way. */
	signal(SIGXFSZ, SIG_IGN);
	struct rlimit lim = {100, 100};
	cr_assert_eq(setrlimit(RLIMIT_FSIZE, &lim), 0);
	cr_assert_eq(report_json_write(&g, in_dir("r.json"), err, sizeof(err)), -1);
	cr_assert_not_null(strstr(err, "r.json"), "%s", err);
	json_error_t e;
	json_t *old = json_load_file(in_dir("r.json"), 0, &e);
	cr_assert_not_null(old, "the old report was damaged: %s", e.text);
	cr_assert(json_is_true(json_object_get(old, "old")));
	json_decref(old);
	cr_assert_eq(entries(), 1, "a temporary was left behind");
}

Test(report_json, a_missing_folder_is_an_error_naming_the_path)
{
	char err[256] = "";
	cr_assert_eq(report_json_write(&g, in_dir("no/such/r.json"), err, sizeof(err)), -1);
	cr_assert_not_null(strstr(err, "no/such/r.json"), "%s", err);
}

/* A saved report reads back; one from a later layout is refused, by name. */
Test(report_json, a_later_schema_version_is_refused_on_reading)
{
	char path[128], err[512];
	snprintf(path, sizeof(path), "%s/r.json", dir);
	cr_assert_eq(report_json_write(&g, path, err, sizeof(err)), 0, "%s", err);
	struct grade back;
	grade_init(&back, NULL);
	cr_expect_eq(report_load(path, &back, err, sizeof(err)), 0, "%s", err);
	grade_free(&back);

	json_t *j = report_json(&g);
	json_object_set_new(j, "schema_version", json_integer(REPORT_JSON_SCHEMA_VERSION + 1));
	cr_assert_eq(json_dump_file(j, path, 0), 0);
	json_decref(j);
	grade_init(&back, NULL);
	cr_expect_eq(report_load(path, &back, err, sizeof(err)), -1);
	cr_expect_not_null(strstr(err, "schema_version"), "%s", err);
	grade_free(&back);
}
