/* The JSON report: the grade as data, for scripts, Gradescope and the gradebook. */
#include "report/report_json.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sys/atomic_file.h"
#include "sys/utf8.h"
#include "report/report_text.h"
#include "steps/grade_run.h"

/* A JSON string of s, with each byte that is not valid UTF-8 replaced by
 * U+FFFD (json_string() would return NULL and the field would vanish) and
 * each C1 control character by '?' (a reader that shows it would obey it). */
static json_t *text(const char *s)
{
	size_t len = strlen(s), o = 0;
	char *buf = malloc(len * 3 + 1);
	if (!buf)
		return NULL;
	for (const unsigned char *p = (const unsigned char *)s; *p;) {
		size_t n = utf8_len(p);
		if (c1_control_len(p)) {
			buf[o++] = '?';
			p += 2;
		} else if (n) {
			memcpy(buf + o, p, n);
			o += n;
			p += n;
		} else {
			memcpy(buf + o, "\xef\xbf\xbd", 3);
			o += 3;
			p++;
		}
	}
	json_t *j = json_stringn(buf, o);
	free(buf);
	return j;
}

/* A number, or null for a NaN or an infinity, which JSON cannot hold
 * (json_real would fail and take the whole report with it). */
static json_t *num(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

/* A figure, or null when it was not measured (negative). */
static json_t *measured(double v)
{
	return v >= 0 ? num(v) : json_null();
}

static json_t *seed_json(uint64_t seed)
{
	char buf[24];

	if (seed <= REPORT_JSON_MAX_INT_SEED)
		return json_integer((json_int_t)seed);
	snprintf(buf, sizeof(buf), "%llu", (unsigned long long)seed);
	return json_string(buf);
}

static json_t *test_json(const struct test_result *t)
{
	return json_pack("{s:o, s:s, s:s, s:b, s:o, s:o, s:o}",
			 "name", text(t->name),
			 "group", group_name(t->group),
			 "status", status_name(t->status),
			 "passed", t->status == TEST_PASSED,
			 "points", num(points_round(t->points)),
			 "max_points", num(points_round(t->max_points)),
			 "message", text(t->message));
}

static json_t *bench_json(const struct bench_point *b)
{
	char shape[64];

	return json_pack("{s:s, s:I, s:o, s:o, s:o, s:o}",
			 "shape", shape_format(&b->shape, shape, sizeof(shape)),
			 "elements", (json_int_t)shape_elements(&b->shape),
			 "bytes", measured(b->bytes),
			 "student_gbps", measured(b->student_gbps),
			 "reference_gbps", measured(b->reference_gbps),
			 "copy_gbps", measured(b->copy_gbps));
}

/* Points per group, the gradebook's columns; only groups that have tests. */
static json_t *groups_json(const struct grade *g)
{
	json_t *o = json_object();

	for (size_t k = 0; o && k < GROUP_COUNT; k++) {
		double max = 0;
		int n = 0;
		for (int i = 0; i < g->n_tests; i++) {
			if (g->tests[i].group == group_order[k]) {
				max += g->tests[i].max_points;
				n++;
			}
		}
		if (n && json_object_set_new(o, group_name(group_order[k]),
					     json_pack("{s:o, s:o}", "points",
						       num(grade_group_points(g, group_order[k])),
						       "max_points", num(points_round(max)))) < 0) {
			json_decref(o);
			return NULL;
		}
	}
	return o;
}

static json_t *array_of_tests(const struct grade *g)
{
	json_t *a = json_array();
	for (int i = 0; a && i < g->n_tests; i++) {
		if (json_array_append_new(a, test_json(&g->tests[i])) < 0) {
			json_decref(a);
			return NULL;
		}
	}
	return a;
}

static json_t *array_of_bench(const struct grade *g)
{
	json_t *a = json_array();
	for (int i = 0; a && i < g->n_bench; i++) {
		if (json_array_append_new(a, bench_json(&g->bench[i])) < 0) {
			json_decref(a);
			return NULL;
		}
	}
	return a;
}

/* Sets key to v (taking it). A NULL v, from any of the builders above
 * running out of memory, fails the whole report rather than leaving a
 * hole in it. */
static int put(json_t *o, const char *key, json_t *v)
{
	return v ? json_object_set_new(o, key, v) : -1;
}

/* {"build": 1.19, "integrity": 0.02, ...}: each step that ran, its
 * seconds (g->step_seconds or g->step_cpu_seconds). */
static json_t *step_seconds_json(const struct grade *g, const double *seconds)
{
	json_t *o = json_object();
	for (int i = 0; o && i < g->n_steps; i++)
		if (json_object_set_new(o, grade_step_name(i), json_real(seconds[i])) < 0) {
			json_decref(o);
			return NULL;
		}
	return o;
}

/* The measured figures, under the keys a report has always had. */
static int perf_json(json_t *o, const struct perf_figures *f)
{
	int rc = 0;
	if (f->occupancy_pct >= 0) {
		rc |= put(o, "occupancy_pct", num(f->occupancy_pct));
		rc |= put(o, "launch", text(f->launch));
	}
	if (f->launches)
		rc |= put(o, "launches", json_deep_copy(f->launches));
	if (!f->measured)
		return rc;
	rc |= put(o, "gbps", num(f->gbps));
	rc |= put(o, "copy_gbps", num(f->copy_gbps));
	rc |= put(o, "percent_of_copy", num(f->percent_of_copy));
	rc |= put(o, "timing_spread", num(f->timing_spread));
	rc |= put(o, "runs", json_integer(f->runs));
	rc |= put(o, "bytes", num(f->bytes));
	rc |= put(o, "peak_gbps", num(f->peak_gbps));
	if (f->reference_gbps >= 0) {
		rc |= put(o, "reference_gbps", num(f->reference_gbps));
		rc |= put(o, "percent_of_reference", num(f->percent_of_reference));
	}
	return rc;
}

static int prediction_json(json_t *o, const struct prediction *p)
{
	int rc = 0;
	if (!p->made)
		return p->error[0] ? put(o, "prediction_error", text(p->error)) : 0;
	rc |= put(o, "predicted_percent_of_copy", num(p->percent_of_copy));
	rc |= put(o, "predicted_for", text(p->gpu));
	rc |= put(o, "predicted_time_ms", num(p->time_ms));
	rc |= put(o, "predicted_copy_gbps", num(p->copy_gbps));
	rc |= put(o, "predicted_dram_bytes", num(p->dram_bytes));
	rc |= put(o, "predicted_min_bytes", num(p->min_bytes));
	rc |= put(o, "predicted_launches", json_integer(p->launches));
	rc |= put(o, "predicted_bound", text(p->bound));
	rc |= put(o, "predicted_why", text(p->why));
	rc |= put(o, "predicted_occupancy_pct", num(p->occupancy_pct));
	return rc;
}

/* The race the correctness results depend on (findings.h). */
static json_t *race_json(const struct race_dependence *r)
{
	json_t *o = json_object();
	int rc = !o;
	if (o) {
		rc |= put(o, "kind", json_string(r->kind == RACE_RAW ? "RAW" : "WAR"));
		rc |= put(o, "read", json_pack("{s:o, s:I}", "file", text(r->read_file), "line",
					       (json_int_t)r->read_line));
		rc |= put(o, "write", json_pack("{s:o, s:I}", "file", text(r->write_file), "line",
						(json_int_t)r->write_line));
		rc |= put(o, "count", json_integer(r->count));
		rc |= put(o, "sizes_failed", json_integer(r->sizes_failed));
	}
	if (rc) {
		json_decref(o);
		return NULL;
	}
	return o;
}

/* "metrics": the grade's typed figures as one object of named numbers. */
static json_t *metrics_json(const struct grade *g)
{
	json_t *o = json_object();
	if (!o)
		return NULL;
	int rc = perf_json(o, &g->perf) | prediction_json(o, &g->prediction);
	if (g->sweep.points)
		rc |= put(o, "sweep", json_deep_copy(g->sweep.points));
	else if (g->sweep.error[0])
		rc |= put(o, "sweep_error", text(g->sweep.error));
	if (g->figures.shape[0])
		rc |= put(o, "analysis_shape", text(g->figures.shape)) |
		      put(o, "analysis_call", json_integer(g->figures.second_call ? 2 : 1));
	for (int i = 0; i < ANALYSIS_CHECKS; i++)
		if (g->figures.figure[i] >= 0)
			rc |= put(o, analysis_checks[i].summary, num(g->figures.figure[i]));
	if (g->beside.joined)
		rc |= put(o, "beside_seconds",
			  json_pack("{s:f, s:f, s:f, s:f}", "occupancy calculator", g->beside.calculator,
				    "emulator build", g->beside.emulator_build, "prediction",
				    g->beside.prediction, "analysis", g->beside.analysis));
	if (g->race.found)
		rc |= put(o, "race_dependence", race_json(&g->race));
	if (g->bounds.found)
		rc |= put(o, "outside_buffer", json_pack("{s:o, s:I, s:o, s:b, s:i}", "file", text(g->bounds.file),
							 "line", (json_int_t)g->bounds.line, "shape",
							 text(g->bounds.shape), "seen_by_a_size",
							 g->bounds.at_size, "sizes_failed",
							 g->bounds.sizes_failed));
	if (g->launch_match.checked)
		rc |= put(o, "launch_match",
			  g->launch_match.believed
				  ? json_pack("{s:b, s:b}", "believed", 1, "own_process", g->launch_match.own_process)
				  : json_pack("{s:b, s:b, s:o}", "believed", 0, "own_process",
					      g->launch_match.own_process, "why", text(g->launch_match.why)));
	if (rc) {
		json_decref(o);
		return NULL;
	}
	return o;
}

json_t *report_json(const struct grade *g)
{
	json_t *o = json_object();
	char cmd[700];
	int rc = 0;

	if (!o)
		return NULL;
	rc |= put(o, "schema_version", json_integer(REPORT_JSON_SCHEMA_VERSION));
	rc |= put(o, "lab", g->lab ? json_string(g->lab->id) : json_null());
	rc |= put(o, "lab_title", g->lab && g->lab->title ? text(g->lab->title) : json_null());
	rc |= put(o, "backend", json_string(backend_name(g->backend)));
	rc |= put(o, "device", text(g->device));
	rc |= put(o, "submission", text(g->submission));
	rc |= put(o, "seed", seed_json(g->seed));
	rc |= put(o, "reproduce", text(report_repro_command(g, cmd, sizeof(cmd))));
	rc |= put(o, "score", num(grade_score(g)));
	rc |= put(o, "max_score", num(grade_max_score(g)));
	rc |= put(o, "passed", json_boolean(grade_passed(g)));
	rc |= put(o, "exit_status", json_integer(grade_exit_status(g)));
	rc |= put(o, "band_source", text(g->band_source));
	rc |= put(o, "isolation", text(g->isolation_note));
	rc |= put(o, "tests", array_of_tests(g));
	rc |= put(o, "groups", groups_json(g));
	rc |= put(o, "metrics", metrics_json(g));
	rc |= put(o, "bench", array_of_bench(g));
	rc |= put(o, "step_seconds", step_seconds_json(g, g->step_seconds));
	rc |= put(o, "step_cpu_seconds", step_seconds_json(g, g->step_cpu_seconds));
	rc |= put(o, "beside_cpu_seconds", json_real(g->beside.cpu));
	rc |= put(o, "correctness_processes", json_integer(g->correctness_processes));
	rc |= put(o, "timing_processes", json_integer(g->timing_processes));
	if (g->analysis)
		rc |= put(o, "analysis", json_deep_copy(g->analysis));
	if (g->build_failed)
		rc |= put(o, "build_log", text(g->build_log));
	if (g->internal_error)
		rc |= put(o, "internal_error", text(g->internal_message));
	if (rc) {
		json_decref(o);
		return NULL;
	}
	return o;
}

int report_json_write(const struct grade *g, const char *path, char *err, size_t errlen)
{
	json_t *j = report_json(g);
	if (!j) {
		snprintf(err, errlen, "cannot write %s: out of memory", path);
		return -1;
	}
	/* Ten significant digits: GB/s and points in full, without the
	 * 33.333333333333336 that a double would otherwise print. */
	char *s = json_dumps(j, JSON_INDENT(2) | JSON_REAL_PRECISION(10));
	json_decref(j);
	if (!s) {
		snprintf(err, errlen, "cannot write %s: out of memory", path);
		return -1;
	}
	size_t len = strlen(s);
	s[len] = '\n';	/* json_dumps' NUL becomes the final newline */
	int rc = atomic_write(path, s, len + 1, err, errlen);
	free(s);
	return rc;
}
