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

/* The handouts' figures for a 1024-element block. Hillis-Steele: 1024
 * threads, offset 1, 2, ..., 512; threads with tid >= offset add. Blelloch:
 * 512 threads; the up-sweep halves the adders from 512 to 2, the root step
 * is one thread taking the total and clearing it, the down-sweep doubles
 * them from 2 back to 512. A warp is active when any of its threads is. */
static const int hs_threads[] = {1023, 1022, 1020, 1016, 1008, 992, 960, 896, 768, 512};
static const int hs_warps[] = {32, 32, 32, 32, 32, 31, 30, 28, 24, 16};
static const int bl_threads[] = {512, 256, 128, 64, 32, 16, 8, 4, 2, 1,
				 2, 4, 8, 16, 32, 64, 128, 256, 512};
static const int bl_warps[] = {16, 8, 4, 2, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 4, 8, 16};

static const struct scan_steps hillis_steele = {
	"Hillis-Steele", "lab 1, 1024 threads", 1024, hs_threads, hs_warps,
	(int)(sizeof(hs_threads) / sizeof(hs_threads[0])), 0,
};

static const struct scan_steps blelloch = {
	"Blelloch", "lab 2, 512 threads", 512, bl_threads, bl_warps,
	(int)(sizeof(bl_threads) / sizeof(bl_threads[0])), 10,
};

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
	.input = RNG_U32,
	.reference = scan_inclusive_ref,
	.describe_index = scan_describe,
	.slow_hint = SCAN_SLOW_HINT,
	.handout_steps = &hillis_steele,
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
	.input = RNG_U32,
	.reference = scan_exclusive_ref,
	.describe_index = scan_describe,
	.slow_hint = SCAN_SLOW_HINT,
	.handout_steps = &blelloch,
};
