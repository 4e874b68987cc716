/* Finding the GPU through the device probe (see device.h). */
#include "steps/device.h"

#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "channel.h"
#include "sys/kit_paths.h"
#include "sys/sandbox.h"

static void read_device_json(const unsigned char *payload, size_t len, struct device_info *d)
{
	json_t *j = json_loadb((const char *)payload, len, 0, NULL);
	if (!j)
		return;
	if (json_is_true(json_object_get(j, "present"))) {
		d->present = 1;
		snprintf(d->name, sizeof(d->name), "%s",
			 json_string_value(json_object_get(j, "name")) ?: "unknown GPU");
		d->major = (int)json_integer_value(json_object_get(j, "major"));
		d->minor = (int)json_integer_value(json_object_get(j, "minor"));
		d->sms = (int)json_integer_value(json_object_get(j, "sms"));
		d->l2_bytes = (long)json_integer_value(json_object_get(j, "l2_bytes"));
		d->memory_bytes = json_number_value(json_object_get(j, "memory_bytes"));
		d->peak_gbps = json_number_value(json_object_get(j, "peak_gbps"));
	} else {
		snprintf(d->why_absent, sizeof(d->why_absent), "the CUDA runtime sees no device");
	}
	json_decref(j);
}

int device_probe(struct device_info *d)
{
	memset(d, 0, sizeof(*d));
	char probe[1024];
	kit_path(probe, sizeof(probe), "build/harness/device-probe");
	if (!file_exists(probe)) {
		snprintf(d->why_absent, sizeof(d->why_absent),
			 "the GPU backend was not built (no CUDA toolkit: nvcc not found)");
		return 0;
	}
	char *argv[] = { probe, "device", NULL };
	struct sandbox_limits lim = { .wall_s = 60, .output_cap = 4096, .with_channel = 1 };
	struct child_result res;
	char err[256];
	if (sandbox_run(argv, &lim, &res, err, sizeof(err)) < 0) {
		snprintf(d->why_absent, sizeof(d->why_absent), "device probe: %.200s", err);
		return 0;
	}
	struct channel_reader r = { res.channel, res.channel_len, 0 };
	uint32_t type;
	const unsigned char *payload;
	uint64_t len;
	snprintf(d->why_absent, sizeof(d->why_absent), "the device probe failed (no driver?)");
	while (channel_next(&r, &type, &payload, &len) == 1)
		if (type == MSG_DEVICE)
			read_device_json(payload, len, d);
	child_result_free(&res);
	return 0;
}
