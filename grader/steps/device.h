/* The GPU this machine has, as the CUDA runtime reports it, and the
 * backend a grade uses on it. */
#ifndef GRADER_DEVICE_H
#define GRADER_DEVICE_H

#include <stddef.h>

#include "steps/grade.h"

struct device_info {
	int present;
	char name[128];
	char uuid[48];		/* "GPU-8e3c...", as nvidia-smi writes it; "" where not given */
	int major, minor;	/* compute capability */
	int sms;
	long l2_bytes;
	double memory_bytes;
	double peak_gbps;	/* from the memory clock and bus width */
	char why_absent[256];	/* when !present: no toolkit, no driver, no device */
};

/* Runs build/harness/device-probe in a child (a broken driver can crash or
 * hang it), seeing gpu as its CUDA_VISIBLE_DEVICES (NULL: the grader's
 * own), and fills d. Returns 0; d->present says whether there is a GPU. */
int device_probe(struct device_info *d, const char *gpu);

/* Resolves auto to cuda or emu. Returns 0, or -1 with why (cuda asked, none here). */
int backend_resolve(enum backend asked, const struct device_info *dev, enum backend *out,
		    char *why, size_t len);

#endif
