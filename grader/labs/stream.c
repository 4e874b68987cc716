/* Lab 4: a memory-bound kernel, out[i] = 3 * in[i] + 1, timed at low occupancy. */
#include "lab.h"

#include <stdio.h>

#include "parallel.h"

struct stream_job {
	const uint32_t *in;
	uint32_t *out;
};

static void stream_piece(size_t begin, size_t end, void *arg)
{
	const struct stream_job *job = arg;
	for (size_t i = begin; i < end; i++)
		job->out[i] = 3u * job->in[i] + 1u;
}

/* On every core: the grader's own correctness checks compare a gigabyte
 * against it. */
static void stream_ref(const uint32_t *in, uint32_t *out, const struct shape *s)
{
	struct stream_job job = { in, out };
	parallel_for(s->dim[0], (size_t)1 << 20, stream_piece, &job);
}

static void stream_describe(const struct shape *s, size_t i, char *buf, size_t len)
{
	(void)s;
	snprintf(buf, len, "index %zu", i);
}

const struct lab lab4_occupancy = {
	.id = "lab4",
	.dir = "lab4-occupancy",
	.file = "occupancy.cu",
	.entry = "stream_scale",
	.title = "Occupancy and latency hiding",
	.asks = "occupancy(): blocks, warps and limits per SM; stream_scale(): copy speed at low occupancy",
	.rank = 1,
	.elem = ELEM_U32,
	.in_count = lab_vector_count,
	.out_count = lab_vector_count,
	.min_bytes = lab_vector_bytes,
	.input = RNG_U32,
	.reference = stream_ref,
	.describe_index = stream_describe,
	.slow_hint = "At low occupancy few warps are resident, so each must keep many loads in "
		     "flight: load several independent elements per thread (coalesced: a warp's "
		     "loads on consecutive words) before using any of them, then store them all.",
	.has_calculator = 1,
	.elementwise = 1,
};
