/* A GPU model's parameters, read with libinih (see gpu.h). */
#include "gpu.h"

#include <dirent.h>
#include <errno.h>
#include <ini.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Every key of the file: where it goes, its range. Integers are stored as
 * doubles here and copied to their int fields after the parse. */
struct key {
	const char *section, *name;
	size_t offset;
	double lo, hi;
	int whole;
};

#define D(s, n, f, lo, hi) { s, n, offsetof(struct gpu_model, f), lo, hi, 0 }
#define I(s, n, f, lo, hi) { s, n, offsetof(struct gpu_model, f), lo, hi, 1 }

static const struct key keys[] = {
	I("device", "sms", sms, 1, 4096),
	I("device", "max_warps_per_sm", max_warps_per_sm, 1, 256),
	I("device", "max_blocks_per_sm", max_blocks_per_sm, 1, 256),
	D("device", "shared_per_sm", shared_per_sm, 1024, 1 << 24),
	D("device", "shared_reserved_per_block", shared_reserved_per_block, 0, 65536),
	D("device", "shared_alloc_unit", shared_alloc_unit, 1, 65536),
	D("device", "regs_per_sm", regs_per_sm, 1024, 1 << 22),
	D("device", "reg_alloc_unit", reg_alloc_unit, 1, 4096),
	D("device", "regs_per_thread", regs_per_thread, 1, 255),
	D("memory", "copy_gbps", copy_gbps, 1, 1e6),
	D("memory", "stream_efficiency", stream_efficiency, 0.05, 1),
	D("memory", "read_weight", read_weight, 0.1, 1.9),
	D("memory", "latency_ns", latency_ns, 1, 1e5),
	D("memory", "issue_ns", issue_ns, 0, 1e4),
	D("memory", "store_sectors_per_ns", store_sectors_per_ns, 0.01, 1e6),
	D("memory", "store_exponent", store_exponent, 1, 4),
	D("memory", "load_lines_per_ns", load_lines_per_ns, 0.01, 1e6),
	D("memory", "store_requests_per_ns_8", store_requests_per_ns_8, 0.01, 1e6),
	D("memory", "store_requests_per_ns_16", store_requests_per_ns_16, 0.01, 1e6),
	D("memory", "store_requests_per_ns_32", store_requests_per_ns_32, 0.01, 1e6),
	D("memory", "short_run_ns", short_run_ns, 0, 1e3),
	D("memory", "short_run_latency_ns", short_run_latency_ns, 0, 1e5),
	D("memory", "short_run_barrier_ns", short_run_barrier_ns, 0, 1e5),
	D("shared", "wavefronts_per_ns", shared_wavefronts_per_ns, 0.001, 1e3),
	D("sync", "interval_ns", interval_ns, 0, 1e6),
	D("sync", "interval_ns_per_warp", interval_ns_per_warp, 0, 1e5),
	D("sync", "barrier_latency_ns", barrier_latency_ns, 1, 1e5),
	D("sync", "slowest_load_ns_per_warp", slowest_load_ns_per_warp, 0, 1e5),
	D("launch", "launch_us", launch_us, 0, 1e4),
	D("launch", "blocks_per_ns", blocks_per_ns, 0.001, 1e4),
	D("combine", "overlap", overlap, 1, 64),
};
#define N_KEYS (sizeof keys / sizeof keys[0])

struct parse {
	struct gpu_model *g;
	const char *path;
	FILE *file;
	int line;
	double value[N_KEYS];
	int seen[N_KEYS], name_seen;
	char err[512];
};

static char *count_lines(char *str, int num, void *stream)
{
	struct parse *p = stream;
	char *s = fgets(str, num, p->file);
	if (s)
		p->line++;
	return s;
}

static int fail(struct parse *p, const char *key, const char *what)
{
	if (!p->err[0])
		snprintf(p->err, sizeof p->err, "%.200s:%d: key '%.40s': %.200s", p->path, p->line, key, what);
	return 0;
}

static int on_key(void *user, const char *section, const char *name, const char *value)
{
	struct parse *p = user;
	if (strcmp(section, "gpu") == 0 && strcmp(name, "name") == 0) {
		if (p->name_seen++)
			return fail(p, name, "given twice");
		if (!*value || strlen(value) >= sizeof p->g->name)
			return fail(p, name, "empty or too long");
		snprintf(p->g->name, sizeof p->g->name, "%s", value);
		return 1;
	}
	for (size_t i = 0; i < N_KEYS; i++) {
		if (strcmp(section, keys[i].section) != 0 || strcmp(name, keys[i].name) != 0)
			continue;
		char *end;
		errno = 0;
		double v = strtod(value, &end);
		if (errno || end == value || *end || !isfinite(v))
			return fail(p, name, "expected a number");
		if (v < keys[i].lo || v > keys[i].hi || (keys[i].whole && v != floor(v)))
			return fail(p, name, keys[i].whole ? "out of range, or not a whole number" : "out of range");
		if (p->seen[i]++)
			return fail(p, name, "given twice");
		p->value[i] = v;
		return 1;
	}
	char what[128];
	snprintf(what, sizeof what, "unknown key in section [%.40s]", section);
	return fail(p, name, what);
}

int gpu_model_load(const char *path, struct gpu_model *g, char *err, size_t errlen)
{
	struct parse p = { .g = g, .path = path };
	memset(g, 0, sizeof *g);
	p.file = fopen(path, "r");
	if (!p.file) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	int line = ini_parse_stream(count_lines, &p, on_key, &p);
	fclose(p.file);
	if (!p.err[0] && line > 0)
		snprintf(p.err, sizeof p.err, "%.200s:%d: not INI syntax", path, line);
	if (!p.err[0] && !p.name_seen)
		snprintf(p.err, sizeof p.err, "%.200s: no [gpu] name", path);
	for (size_t i = 0; i < N_KEYS && !p.err[0]; i++)
		if (!p.seen[i])
			snprintf(p.err, sizeof p.err, "%.200s: [%s] %s is missing", path, keys[i].section,
				 keys[i].name);
	if (p.err[0]) {
		snprintf(err, errlen, "%s", p.err);
		return -1;
	}
	for (size_t i = 0; i < N_KEYS; i++) {
		char *field = (char *)g + keys[i].offset;
		if (keys[i].whole)
			*(int *)field = (int)p.value[i];
		else
			*(double *)field = p.value[i];
	}
	return 0;
}

int gpu_model_find(const char *dir, const char *name, struct gpu_model *g, char *err, size_t errlen)
{
	DIR *d = opendir(dir);
	char known[512] = "";
	size_t used = 0;
	if (!d) {
		snprintf(err, errlen, "%s: %s", dir, strerror(errno));
		return -1;
	}
	struct dirent *e;
	int found = -1;
	while (found < 0 && (e = readdir(d))) {
		size_t len = strlen(e->d_name);
		if (len < 5 || strcmp(e->d_name + len - 4, ".ini") != 0)
			continue;
		char path[1024];
		snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
		struct gpu_model m;
		if (gpu_model_load(path, &m, err, errlen) < 0) {
			closedir(d);
			return -1;
		}
		if (strcmp(m.name, name) == 0) {
			*g = m;
			found = 0;
		} else if (used < sizeof known) {
			used += (size_t)snprintf(known + used, sizeof known - used, "%s\"%s\"", used ? ", " : "",
						 m.name);
		}
	}
	closedir(d);
	if (found < 0)
		snprintf(err, errlen, "no performance model for \"%s\" in %s (there are: %s)", name, dir,
			 known[0] ? known : "none");
	return found;
}
