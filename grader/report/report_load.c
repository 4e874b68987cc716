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
	/* The measured figures: lab 4's chart draws its sweep from them. */
	json_t *metrics = json_object_get(j, "metrics");
	if (json_is_object(metrics))
		json_object_update(g->metrics, metrics);
	rc = 0;
done:
	json_decref(j);
	return rc;
}
