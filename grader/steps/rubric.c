/* The rubric file, read with libinih (see rubric.h). */
#include "steps/rubric.h"
#include "steps/rubric_parse.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <ini.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char *count_lines(char *str, int num, void *stream)
{
	struct parse *p = stream;
	char *s = fgets(str, num, p->file);
	if (s)
		p->line++;
	return s;
}

static int first_time(struct parse *p, const char *section, const char *key)
{
	char id[48];
	snprintf(id, sizeof(id), "%.20s.%.24s", section, key);
	for (int i = 0; i < p->n_seen; i++)
		if (strcmp(p->seen[i], id) == 0)
			return rubric_error(p, key, "given twice in [%s]", section);
	if (p->n_seen < 64)
		snprintf(p->seen[p->n_seen++], sizeof(p->seen[0]), "%s", id);
	return 1;
}

#define IS(k) (strcmp(key, k) == 0)
#define NUMBER(k, lo, hi, field) \
	if (IS(k)) return first_time(p, section, key) && parse_number(p, key, value, lo, hi, &(field))

static int lab_key(struct parse *p, const char *section, const char *key, const char *value)
{
	(void)section;
	(void)value;
	if (IS("id") || IS("title"))
		return 1;	/* for people reading the file; the lab table is authoritative */
	return rubric_error(p, key, "unknown key in [lab]%s", "");
}

static int correctness_key(struct parse *p, const char *section, const char *key, const char *value)
{
	struct rubric *r = p->r;
	if (IS("shapes"))
		return parse_shape_list(p, key, value, r->shapes, &r->n_shapes);
	if (IS("emu_shapes"))
		return parse_shape_list(p, key, value, r->emu_shapes, &r->n_emu_shapes);
	NUMBER("points", 0, 1000, r->correctness_points);
	NUMBER("timeout_s", 0.1, 3600, r->test_timeout_s);
	NUMBER("time_factor", 1, 10000, r->test_time_factor);
	NUMBER("time_floor_s", 0.05, 3600, r->test_time_floor_s);
	return rubric_error(p, key, "unknown key in [correctness]%s", "");
}

const char *rubric_gate_name(int check)
{
	const char *key = analysis_checks[check].rubric_key;
	return strncmp(key, "max_", 4) == 0 ? key + 4 : key;
}

/* gate = NAME ...: analysis checks the performance points depend on. */
static int parse_gate(struct parse *p, const char *key, const char *value)
{
	char buf[1024];
	snprintf(buf, sizeof(buf), "%s", value);
	for (char *save, *tok = strtok_r(buf, " \t,", &save); tok; tok = strtok_r(NULL, " \t,", &save)) {
		int found = -1;
		for (int i = 0; i < ANALYSIS_CHECKS && found < 0; i++)
			if (strcmp(tok, rubric_gate_name(i)) == 0)
				found = i;
		if (found < 0) {
			char known[512] = "";
			for (int i = 0; i < ANALYSIS_CHECKS; i++)
				snprintf(known + strlen(known), sizeof(known) - strlen(known), "%s%s",
					 i ? ", " : "", rubric_gate_name(i));
			char what[700];
			snprintf(what, sizeof(what), "no analysis check is named '%.40s' (the checks: %s)",
				 tok, known);
			return rubric_error(p, key, "%.250s", what);
		}
		p->r->performance_gate[found] = 1;
		p->gate_line = p->line;
	}
	return 1;
}

static int performance_key(struct parse *p, const char *section, const char *key, const char *value)
{
	struct rubric *r = p->r;
	if (IS("shape"))
		return first_time(p, section, key) && parse_one_shape(p, key, value, &r->perf_shape);
	if (IS("chart_shapes"))
		return parse_shape_list(p, key, value, r->chart_shapes, &r->n_chart_shapes);
	if (IS("runs"))
		return first_time(p, section, key) && parse_whole(p, key, value, 1, 10000, &r->runs);
	NUMBER("points", 0, 1000, r->performance_points);
	if (IS("upper_pct"))
		p->default_upper_line = p->line;
	if (IS("reference_upper_pct"))
		p->reference_upper_line = p->line;
	NUMBER("lower_pct", 0, 1000, r->default_band.lower_pct);
	NUMBER("upper_pct", 0, 1000, r->default_band.upper_pct);
	NUMBER("reference_lower_pct", 0, 1000, r->reference_band.lower_pct);
	NUMBER("reference_upper_pct", 0, 1000, r->reference_band.upper_pct);
	NUMBER("timeout_s", 1, 3600, r->bench_timeout_s);
	NUMBER("max_occupancy_pct", 1, 100, r->max_occupancy_pct);
	if (IS("sweep_runs"))
		return first_time(p, section, key) && parse_whole(p, key, value, 0, 1000, &r->sweep_runs);
	if (IS("predicted"))
		return first_time(p, section, key) && parse_whole(p, key, value, 0, 1, &r->predicted);
	if (IS("gate"))
		return parse_gate(p, key, value);
	return rubric_error(p, key, "unknown key in [performance]%s", "");
}

static int occupancy_key(struct parse *p, const char *section, const char *key, const char *value)
{
	struct rubric *r = p->r;
	if (IS("tables")) {
		int before = r->n_occupancy_tables;
		if (!parse_words(p, key, value, r->occupancy_tables, &r->n_occupancy_tables,
				 RUBRIC_MAX_FIXTURES))
			return 0;
		for (int i = before; i < r->n_occupancy_tables; i++)
			if (strcmp(r->occupancy_tables[i], "sm_80") != 0 && strcmp(r->occupancy_tables[i], "sm_90") != 0)
				return rubric_error(p, key, "the kit keeps tables for sm_80 and sm_90, not '%s'",
					     r->occupancy_tables[i]);
		return 1;
	}
	NUMBER("points", 0, 1000, r->occupancy_points);
	NUMBER("timeout_s", 1, 3600, r->occupancy_timeout_s);
	return rubric_error(p, key, "unknown key in [occupancy]%s", "");
}

static int gpu_key(struct parse *p, const char *section, const char *key, const char *value)
{
	struct gpu_band *b = &p->r->gpus[p->gpu];
	if (IS("upper_pct"))
		p->gpu_upper_line[p->gpu] = p->line;
	NUMBER("lower_pct", 0, 1000, b->band.lower_pct);
	NUMBER("upper_pct", 0, 1000, b->band.upper_pct);
	if (IS("measured")) {
		snprintf(b->measured, sizeof(b->measured), "%s", value);
		return 1;
	}
	return rubric_error(p, key, "unknown key in a [gpu] section%s", "");
}

static int analysis_key(struct parse *p, const char *section, const char *key, const char *value)
{
	struct rubric *r = p->r;
	if (IS("shape"))
		return first_time(p, section, key) && parse_one_shape(p, key, value, &r->analysis_shape);
	NUMBER("points", 0, 1000, r->analysis_points);
	NUMBER("timeout_s", 1, 3600, r->analysis_timeout_s);
	for (int i = 0; i < ANALYSIS_CHECKS; i++) {
		const struct analysis_check_info *c = &analysis_checks[i];
		NUMBER(c->rubric_key, c->lowest, c->highest, r->analysis_limit[i]);
	}
	return rubric_error(p, key, "unknown key in [analysis]%s", "");
}

static int integrity_key(struct parse *p, const char *section, const char *key, const char *value)
{
	(void)section;
	struct rubric *r = p->r;
	if (IS("forbid"))
		return parse_words(p, key, value, r->forbid, &r->n_forbid, RUBRIC_MAX_SYMBOLS);
	if (IS("allow"))
		return parse_words(p, key, value, r->allow, &r->n_allow, RUBRIC_MAX_SYMBOLS);
	return rubric_error(p, key, "unknown key in [integrity]%s", "");
}

static int limits_key(struct parse *p, const char *section, const char *key, const char *value)
{
	struct rubric *r = p->r;
	double kb;
	NUMBER("build_timeout_s", 1, 3600, r->build_timeout_s);
	NUMBER("cpu_time_s", 1, 36000, r->cpu_time_s);
	NUMBER("memory_mb", 64, 1 << 20, r->memory_mb);
	NUMBER("disk_mb", 1, 1 << 20, r->disk_mb);
	if (IS("output_limit_kb")) {
		if (!first_time(p, section, key) || !parse_number(p, key, value, 1, 1 << 20, &kb))
			return 0;
		r->output_limit_bytes = (size_t)(kb * 1024);
		return 1;
	}
	return rubric_error(p, key, "unknown key in [limits]%s", "");
}

static int calibrate_key(struct parse *p, const char *section, const char *key, const char *value)
{
	struct rubric *r = p->r;
	if (IS("zero"))
		return parse_words(p, key, value, r->calib_zero, &r->n_calib_zero, RUBRIC_MAX_FIXTURES);
	if (IS("partial"))
		return parse_words(p, key, value, r->calib_partial, &r->n_calib_partial,
				   RUBRIC_MAX_FIXTURES);
	if (IS("full"))
		return parse_words(p, key, value, r->calib_full, &r->n_calib_full, RUBRIC_MAX_FIXTURES);
	NUMBER("margin", 1, 10, r->calib_margin);
	return rubric_error(p, key, "unknown key in [calibrate]%s", "");
}

/* [gpu "NAME"]: a new section each time; returns its index or -1. */
static int open_gpu_section(struct parse *p, const char *section)
{
	const char *q = section + 3;
	while (*q == ' ')
		q++;
	size_t len = strlen(q);
	if (len < 3 || q[0] != '"' || q[len - 1] != '"') {
		rubric_error(p, section, "write a GPU section as [gpu \"DEVICE NAME\"]%s", "");
		return -1;
	}
	for (int i = 0; i < p->r->n_gpus; i++)
		if (strncmp(p->r->gpus[i].device, q + 1, len - 2) == 0 &&
		    p->r->gpus[i].device[len - 2] == '\0')
			return i;
	if (p->r->n_gpus >= RUBRIC_MAX_BANDS) {
		rubric_error(p, section, "too many [gpu] sections%s", "");
		return -1;
	}
	struct gpu_band *b = &p->r->gpus[p->r->n_gpus];
	snprintf(b->device, sizeof(b->device), "%.*s", (int)(len - 2), q + 1);
	b->band.lower_pct = b->band.upper_pct = -1;
	return p->r->n_gpus++;
}

static int on_key(void *user, const char *section, const char *key, const char *value)
{
	struct parse *p = user;
	if (strcmp(section, "lab") == 0) return lab_key(p, section, key, value);
	if (strcmp(section, "correctness") == 0) return correctness_key(p, section, key, value);
	if (strcmp(section, "performance") == 0) return performance_key(p, section, key, value);
	if (strcmp(section, "analysis") == 0) return analysis_key(p, section, key, value);
	if (strcmp(section, "occupancy") == 0) return occupancy_key(p, section, key, value);
	if (strcmp(section, "integrity") == 0) return integrity_key(p, section, key, value);
	if (strcmp(section, "limits") == 0) return limits_key(p, section, key, value);
	if (strcmp(section, "calibrate") == 0) return calibrate_key(p, section, key, value);
	if (strncmp(section, "gpu", 3) == 0 && (section[3] == ' ' || section[3] == '"')) {
		p->gpu = open_gpu_section(p, section);
		if (p->gpu < 0)
			return 0;
		char id[48];
		snprintf(id, sizeof(id), "gpu%d", p->gpu);
		return gpu_key(p, id, key, value);
	}
	return rubric_error(p, key, "unknown section [%s]", section);
}

static void set_defaults(struct rubric *r)
{
	r->correctness_points = 50;
	r->test_timeout_s = 20;
	r->test_time_factor = 20;
	r->test_time_floor_s = 1;
	r->runs = 50;
	r->performance_points = 40;
	r->predicted = 1;
	r->default_band = (struct band){ 20, 75 };
	r->reference_band = (struct band){ 25, 80 };
	r->bench_timeout_s = 180;
	r->max_occupancy_pct = -1;
	r->occupancy_timeout_s = 30;
	r->analysis_points = 10;
	r->analysis_timeout_s = 60;
	for (int i = 0; i < ANALYSIS_CHECKS; i++)
		r->analysis_limit[i] = -1;
	r->build_timeout_s = 120;
	r->cpu_time_s = 600;
	r->output_limit_bytes = 64 * 1024;
	r->memory_mb = 8192;	/* the prediction maps the graded size: 2 GiB of lab 3 and more */
	r->disk_mb = 64;
	r->calib_margin = 1.2;
}

static int check_band(struct parse *p, const char *what, const char *key, int line,
		      const struct band *b)
{
	if (b->lower_pct < b->upper_pct)
		return 0;
	snprintf(p->err, sizeof(p->err), "%.300s:%d: key '%s': %s: lower_pct (%g) must be below upper_pct (%g)",
		 p->r->path, line, key, what, b->lower_pct, b->upper_pct);
	return -1;
}

/* What no single key can say: required keys and consistent bands. */
static int check_whole(struct parse *p)
{
	const struct rubric *r = p->r;
	if (r->n_shapes == 0) {
		snprintf(p->err, sizeof(p->err), "%.300s: key 'shapes': [correctness] needs it", r->path);
		return -1;
	}
	if (r->perf_shape.rank == 0) {
		snprintf(p->err, sizeof(p->err), "%.300s: key 'shape': [performance] needs it", r->path);
		return -1;
	}
	if (r->occupancy_points > 0 && r->n_occupancy_tables == 0) {
		snprintf(p->err, sizeof(p->err), "%.300s: key 'tables': [occupancy] gives points, so it "
			 "needs the stored tables to check against (sm_80 sm_90)", r->path);
		return -1;
	}
	if (check_band(p, "[performance]", "upper_pct", p->default_upper_line, &r->default_band) < 0 ||
	    check_band(p, "[performance]", "reference_upper_pct", p->reference_upper_line,
		       &r->reference_band) < 0)
		return -1;
	for (int i = 0; i < ANALYSIS_CHECKS; i++)
		if (r->performance_gate[i] && r->analysis_limit[i] < 0) {
			snprintf(p->err, sizeof(p->err), "%.300s:%d: key 'gate': performance is gated on "
				 "'%s', but [analysis] sets no %s, so that check never runs", r->path,
				 p->gate_line, rubric_gate_name(i), analysis_checks[i].rubric_key);
			return -1;
		}
	for (int i = 0; i < r->n_gpus; i++) {
		char what[160];
		snprintf(what, sizeof(what), "[gpu \"%s\"]", r->gpus[i].device);
		if (r->gpus[i].band.lower_pct < 0 || r->gpus[i].band.upper_pct < 0) {
			snprintf(p->err, sizeof(p->err), "%.300s: key 'lower_pct'/'upper_pct': %s needs both",
				 r->path, what);
			return -1;
		}
		if (check_band(p, what, "upper_pct", p->gpu_upper_line[i], &r->gpus[i].band) < 0)
			return -1;
	}
	return 0;
}

/* The rubric file, opened for reading: a regular file of a rubric's size,
 * not a folder, a device (/dev/zero never ends) or a pipe (that may never
 * write). NULL with err otherwise. */
static FILE *open_rubric(const char *path, char *err, size_t errlen)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) < 0) {
		snprintf(err, errlen, "%s: cannot read the rubric: %s", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	const char *why = S_ISDIR(st.st_mode) ? "is a folder; a rubric is a file (a lab's lab.ini)"
			  : !S_ISREG(st.st_mode) ? "is not a regular file (a device or a pipe); a rubric "
						    "is a file (a lab's lab.ini)"
			  : st.st_size > RUBRIC_MAX_BYTES ? "is too large for a rubric (over 1 MiB)" : NULL;
	FILE *f = why ? NULL : fdopen(fd, "r");
	if (!f) {
		snprintf(err, errlen, "%s %s", path, why ? why : strerror(errno));
		close(fd);
	}
	return f;
}

int rubric_load(const char *path, int rank, struct rubric *r, char *err, size_t errlen)
{
	memset(r, 0, sizeof(*r));
	snprintf(r->path, sizeof(r->path), "%s", path);
	set_defaults(r);
	struct parse p = { .r = r, .rank = rank, .gpu = -1 };
	if (!(p.file = open_rubric(path, err, errlen)))
		return -1;
	int line = ini_parse_stream(count_lines, &p, on_key, &p);
	fclose(p.file);
	if (p.err[0]) {
		snprintf(err, errlen, "%s", p.err);
		return -1;
	}
	if (line != 0) {
		snprintf(err, errlen, "%s:%d: not a 'key = value' line or a [section]", path, line);
		return -1;
	}
	if (r->n_emu_shapes == 0) {
		memcpy(r->emu_shapes, r->shapes, sizeof(r->shapes));
		r->n_emu_shapes = r->n_shapes;
	}
	if (check_whole(&p) < 0) {
		snprintf(err, errlen, "%s", p.err);
		return -1;
	}
	return 0;
}

static void free_list(char **list, int n)
{
	for (int i = 0; i < n; i++)
		free(list[i]);
}

void rubric_free(struct rubric *r)
{
	free_list(r->forbid, r->n_forbid);
	free_list(r->allow, r->n_allow);
	free_list(r->calib_zero, r->n_calib_zero);
	free_list(r->calib_partial, r->n_calib_partial);
	free_list(r->calib_full, r->n_calib_full);
	free_list(r->occupancy_tables, r->n_occupancy_tables);
	r->n_forbid = r->n_allow = r->n_calib_zero = r->n_calib_partial = r->n_calib_full = 0;
	r->n_occupancy_tables = 0;
}

double rubric_max_score(const struct rubric *r)
{
	int checks = 0;
	for (int i = 0; i < ANALYSIS_CHECKS; i++)
		checks += r->analysis_limit[i] >= 0;
	return r->correctness_points + r->occupancy_points + r->performance_points +
	       (checks ? r->analysis_points : 0);
}

const struct gpu_band *rubric_gpu_band(const struct rubric *r, const char *device)
{
	for (int i = 0; i < r->n_gpus; i++)
		if (strcmp(r->gpus[i].device, device) == 0)
			return &r->gpus[i];
	return NULL;
}
