/* The model's launches from the emulator's metrics (see model_input.h). */
#include "model_input.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A number >= 0 of obj, or -1 when it is missing or not one. */
static double number(const json_t *obj, const char *key)
{
	const json_t *v = json_object_get(obj, key);
	double d = json_is_number(v) ? json_number_value(v) : -1;
	return isfinite(d) && d >= 0 && d < 1e18 ? d : -1;
}

static double dims(const json_t *launch, const char *key)
{
	const json_t *a = json_object_get(launch, key);
	double p = 1;
	if (!json_is_array(a) || json_array_size(a) != 3)
		return -1;
	for (size_t i = 0; i < 3; i++) {
		const json_t *v = json_array_get(a, i);
		if (!json_is_integer(v) || json_integer_value(v) < 1)
			return -1;
		p *= (double)json_integer_value(v);
	}
	return p;
}

static int fill(const json_t *launch, struct model_launch *l, char *err, size_t errlen)
{
	static const struct {
		const char *key;
		size_t offset;
	} fields[] = {
		{ "load_requests", offsetof(struct model_launch, load_requests) },
		{ "load_sectors", offsetof(struct model_launch, load_sectors) },
		{ "load_lines", offsetof(struct model_launch, load_lines) },
		{ "load_block_sectors", offsetof(struct model_launch, load_block_sectors) },
		{ "store_requests", offsetof(struct model_launch, store_requests) },
		{ "store_sectors", offsetof(struct model_launch, store_sectors) },
		{ "store_lines", offsetof(struct model_launch, store_lines) },
		{ "store_block_sectors", offsetof(struct model_launch, store_block_sectors) },
		{ "store_bytes", offsetof(struct model_launch, store_bytes) },
		{ "shared_requests", offsetof(struct model_launch, shared_requests) },
		{ "shared_wavefronts", offsetof(struct model_launch, shared_wavefronts) },
		{ "load_runs", offsetof(struct model_launch, load_runs) },
		{ "intervals", offsetof(struct model_launch, intervals) },
	};
	const json_t *m = json_object_get(launch, "model");
	const char *name = json_string_value(json_object_get(launch, "kernel"));
	memset(l, 0, sizeof *l);
	snprintf(l->kernel, sizeof l->kernel, "%s", name ? name : "?");
	l->grid_blocks = dims(launch, "grid");
	l->block_threads = dims(launch, "block");
	l->sampled_blocks = number(launch, "traced_blocks");
	double dynamic = number(launch, "dynamic_shared_bytes"), stat = number(m, "static_shared_bytes");
	if (!json_is_object(m) || l->grid_blocks < 0 || l->block_threads < 0 || dynamic < 0 || stat < 0) {
		snprintf(err, errlen, "launch of %.60s: no grid, block, shared memory or model figures", l->kernel);
		return -1;
	}
	l->shared_bytes = dynamic + stat;
	/* Optional: the whole grid's work beside the sample's (model_scale.h). */
	double traced[3] = { number(m, "load_bytes"), number(m, "store_bytes"), number(m, "atomic_bytes") };
	double grid[3] = { number(m, "grid_load_bytes"), number(m, "grid_store_bytes"),
			   number(m, "grid_atomic_bytes") };
	if (traced[0] >= 0 && traced[1] >= 0 && traced[2] >= 0 && grid[0] >= 0 && grid[1] >= 0 && grid[2] >= 0) {
		l->traced_bytes = traced[0] + traced[1] + traced[2];
		l->grid_bytes = grid[0] + grid[1] + grid[2];
	}
	for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++) {
		double v = number(m, fields[i].key);
		if (v < 0) {
			snprintf(err, errlen, "launch of %.60s: model figure '%s' missing or not a number",
				 l->kernel, fields[i].key);
			return -1;
		}
		*(double *)((char *)l + fields[i].offset) = v;
	}
	return 0;
}

int model_launches_from_metrics(const json_t *metrics, struct model_launch **out, char *err,
				size_t errlen)
{
	const json_t *launches = json_object_get(metrics, "launches");
	*out = NULL;
	if (!json_is_array(launches)) {
		snprintf(err, errlen, "the metrics have no launches");
		return -1;
	}
	size_t n = json_array_size(launches), m = 0;
	struct model_launch *l = calloc(n ? n : 1, sizeof *l);
	if (!l) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	for (size_t i = 0; i < n; i++) {
		const json_t *launch = json_array_get(launches, i);
		if (number(launch, "traced_blocks") == 0)
			continue;	/* no block ran traced: nothing was measured */
		if (fill(launch, &l[m], err, errlen) < 0) {
			free(l);
			return -1;
		}
		m++;
	}
	*out = l;
	return (int)m;
}
