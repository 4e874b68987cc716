/* Reading a JSON report back (see report_load.h). */
#include "report/report_load.h"

#include "report/report_json.h"

#include <stdio.h>
#include <string.h>

/* A bench figure: a number, or null for "not measured" (-1 here). */
static double figure(json_t *point, const char *key)
{
	json_t *v = json_object_get(point, key);
	return json_is_number(v) ? json_number_value(v) : -1;
}

static int load_bench(json_t *bench, struct grade *g, char *err, size_t errlen)
{
	size_t i;
	json_t *p;
	json_array_foreach(bench, i, p) {
		if (g->n_bench >= GRADE_MAX_BENCH)
			break;
		struct bench_point *b = &g->bench[g->n_bench];
		const char *shape = json_string_value(json_object_get(p, "shape"));
		char why[256];
		if (!shape || shape_parse(shape, &b->shape, why, sizeof(why)) < 0 ||
		    b->shape.rank != g->lab->rank) {
			snprintf(err, errlen, "bench[%zu]: no valid \"shape\"", i);
			return -1;
		}
		b->bytes = figure(p, "bytes");
		b->student_gbps = figure(p, "student_gbps");
		b->reference_gbps = figure(p, "reference_gbps");
		b->copy_gbps = figure(p, "copy_gbps");
		g->n_bench++;
	}
	return 0;
}

static double number_or(json_t *o, const char *key, double missing)
{
	json_t *v = json_object_get(o, key);
	return json_is_number(v) ? json_number_value(v) : missing;
}

static void string_into(json_t *o, const char *key, char *buf, size_t len)
{
	const char *v = json_string_value(json_object_get(o, key));
	snprintf(buf, len, "%s", v ? v : "");
}

/* "metrics" back into g's typed parts (report_json.c's metrics_json). */
static void load_metrics(json_t *m, struct grade *g)
{
	struct perf_figures *f = &g->perf;
	f->occupancy_pct = number_or(m, "occupancy_pct", -1);
	string_into(m, "launch", f->launch, sizeof(f->launch));
	if (json_is_array(json_object_get(m, "launches")))
		f->launches = json_deep_copy(json_object_get(m, "launches"));
	f->measured = json_is_number(json_object_get(m, "percent_of_copy"));
	f->gbps = number_or(m, "gbps", -1);
	f->copy_gbps = number_or(m, "copy_gbps", -1);
	f->percent_of_copy = number_or(m, "percent_of_copy", -1);
	f->timing_spread = number_or(m, "timing_spread", -1);
	f->runs = (int)number_or(m, "runs", 0);
	f->bytes = number_or(m, "bytes", -1);
	f->peak_gbps = number_or(m, "peak_gbps", -1);
	f->reference_gbps = number_or(m, "reference_gbps", -1);
	f->percent_of_reference = number_or(m, "percent_of_reference", -1);
	struct prediction *p = &g->prediction;
	string_into(m, "predicted_for", p->gpu, sizeof(p->gpu));
	p->made = p->gpu[0] != '\0';
	p->percent_of_copy = number_or(m, "predicted_percent_of_copy", -1);
	p->time_ms = number_or(m, "predicted_time_ms", -1);
	p->copy_gbps = number_or(m, "predicted_copy_gbps", -1);
	p->dram_bytes = number_or(m, "predicted_dram_bytes", -1);
	p->min_bytes = number_or(m, "predicted_min_bytes", -1);
	p->launches = (long)number_or(m, "predicted_launches", 0);
	string_into(m, "predicted_bound", p->bound, sizeof(p->bound));
	string_into(m, "predicted_why", p->why, sizeof(p->why));
	p->occupancy_pct = number_or(m, "predicted_occupancy_pct", -1);
	string_into(m, "prediction_error", p->error, sizeof(p->error));
	/* Lab 4's chart draws its sweep from these. */
	if (json_is_array(json_object_get(m, "sweep")))
		g->sweep.points = json_deep_copy(json_object_get(m, "sweep"));
	string_into(m, "sweep_error", g->sweep.error, sizeof(g->sweep.error));
	string_into(m, "analysis_shape", g->figures.shape, sizeof(g->figures.shape));
	g->figures.second_call = number_or(m, "analysis_call", 1) == 2;
	for (int i = 0; i < ANALYSIS_CHECKS; i++)
		g->figures.figure[i] = number_or(m, analysis_checks[i].summary, -1);
}

int report_load(const char *path, struct grade *g, char *err, size_t errlen)
{
	json_error_t jerr;
	json_t *j = json_load_file(path, 0, &jerr);
	if (!j) {
		snprintf(err, errlen, "%s:%d: %s", path, jerr.line, jerr.text);
		return -1;
	}
	int rc = -1;
	/* Reports from before the field are version 1's layout. */
	json_t *version = json_object_get(j, "schema_version");
	if (version && (!json_is_integer(version) || json_integer_value(version) < 1 ||
			json_integer_value(version) > REPORT_JSON_SCHEMA_VERSION)) {
		snprintf(err, errlen, "%s: its schema_version is not one this grader reads (1 to %d): "
			 "a newer kit wrote it?", path, REPORT_JSON_SCHEMA_VERSION);
		goto done;
	}
	const char *lab = json_string_value(json_object_get(j, "lab"));
	const char *device = json_string_value(json_object_get(j, "device"));
	const char *submission = json_string_value(json_object_get(j, "submission"));
	if (!lab || !(g->lab = lab_find(lab))) {
		snprintf(err, errlen, "%s: no known \"lab\" in the report", path);
		goto done;
	}
	snprintf(g->device, sizeof(g->device), "%s", device ? device : "unknown device");
	snprintf(g->submission, sizeof(g->submission), "%s", submission ? submission : "");
	if (load_bench(json_object_get(j, "bench"), g, err, errlen) < 0)
		goto done;
	json_t *analysis = json_object_get(j, "analysis");
	if (json_is_object(analysis))
		g->analysis = json_deep_copy(analysis);
	json_t *metrics = json_object_get(j, "metrics");
	if (json_is_object(metrics))
		load_metrics(metrics, g);
	rc = 0;
done:
	json_decref(j);
	return rc;
}
