/* The device probe: a harness with no student code. Only `harness device`
 * runs in it, so the entry point is never called. */
#include <stdlib.h>

#include "../labs/lab.h"

void lab_entry_call(const void *d_in, void *d_out, const struct shape *s)
{
	(void)d_in;
	(void)d_out;
	(void)s;
	abort();
}

void (*const lab_occupancy_call)(const struct occ_device *, const struct occ_kernel *,
				 struct occ_result *) = NULL;
void (*const lab_sweep_call)(const void *, void *, const struct shape *, size_t) = NULL;
