/* Finding the GPU through the device probe (see device.h). */
#include "steps/device.h"

#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "steps/harness_door.h"
#include "sys/kit_paths.h"

static void read_device_json(const json_t *j, struct device_info *d)
{
	if (json_is_true(json_object_get(j, "present"))) {
		d->present = 1;
		snprintf(d->name, sizeof(d->name), "%s",
			 json_string_value(json_object_get(j, "name")) ?: "unknown GPU");
		snprintf(d->uuid, sizeof(d->uuid), "%s", json_string_value(json_object_get(j, "uuid")) ?: "");
		d->major = (int)json_integer_value(json_object_get(j, "major"));
		d->minor = (int)json_integer_value(json_object_get(j, "minor"));
		d->sms = (int)json_integer_value(json_object_get(j, "sms"));
		d->l2_bytes = (long)json_integer_value(json_object_get(j, "l2_bytes"));
		d->memory_bytes = json_number_value(json_object_get(j, "memory_bytes"));
		d->peak_gbps = json_number_value(json_object_get(j, "peak_gbps"));
	} else {
		snprintf(d->why_absent, sizeof(d->why_absent), "the CUDA runtime sees no device");
	}
}

int device_probe(struct device_info *d, const char *gpu)
{
	memset(d, 0, sizeof(*d));
	char probe[1024];
	kit_path(probe, sizeof(probe), "build/harness/device-probe");
	if (!file_exists(probe)) {
		snprintf(d->why_absent, sizeof(d->why_absent),
			 "the GPU backend was not built (no CUDA toolkit: nvcc not found)");
		return 0;
	}
	struct harness_report rep;
	char err[256];
	if (harness_device(probe, gpu, &rep, err, sizeof(err)) < 0) {
		snprintf(d->why_absent, sizeof(d->why_absent), "device probe: %.200s", err);
		return 0;
	}
	snprintf(d->why_absent, sizeof(d->why_absent), "the device probe failed (no driver?)");
	if (rep.device)
		read_device_json(rep.device, d);
	harness_report_free(&rep);
	return 0;
}

int backend_resolve(enum backend asked, const struct device_info *dev, enum backend *out,
		    char *why, size_t len)
{
	if (asked == BACKEND_EMU || (asked == BACKEND_AUTO && !dev->present)) {
		*out = BACKEND_EMU;
		return 0;
	}
	if (!dev->present) {
		snprintf(why, len, "--backend cuda: no CUDA device here (%s); --backend emu runs the "
			 "emulator instead", dev->why_absent);
		return -1;
	}
	*out = BACKEND_CUDA;
	return 0;
}
