/* Labs 1 and 2: inclusive and exclusive scans of 32-bit words. */
#include "lab.h"

#include <stdio.h>

#include "../../common/reference.h"

static void scan_inclusive_ref(const uint32_t *in, uint32_t *out, const struct shape *s)
{
	ref_scan_inclusive(in, out, s->dim[0]);
}

static void scan_exclusive_ref(const uint32_t *in, uint32_t *out, const struct shape *s)
{
	ref_scan_exclusive(in, out, s->dim[0]);
}

/* Blocks of 1024 are what the skeletons use, so say which block it is in. */
static void scan_describe(const struct shape *s, size_t i, char *buf, size_t len)
{
	(void)s;
	snprintf(buf, len, "index %zu (block %zu of 1024 elements, position %zu)", i, i / 1024,
		 i % 1024);
}

#define SCAN_SLOW_HINT \
	"The usual causes: a pass over global memory for every step (log2 n passes instead of " \
	"about 3), or many small launches. Scan each block in shared memory, then add the scanned " \
	"block sums."

const struct lab lab1_naive_scan = {
	.id = "lab1",
	.dir = "lab1-naive-scan",
	.file = "scan.cu",
	.entry = "scan_inclusive",
	.title = "Hillis-Steele inclusive scan",
	.asks = "scan_inclusive(): out[i] = in[0] + ... + in[i], block scans in shared memory",
	.rank = 1,
	.elem = ELEM_U32,
	.in_count = lab_vector_count,
	.out_count = lab_vector_count,
	.min_bytes = lab_vector_bytes,
	.fill_input = lab_vector_fill,
	.reference = scan_inclusive_ref,
	.describe_index = scan_describe,
	.slow_hint = SCAN_SLOW_HINT,
	.scan_chart = 1,
};

const struct lab lab2_blelloch_scan = {
	.id = "lab2",
	.dir = "lab2-blelloch-scan",
	.file = "scan.cu",
	.entry = "scan_exclusive",
	.title = "Blelloch work-efficient exclusive scan",
	.asks = "scan_exclusive(): out[i] = in[0] + ... + in[i-1], up-sweep and down-sweep",
	.rank = 1,
	.elem = ELEM_U32,
	.in_count = lab_vector_count,
	.out_count = lab_vector_count,
	.min_bytes = lab_vector_bytes,
	.fill_input = lab_vector_fill,
	.reference = scan_exclusive_ref,
	.describe_index = scan_describe,
	.slow_hint = SCAN_SLOW_HINT,
	.scan_chart = 1,
};
