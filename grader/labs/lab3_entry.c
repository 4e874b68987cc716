/* Lab 3's harness calls the student's transpose(). */
#include <stddef.h>

#include "lab.h"

void transpose(const float *d_in, float *d_out, int rows, int cols);

void lab_entry_call(const void *d_in, void *d_out, const struct shape *s)
{
	transpose(d_in, d_out, (int)s->dim[0], (int)s->dim[1]);
}

void (*const lab_occupancy_call)(const struct occ_device *, const struct occ_kernel *,
				 struct occ_result *) = NULL;
void (*const lab_sweep_call)(const void *, void *, const struct shape *, size_t) = NULL;
