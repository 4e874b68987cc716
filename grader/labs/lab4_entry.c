/* Lab 4's harness calls the student's stream_scale(), stream_scale_shared()
 * and occupancy(). */
#include <stddef.h>

#include "../../common/occupancy.h"
#include "lab.h"

void lab_entry_call(const void *d_in, void *d_out, const struct shape *s)
{
	stream_scale(d_in, d_out, s->dim[0]);
}

static void sweep_call(const void *d_in, void *d_out, const struct shape *s, size_t extra_shared)
{
	stream_scale_shared(d_in, d_out, s->dim[0], extra_shared);
}

void (*const lab_occupancy_call)(const struct occ_device *, const struct occ_kernel *,
				 struct occ_result *) = occupancy;
void (*const lab_sweep_call)(const void *, void *, const struct shape *, size_t) = sweep_call;
