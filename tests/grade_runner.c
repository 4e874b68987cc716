/* End-to-end test support (see grade_runner.h). */
#include "grade_runner.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "steps/device.h"
#include "sys/kit_paths.h"
#include "sys/sandbox.h"

/* KIT_EVIDENCE_DIR: keep each grade's whole output and JSON report there,
 * so that the GPU tests' run is also the committed evidence. */
static void keep_evidence(const char *lab, const char *file, const char *backend, const char *output,
			  const char *json)
{
	const char *dir = getenv("KIT_EVIDENCE_DIR");
	if (!dir || !*dir)
		return;
	char name[256], path[1024];
	const char *base = file ? strrchr(file, '/') : NULL;
	snprintf(name, sizeof(name), "%s-%s-%s", lab, backend,
		 !file ? "solution" : strncmp(file, "labs/", 5) == 0 ? "skeleton" : base ? base + 1 : file);
	char *dot = strrchr(name, '.');
	if (dot && strcmp(dot, ".cu") == 0)
		*dot = '\0';
	for (int i = 0;; i++) {	/* a repeated grade gets -2, -3, ... */
		snprintf(path, sizeof(path), i ? "%s/%s-%d.txt" : "%s/%s.txt", dir, name, i + 1);
		if (access(path, F_OK) != 0)
			break;
	}
	FILE *f = fopen(path, "w");
	if (f) {
		fputs(output, f);
		fclose(f);
	}
	snprintf(path + strlen(path) - 4, 6, ".json");
	json_t *j = json_load_file(json, 0, NULL);
	if (j)
		json_dump_file(j, path, JSON_INDENT(2));
	json_decref(j);
}

int run_grade(const char *lab, const char *file, const char *backend, const char *extra,
	      struct graded *out)
{
	memset(out, 0, sizeof(*out));
	char grade[1024], json[256];
	kit_path(grade, sizeof(grade), "build/grade");
	static int counter;
	snprintf(json, sizeof(json), "/tmp/grade-e2e-%d-%d.json", (int)getpid(), counter++);
	unlink(json);
	char *argv[16];
	int a = 0;
	argv[a++] = grade;
	argv[a++] = (char *)lab;
	if (file) {
		argv[a++] = "--submission";
		argv[a++] = (char *)file;
	} else {
		argv[a++] = "--solution";
	}
	argv[a++] = "--backend";
	argv[a++] = (char *)backend;
	argv[a++] = "--json";
	argv[a++] = json;
	argv[a++] = "--plot";
	argv[a++] = "none";
	if (extra)
		argv[a++] = (char *)extra;
	argv[a] = NULL;
	struct sandbox_limits lim = { .wall_s = 900, .output_cap = 1 << 20 };
	struct child_result res;
	char err[256];
	if (sandbox_run(argv, &lim, &res, err, sizeof(err)) < 0)
		return -1;
	out->exit_status = res.exited ? res.exit_status : -1;
	snprintf(out->output, sizeof(out->output), "%s", child_output_tail(&res, 60));
	out->report = json_load_file(json, 0, NULL);
	keep_evidence(lab, file, backend, res.output, json);
	child_result_free(&res);
	unlink(json);
	return 0;
}

void graded_free(struct graded *g)
{
	json_decref(g->report);
	g->report = NULL;
}

json_t *report_test(json_t *report, const char *name)
{
	size_t i;
	json_t *t;
	json_array_foreach(json_object_get(report, "tests"), i, t)
		if (strcmp(json_string_value(json_object_get(t, "name")) ?: "", name) == 0)
			return t;
	return NULL;
}

const char *group_verdict(json_t *report, const char *group)
{
	json_t *tests = json_object_get(report, "tests"), *t;
	size_t i;
	int seen = 0, failed = 0;
	double points = 0, max = 0;
	json_array_foreach(tests, i, t) {
		const char *g = json_string_value(json_object_get(t, "group"));
		if (!g || strcmp(g, group) != 0)
			continue;
		seen = 1;
		failed |= !json_is_true(json_object_get(t, "passed"));
		points += json_number_value(json_object_get(t, "points"));
		max += json_number_value(json_object_get(t, "max_points"));
	}
	if (!seen)
		return "none";
	if (strcmp(group, "performance") == 0)
		return points <= 0 ? "zero" : points >= max - 1e-9 ? "full" : "partial";
	return failed ? "fail" : "pass";
}

/* The words after "expect-KEY:" in the file's first 40 lines, or NULL. */
static char *expectation_line(const char *file, const char *key, char *buf, size_t len)
{
	FILE *f = fopen(file, "r");
	if (!f)
		return NULL;
	char want[64], line[512];
	snprintf(want, sizeof(want), "expect-%s:", key);
	char *found = NULL;
	for (int n = 0; n < 40 && fgets(line, sizeof(line), f); n++) {
		char *p = strstr(line, want);
		if (p) {
			snprintf(buf, len, "%s", p + strlen(want));
			found = buf;
			break;
		}
	}
	fclose(f);
	return found;
}

int check_expectations(const char *file, const char *key, json_t *report, char *why, size_t len)
{
	char buf[512];
	if (!expectation_line(file, key, buf, sizeof(buf)))
		return 0;
	int checked = 0;
	char *save;
	for (char *tok = strtok_r(buf, " \t\r\n", &save); tok; tok = strtok_r(NULL, " \t\r\n", &save)) {
		char *eq = strchr(tok, '=');
		if (!eq)
			continue;
		*eq = '\0';
		const char *got = group_verdict(report, tok);
		if (strcmp(got, eq + 1) != 0) {
			snprintf(why, len, "%s: %s is '%s', expected '%s'", file, tok, got, eq + 1);
			return -1;
		}
		checked++;
	}
	return checked;
}

int check_message(const char *file, json_t *report, char *why, size_t len)
{
	char want[512];
	if (!file || !expectation_line(file, "message", want, sizeof(want)))
		return 0;
	char *text = want + strspn(want, " \t");
	text[strcspn(text, "\r\n")] = '\0';
	json_t *t;
	size_t i;
	json_array_foreach(json_object_get(report, "tests"), i, t) {
		const char *m = json_string_value(json_object_get(t, "message"));
		if (m && *text && strstr(m, text))
			return 1;
	}
	snprintf(why, len, "%s: no test's message says '%s'", file, text);
	return -1;
}

int check_score(const char *file, json_t *report, char *why, size_t len)
{
	char buf[512];
	double score = json_number_value(json_object_get(report, "score"));
	double max = json_number_value(json_object_get(report, "max_score"));
	/* One scale: the shipped rubrics are out of 100 for every file, on every backend. */
	if (max != 100) {
		snprintf(why, len, "%s: max_score %g, not the rubric's 100", file ? file : "", max);
		return -1;
	}
	if (!file || !expectation_line(file, "score", buf, sizeof(buf)))
		return 0;
	double bound;
	int at_most = strncmp(buf + strspn(buf, " "), "<=", 2) == 0;
	if (sscanf(buf + strspn(buf, " ") + 2, "%lf", &bound) != 1) {
		snprintf(why, len, "%s: expect-score: write '<=N' or '>=N', not '%.40s'", file, buf);
		return -1;
	}
	if (at_most ? score > bound : score < bound) {
		snprintf(why, len, "%s: scored %g of %g, expected %s %g", file, score, max,
			 at_most ? "at most" : "at least", bound);
		return -1;
	}
	return 1;
}

int have_gpu(char *why, size_t len)
{
	struct device_info d;
	device_probe(&d, NULL);
	if (!d.present)
		snprintf(why, len, "%s", d.why_absent);
	return d.present;
}

int have_emulator(void)
{
	char cc[1024];
	return file_exists(kit_path(cc, sizeof(cc), "build/emu/cuemu-cc"));
}

char *kit_file_text(const char *rel)
{
	char path[4096];
	FILE *f = fopen(kit_path(path, sizeof(path), rel), "r");
	char *text = f ? calloc(1, 1 << 20) : NULL;
	if (text)
		text[fread(text, 1, (1 << 20) - 1, f)] = '\0';
	if (f)
		fclose(f);
	return text;
}
