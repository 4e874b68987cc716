/*
 * The grade's typed parts (perf, prediction, sweep, analysis figures) as
 * the report writes them under "metrics" and report_load reads them back:
 * one writer, one reader, the same figures after the round trip.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "report/report_json.h"
#include "report/report_load.h"

extern const struct lab lab4_occupancy;

Test(typed_parts, the_report_writes_them_and_reads_them_back)
{
	struct grade g, back;
	char path[] = "/tmp/test-typed-parts-XXXXXX", err[256];
	int fd = mkstemp(path);
	cr_assert_geq(fd, 0);
	close(fd);
	grade_init(&g, &lab4_occupancy);
	g.perf.measured = 1;
	g.perf.percent_of_copy = 71.5;
	g.perf.runs = 9;
	g.perf.occupancy_pct = 25;
	snprintf(g.perf.launch, sizeof(g.perf.launch), "stream_scale_kernel<<<132, 256>>>");
	g.prediction.made = 1;
	g.prediction.percent_of_copy = 64;
	snprintf(g.prediction.gpu, sizeof(g.prediction.gpu), "NVIDIA H100 80GB HBM3");
	snprintf(g.prediction.why, sizeof(g.prediction.why), "DRAM-bound");
	g.sweep.points = json_pack("[{s:f, s:f}]", "occupancy_pct", 12.5, "percent_of_copy", 40.0);
	snprintf(g.figures.shape, sizeof(g.figures.shape), "1024x1024");
	g.figures.figure[CHECK_STORE_SECTORS] = 4;

	json_t *j = report_json(&g);
	json_t *m = json_object_get(j, "metrics");
	cr_expect_float_eq(json_number_value(json_object_get(m, "percent_of_copy")), 71.5, 1e-9);
	cr_expect_float_eq(json_number_value(json_object_get(m, "predicted_percent_of_copy")), 64, 1e-9);
	cr_expect_str_eq(json_string_value(json_object_get(m, "predicted_for")), "NVIDIA H100 80GB HBM3");
	cr_expect_float_eq(json_number_value(json_object_get(m, "store_sectors_per_request")), 4, 1e-9);
	cr_expect_null(json_object_get(m, "load_sectors_per_request"), "a figure not measured is absent");
	cr_expect_null(json_object_get(m, "reference_gbps"), "no reference was timed");
	json_decref(j);

	cr_assert_eq(report_json_write(&g, path, err, sizeof(err)), 0, "%s", err);
	grade_init(&back, NULL);
	cr_assert_eq(report_load(path, &back, err, sizeof(err)), 0, "%s", err);
	cr_expect(back.perf.measured);
	cr_expect_float_eq(back.perf.percent_of_copy, 71.5, 1e-9);
	cr_expect_eq(back.perf.runs, 9);
	cr_expect_float_eq(back.perf.occupancy_pct, 25, 1e-9);
	cr_expect_str_eq(back.perf.launch, g.perf.launch);
	cr_expect(back.prediction.made);
	cr_expect_float_eq(back.prediction.percent_of_copy, 64, 1e-9);
	cr_expect_str_eq(back.prediction.why, "DRAM-bound");
	cr_expect_eq(json_array_size(back.sweep.points), 1);
	cr_expect_str_eq(back.figures.shape, "1024x1024");
	cr_expect_float_eq(back.figures.figure[CHECK_STORE_SECTORS], 4, 1e-9);
	cr_expect_lt(back.figures.figure[CHECK_LOAD_SECTORS], 0);
	cr_expect_lt(back.perf.reference_gbps, 0);
	grade_free(&back);
	grade_free(&g);
	unlink(path);
}
