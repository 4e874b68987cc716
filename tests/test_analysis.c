/*
 * grader/steps/analysis.c: the emulator's metrics become analysis tests, one per
 * rubric key present, with messages that name the line and say what to do.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "steps/analysis.h"
#include "steps/grade.h"
#include "steps/rubric.h"

/* A rubric with every analysis key absent, 10 points. */
static struct rubric no_checks(void)
{
	struct rubric r;
	memset(&r, 0, sizeof r);
	r.analysis_points = 10;
	for (int i = 0; i < ANALYSIS_CHECKS; i++)
		r.analysis_limit[i] = -1;
	return r;
}

/* What the emulator reports for the naive transpose (stores 32 sectors a
 * request at transpose.cu:42, lanes 1024 bytes apart). */
static const char *naive =
	"{\"launches\":[{\"kernel\":\"transpose_naive\",\"grid\":[2,8,1],\"block\":[32,8,1],"
	"\"dynamic_shared_bytes\":0,\"traced_blocks\":4,"
	"\"lines\":[{\"file\":\"transpose.cu\",\"line\":42,\"space\":\"global\",\"kind\":\"load\","
	"\"requests\":32,\"sectors\":128,\"sectors_per_request\":4.0,\"word_requests\":32},"
	"{\"file\":\"transpose.cu\",\"line\":42,\"space\":\"global\",\"kind\":\"store\","
	"\"requests\":32,\"sectors\":1024,\"sectors_per_request\":32.0,\"word_requests\":32}],"
	"\"intervals\":[],\"active_warps_per_line\":[],\"races\":[],\"uninit_shared_reads\":[],"
	"\"example_requests\":[{\"file\":\"transpose.cu\",\"line\":42,\"space\":\"global\","
	"\"kind\":\"store\",\"bytes\":4,\"lane_addresses\":[4096,5120,6144,null]}]}],"
	"\"totals\":{\"global_load_requests\":32,\"global_load_sectors\":128,"
	"\"global_load_sectors_per_request\":4.0,\"global_load_sectors_per_word_request\":4.0,"
	"\"global_store_requests\":32,\"global_store_sectors\":1024,"
	"\"global_store_sectors_per_request\":32.0,\"global_store_sectors_per_word_request\":32.0,"
	"\"shared_requests\":0,\"shared_wavefronts\":0,\"shared_wavefronts_per_request\":0,"
	"\"races\":0,\"uninit_shared_reads\":0,\"active_warp_steps\":0}}";

/* A racy scan: 8194 races at scan.cu:57, 12 uninitialised reads at line 50,
 * an unpadded tile read at line 60 with 32 wavefronts a request. */
static const char *racy =
	"{\"launches\":[{\"kernel\":\"scan\",\"traced_blocks\":1,\"lines\":["
	"{\"file\":\"scan.cu\",\"line\":57,\"space\":\"shared\",\"kind\":\"load\",\"requests\":100,"
	"\"wavefronts\":100},"
	"{\"file\":\"scan.cu\",\"line\":60,\"space\":\"shared\",\"kind\":\"load\",\"requests\":10,"
	"\"wavefronts\":320}],"
	"\"races\":[{\"kind\":\"RAW\",\"scope\":\"inter-warp\",\"space\":\"shared\","
	"\"first\":{\"file\":\"scan.cu\",\"line\":57},\"second\":{\"file\":\"scan.cu\",\"line\":57},"
	"\"count\":8000},{\"kind\":\"WAR\",\"scope\":\"intra-warp\",\"space\":\"shared\","
	"\"first\":{\"file\":\"scan.cu\",\"line\":57},\"second\":{\"file\":\"scan.cu\",\"line\":58},"
	"\"count\":194}],"
	"\"uninit_shared_reads\":[{\"file\":\"scan.cu\",\"line\":50,\"count\":12}]}],"
	"\"totals\":{\"shared_requests\":110,\"shared_wavefronts\":420,"
	"\"shared_wavefronts_per_request\":3.818,\"races\":8194,\"uninit_shared_reads\":12,"
	"\"active_warp_steps\":352}}";

static json_t *parse(const char *text)
{
	json_error_t err;
	json_t *m = json_loads(text, 0, &err);
	cr_assert_not_null(m, "test JSON: %s", err.text);
	return m;
}

static struct test_result *find(struct grade *g, const char *name)
{
	for (int i = 0; i < g->n_tests; i++)
		if (strcmp(g->tests[i].name, name) == 0)
			return &g->tests[i];
	cr_assert_fail("no test %s", name);
	return NULL;
}

Test(analysis, one_test_per_key_present_points_split_evenly)
{
	struct rubric r = no_checks();
	struct grade g;
	grade_init(&g, NULL);
	r.analysis_limit[CHECK_LOAD_SECTORS] = 8;
	r.analysis_limit[CHECK_STORE_SECTORS] = 8;
	json_t *m = parse(naive);
	analysis_grade(&r, &r.analysis_shape, m, &g);
	cr_assert_eq(g.n_tests, 2);
	for (int i = 0; i < 2; i++) {
		cr_expect_eq(g.tests[i].group, GROUP_ANALYSIS);
		cr_expect_float_eq(g.tests[i].max_points, 5.0, 1e-9);
	}
	struct test_result *ld = find(&g, "analysis: coalesced loads");
	struct test_result *st = find(&g, "analysis: coalesced stores");
	cr_expect_eq(ld->status, TEST_PASSED);
	cr_expect_float_eq(ld->points, 5.0, 1e-9);
	cr_expect_eq(st->status, TEST_FAILED);
	cr_expect_float_eq(st->points, 0.0, 1e-9);
	cr_expect(strstr(st->message, "stores at transpose.cu:42 touch 32.0 sectors per request (a "
			 "coalesced 4-byte store touches 4; limit 8)") != NULL, "%s", st->message);
	cr_expect(strstr(st->message, "neighbouring threads write addresses 1024 bytes apart") != NULL,
		  "%s", st->message);
	json_decref(m);
	grade_free(&g);
}

/* A float4 transpose's figures: 16 sectors per request of 16 bytes a lane,
 * each request 4 in 4-byte terms (coalesced), at line 20; its stores at
 * line 37 lanes 64 bytes apart, 32 sectors a request: 8 in 4-byte terms. */
static const char *wide =
	"{\"launches\":[{\"kernel\":\"transpose_f4\",\"traced_blocks\":4,\"lines\":["
	"{\"file\":\"transpose.cu\",\"line\":20,\"space\":\"global\",\"kind\":\"load\","
	"\"requests\":32,\"sectors\":512,\"word_requests\":128},"
	"{\"file\":\"transpose.cu\",\"line\":37,\"space\":\"global\",\"kind\":\"store\","
	"\"requests\":32,\"sectors\":1024,\"word_requests\":128}],"
	"\"example_requests\":[{\"file\":\"transpose.cu\",\"line\":20,\"kind\":\"load\",\"bytes\":16,"
	"\"lane_addresses\":[4096,4112,4128,null]},{\"file\":\"transpose.cu\",\"line\":37,"
	"\"kind\":\"store\",\"bytes\":16,\"lane_addresses\":[4096,4160,4224,null]}]}],"
	"\"totals\":{\"global_load_sectors_per_request\":16.0,"
	"\"global_load_sectors_per_word_request\":4.0,\"global_store_sectors_per_request\":32.0,"
	"\"global_store_sectors_per_word_request\":8.0}}";

/* A coalesced request of 16 bytes a lane needs 16 sectors: judged per 4
 * bytes, it meets lab 4's limit of 4; a strided one, 8, does not, and the
 * message says both figures, without calling the coalesced width 4 bytes. */
Test(analysis, wide_accesses_are_judged_in_4_byte_terms)
{
	struct rubric r = no_checks();
	struct grade g;
	grade_init(&g, NULL);
	r.analysis_limit[CHECK_LOAD_SECTORS] = 4;
	r.analysis_limit[CHECK_STORE_SECTORS] = 4;
	json_t *m = parse(wide);
	analysis_grade(&r, &r.analysis_shape, m, &g);
	struct test_result *ld = find(&g, "analysis: coalesced loads");
	struct test_result *st = find(&g, "analysis: coalesced stores");
	cr_expect_eq(ld->status, TEST_PASSED, "%s", ld->message);
	cr_expect(strstr(ld->message, "16.0 sectors per request of 16 bytes a thread, 4.0 for each 4 "
			 "bytes") != NULL, "%s", ld->message);
	cr_expect_eq(st->status, TEST_FAILED);
	cr_expect(strstr(st->message, "touch 32.0 sectors per request of 16 bytes a thread, 8.0 sectors "
			 "per request for each 4 bytes (a coalesced store of 16 bytes a thread touches 16")
		  != NULL, "%s", st->message);
	cr_expect(strstr(st->message, "addresses 64 bytes apart") != NULL, "%s", st->message);
	cr_expect_float_eq(g.figures.figure[CHECK_LOAD_SECTORS], 4.0, 1e-9);
	json_decref(m);
	grade_free(&g);
}

Test(analysis, no_key_no_test)
{
	struct rubric r = no_checks();
	struct grade g;
	grade_init(&g, NULL);
	json_t *m = parse(naive);
	analysis_grade(&r, &r.analysis_shape, m, &g);
	cr_expect_eq(g.n_tests, 0);
	json_decref(m);
	grade_free(&g);
}

Test(analysis, summary_goes_into_the_metrics)
{
	struct rubric r = no_checks();
	struct grade g;
	grade_init(&g, NULL);
	r.analysis_limit[CHECK_RACES] = 0;
	json_t *m = parse(naive);
	analysis_grade(&r, &r.analysis_shape, m, &g);
	cr_expect_float_eq(g.figures.figure[CHECK_STORE_SECTORS], 32.0, 1e-9);
	cr_expect_float_eq(g.figures.figure[CHECK_LOAD_SECTORS], 4.0, 1e-9);
	cr_expect_float_eq(g.figures.figure[CHECK_RACES], 0.0, 1e-9);
	cr_expect_eq(find(&g, "analysis: races")->status, TEST_PASSED);
	json_decref(m);
	grade_free(&g);
}

Test(analysis, races_name_the_lines_and_the_fix)
{
	struct rubric r = no_checks();
	struct grade g;
	grade_init(&g, NULL);
	r.analysis_limit[CHECK_RACES] = 0;
	r.analysis_limit[CHECK_UNINIT_SHARED_READS] = 0;
	json_t *m = parse(racy);
	analysis_grade(&r, &r.analysis_shape, m, &g);
	struct test_result *t = find(&g, "analysis: races");
	cr_expect_eq(t->status, TEST_FAILED);
	cr_expect(strstr(t->message, "8194 races") != NULL, "%s", t->message);
	cr_expect(strstr(t->message, "a write at scan.cu:57 and a read at scan.cu:57") != NULL, "%s",
		  t->message);
	cr_expect(strstr(t->message, "__syncthreads()") != NULL, "%s", t->message);
	t = find(&g, "analysis: uninitialised shared reads");
	cr_expect_eq(t->status, TEST_FAILED);
	cr_expect(strstr(t->message, "12 at scan.cu:50") != NULL, "%s", t->message);
	json_decref(m);
	grade_free(&g);
}

Test(analysis, bank_conflicts_name_the_worst_line)
{
	struct rubric r = no_checks();
	struct grade g;
	grade_init(&g, NULL);
	r.analysis_limit[CHECK_SHARED_WAVEFRONTS] = 2;
	json_t *m = parse(racy);
	analysis_grade(&r, &r.analysis_shape, m, &g);
	struct test_result *t = find(&g, "analysis: bank conflicts");
	cr_expect_eq(t->status, TEST_FAILED);
	cr_expect(strstr(t->message, "at scan.cu:60 need 32.0 wavefronts per request") != NULL, "%s",
		  t->message);
	/* No source to read the tile's shape from: no shape is made up. */
	cr_expect(strstr(t->message, "pad each row by one element") != NULL, "%s", t->message);
	cr_expect(strstr(t->message, "[32][33]") == NULL, "%s", t->message);
	json_decref(m);
	grade_free(&g);
}

Test(analysis, active_warp_steps_against_the_limit)
{
	struct rubric r = no_checks();
	struct grade g;
	grade_init(&g, NULL);
	r.analysis_limit[CHECK_ACTIVE_WARP_STEPS] = 160;
	json_t *m = parse(racy);
	analysis_grade(&r, &r.analysis_shape, m, &g);
	struct test_result *t = find(&g, "analysis: active warp-steps");
	cr_expect_eq(t->status, TEST_FAILED);
	cr_expect(strstr(t->message, "352 active warp-steps in one block of the block scan (limit 160)") != NULL, "%s", t->message);
	cr_expect_float_eq(t->max_points, 10.0, 1e-9);
	json_decref(m);
	grade_free(&g);
}

/* The scan's work: the emulator's combining operations over every launch,
 * per 1024 of the analysis run's elements, in warps of 32. */
static const char *work_metrics(double ops, char *buf, size_t len)
{
	snprintf(buf, len, "{\"launches\":[{\"kernel\":\"scan\",\"traced_blocks\":65,"
		 "\"combining_ops\":%.0f,\"combining_ops_all_blocks\":%.0f,\"lines\":[]}],"
		 "\"totals\":{\"combining_ops\":%.0f}}", ops, ops, ops);
	return buf;
}

static struct test_result *work_check(double ops, size_t n, struct grade *g)
{
	char text[512];
	struct rubric r = no_checks();
	r.analysis_limit[CHECK_WORK] = 140;
	r.analysis_shape.rank = 1;
	r.analysis_shape.dim[0] = n;
	json_t *m = parse(work_metrics(ops, text, sizeof text));
	analysis_grade(&r, &r.analysis_shape, m, g);
	json_decref(m);
	return find(g, "analysis: work-efficiency");
}

Test(analysis, work_per_1024_elements_against_the_limit)
{
	struct grade g;
	/* 2 x 65536 combining operations on 65536 elements: 64 per 1024, passes. */
	grade_init(&g, NULL);
	struct test_result *t = work_check(2.0 * 65536, 65536, &g);
	cr_expect_eq(t->status, TEST_PASSED, "%s", t->message);
	cr_expect(strstr(t->message, "64 operations per 1024 elements (limit 140)"), "%s", t->message);
	cr_expect_float_eq(g.figures.figure[CHECK_WORK], 64, 1e-9);
	grade_free(&g);
	/* Nine per element, Hillis-Steele's, on twice as many elements. */
	grade_init(&g, NULL);
	t = work_check(9.0 * 131072, 131072, &g);
	cr_expect_eq(t->status, TEST_FAILED);
	cr_expect(strstr(t->message, "288 operations per 1024 elements (limit 140)"), "%s", t->message);
	grade_free(&g);
	/* Hardly any: not a scan (an unwritten skeleton copies its input). */
	grade_init(&g, NULL);
	t = work_check(100, 65536, &g);
	cr_expect_eq(t->status, TEST_FAILED);
	cr_expect(strstr(t->message, "has not scanned"), "%s", t->message);
	grade_free(&g);
}

/* Lab 1 shows the figure as information: no points, not in the split. */
Test(analysis, work_as_a_note_of_no_points)
{
	char text[512];
	struct rubric r = no_checks();
	struct grade g;
	grade_init(&g, NULL);
	r.analysis_limit[CHECK_RACES] = 0;
	r.analysis_limit[CHECK_WORK_NOTE] = 140;
	r.analysis_shape.rank = 1;
	r.analysis_shape.dim[0] = 1024;
	cr_expect_eq(analysis_checks_present(&r), 1);
	json_t *m = parse(work_metrics(9.0 * 1024, text, sizeof text));
	json_object_set_new(json_object_get(m, "totals"), "races", json_integer(0));
	analysis_grade(&r, &r.analysis_shape, m, &g);
	struct test_result *t = find(&g, "analysis: note (work per 1024 elements)");
	cr_expect_eq(t->status, TEST_PASSED);
	cr_expect_float_eq(t->max_points, 0, 1e-9);
	cr_expect(strstr(t->message, "288 operations per 1024 elements") && strstr(t->message, "140"),
		  "%s", t->message);
	cr_expect_float_eq(find(&g, "analysis: races")->max_points, 10.0, 1e-9);
	json_decref(m);
	grade_free(&g);
}

Test(analysis, missing_or_hostile_figures_fail_without_crashing)
{
	static const char *bad[] = {
		"{}",
		"{\"totals\":{\"races\":\"none\",\"global_store_sectors_per_request\":-1}}",
		"{\"launches\":[{\"lines\":[{\"space\":7,\"line\":\"x\",\"requests\":1e300}]}],"
		"\"totals\":{\"races\":1e300}}",
		"[1,2,3]",
	};
	for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
		struct rubric r = no_checks();
		struct grade g;
		grade_init(&g, NULL);
		r.analysis_limit[CHECK_STORE_SECTORS] = 8;
		r.analysis_limit[CHECK_RACES] = 0;
		r.analysis_limit[CHECK_ACTIVE_WARP_STEPS] = 100;
		json_t *m = parse(bad[k]);
		analysis_grade(&r, &r.analysis_shape, m, &g);
		cr_assert_eq(g.n_tests, 3);
		for (int i = 0; i < g.n_tests; i++)
			cr_expect_eq(g.tests[i].status, TEST_FAILED, "%s: %s", bad[k], g.tests[i].name);
		json_decref(m);
		grade_free(&g);
	}
}

Test(analysis, no_shared_memory_means_no_bank_conflicts)
{
	struct rubric r = no_checks();
	struct grade g;
	grade_init(&g, NULL);
	r.analysis_limit[CHECK_SHARED_WAVEFRONTS] = 2;
	json_t *m = parse(naive);
	analysis_grade(&r, &r.analysis_shape, m, &g);
	cr_expect_eq(find(&g, "analysis: bank conflicts")->status, TEST_PASSED);
	json_decref(m);
	grade_free(&g);
}

Test(analysis, no_traced_launch_fails_every_check)
{
	struct rubric r = no_checks();
	struct grade g;
	grade_init(&g, NULL);
	r.analysis_limit[CHECK_RACES] = 0;
	r.analysis_limit[CHECK_UNINIT_SHARED_READS] = 0;
	json_t *m = parse("{\"launches\":[],\"totals\":{\"races\":0,\"uninit_shared_reads\":0}}");
	analysis_grade(&r, &r.analysis_shape, m, &g);
	cr_assert_eq(g.n_tests, 2);
	for (int i = 0; i < 2; i++) {
		cr_expect_eq(g.tests[i].status, TEST_FAILED);
		cr_expect(strstr(g.tests[i].message, "traced no kernel launch") != NULL, "%s",
			  g.tests[i].message);
	}
	json_decref(m);
	grade_free(&g);
}

/* A scan that never touches shared memory (log2 n passes over global
 * memory) is no block scan: its zero warp-steps must not pass for work-efficient. */
Test(analysis, no_shared_memory_is_not_work_efficient)
{
	struct rubric r = no_checks();
	struct grade g;
	grade_init(&g, NULL);
	r.analysis_limit[CHECK_ACTIVE_WARP_STEPS] = 160;
	json_t *m = parse(naive);
	analysis_grade(&r, &r.analysis_shape, m, &g);
	struct test_result *t = find(&g, "analysis: active warp-steps");
	cr_expect_eq(t->status, TEST_FAILED);
	cr_expect(strstr(t->message, "no warp stored to shared memory") != NULL, "%s", t->message);
	json_decref(m);
	grade_free(&g);
}

/* The padding the bank-conflict message suggests is the tile's own shape
 * plus one, read from the source: [16][16] gets [16][17]. */
Test(analysis, the_padding_hint_follows_the_tiles_shape)
{
	char path[] = "/tmp/analysis-tile-XXXXXX.cu";
	int fd = mkstemps(path, 3);
	cr_assert(fd >= 0);
	FILE *f = fdopen(fd, "w");
	fputs("__global__ void t(const float *in, float *out)\n{\n"
	      "\t__shared__ float tile[16][16];\n\ttile[threadIdx.y][threadIdx.x] = in[threadIdx.x];\n"
	      "\t__syncthreads();\n\tout[threadIdx.x] = tile[threadIdx.x][threadIdx.y];\n}\n", f);
	fclose(f);
	const char *slash = strrchr(path, '/') + 1;
	char metrics[1024];
	snprintf(metrics, sizeof metrics,
		 "{\"launches\":[{\"kernel\":\"t\",\"traced_blocks\":1,\"lines\":[{\"file\":\"%s\","
		 "\"line\":6,\"space\":\"shared\",\"kind\":\"load\",\"requests\":8,\"wavefronts\":64}]}],"
		 "\"totals\":{\"shared_requests\":8,\"shared_wavefronts\":64,"
		 "\"shared_wavefronts_per_request\":8.0}}", slash);
	struct rubric r = no_checks();
	struct grade g;
	grade_init(&g, NULL);
	snprintf(g.submission, sizeof g.submission, "%s", path);
	r.analysis_limit[CHECK_SHARED_WAVEFRONTS] = 2;
	json_t *m = parse(metrics);
	analysis_grade(&r, &r.analysis_shape, m, &g);
	struct test_result *t = find(&g, "analysis: bank conflicts");
	cr_expect_eq(t->status, TEST_FAILED);
	cr_expect(strstr(t->message, "Reading a column of tile[16][16] does that; pad each row by one "
			 "element (tile[16][17])") != NULL, "%s", t->message);
	cr_expect(strstr(t->message, "[32][33]") == NULL, "%s", t->message);
	json_decref(m);
	unlink(path);
}

/* The emulator's warnings become notes of no points that name the line. */
Test(analysis, warnings_become_notes)
{
	struct rubric r = no_checks();
	struct grade g;
	grade_init(&g, NULL);
	json_t *m = parse("{\"launches\":[],\"totals\":{},\"warnings\":[{\"kind\":\"exited_before_barrier\","
			  "\"file\":\"scan.cu\",\"line\":31,\"count\":1,\"message\":\"in kernel k, "
			  "__syncthreads() at scan.cu:31 was reached while 16 of the block's 64 threads "
			  "had already returned\"}]}");
	analysis_grade(&r, &r.analysis_shape, m, &g);
	struct test_result *t = find(&g, "analysis: note (exited_before_barrier)");
	cr_expect_eq(t->status, TEST_PASSED);
	cr_expect_float_eq(t->max_points, 0.0, 1e-9);
	cr_expect(strstr(t->message, "scan.cu:31") != NULL, "%s", t->message);
	json_decref(m);
}
