/* Lab 2's harness calls the student's scan_exclusive(). */
#include <stddef.h>

#include "lab.h"

void scan_exclusive(const unsigned int *d_in, unsigned int *d_out, size_t n);

void lab_entry_call(const void *d_in, void *d_out, const struct shape *s)
{
	scan_exclusive(d_in, d_out, s->dim[0]);
}

void (*const lab_occupancy_call)(const struct occ_device *, const struct occ_kernel *,
				 struct occ_result *) = NULL;
void (*const lab_sweep_call)(const void *, void *, const struct shape *, size_t) = NULL;
