/*
 * Warp collectives: shuffles, votes, reductions, __syncwarp.
 *
 * A lane that calls one parks with its value (in every mode, traced or
 * not); when the whole warp has parked, the scheduler hands the lanes
 * parked at the lowest call site to warp_issue(), which computes every
 * lane's result at once, as the hardware's one instruction does.
 */
#include <string.h>

#include "cuemu.h"
#include "internal.h"

/* The codes of cuemu_device.h. */
enum { SHFL_IDX, SHFL_UP, SHFL_DOWN, SHFL_XOR, RED_ADD, RED_MIN, RED_MAX, RED_AND, RED_OR,
       RED_XOR, MATCH_ANY };
#define RED_SIGNED 0x100

static uint64_t park_collective(int op, unsigned mask, uint64_t val, int size, int arg, int width,
				uintptr_t site)
{
	struct thr *t = rt.cur;
	if (!rt.in_kernel || !t)
		return val;	/* host code: a warp of one */
	t->op = op;
	t->mask = mask;
	t->val = val;
	t->vsize = size;
	t->arg = arg;
	t->width = width;
	t->space = SP_WARP;
	t->site = site;
	sched_park(t);
	return t->out;
}

void cuemu_warp_op(int op, unsigned int mask, const void *val, void *out, int size, int arg, int width,
		   void *site)
{
	uint64_t v = 0;
	memcpy(&v, val, (size_t)size);
	v = park_collective(op, mask, v, size, arg, width, (uintptr_t)site);
	memcpy(out, &v, (size_t)size);
}

void cuemu_syncwarp(unsigned int mask)
{
	park_collective(W_SYNCWARP, mask, 0, 4, 0, 32, RA());
}

unsigned int cuemu_activemask(void)
{
	return (unsigned)park_collective(W_ACTIVEMASK, 0xffffffffu, 0, 4, 0, 32, RA());
}

unsigned int cuemu_ballot_sync(unsigned int mask, int predicate)
{
	return (unsigned)park_collective(W_BALLOT, mask, predicate != 0, 4, 0, 32, RA());
}

int cuemu_any_sync(unsigned int mask, int predicate)
{
	return (int)park_collective(W_ANY, mask, predicate != 0, 4, 0, 32, RA());
}

int cuemu_all_sync(unsigned int mask, int predicate)
{
	return (int)park_collective(W_ALL, mask, predicate != 0, 4, 0, 32, RA());
}

/* The lane whose value lane reads, for a shuffle of segment width w. */
static int shfl_source(int op, int lane, int arg, int w)
{
	int base = lane / w * w, src;
	switch (op) {
	case SHFL_IDX:
		return base + (arg & (w - 1));
	case SHFL_UP:
		src = lane - arg;
		return src < base ? lane : src;
	case SHFL_DOWN:
		src = lane + arg;
		return src >= base + w ? lane : src;
	default:
		src = lane ^ arg;
		return src < base || src >= base + w ? lane : src;
	}
}

static int64_t sext(uint64_t v, int size)
{
	int shift = 64 - 8 * size;
	return (int64_t)(v << shift) >> shift;
}

static uint64_t reduce(int op, struct thr **lanes, int n, unsigned mask, int lo)
{
	int sgn = op & RED_SIGNED, size = lanes[0]->vsize;
	uint64_t acc = 0;
	int first = 1;
	op &= ~RED_SIGNED;
	for (int i = 0; i < n; i++) {
		uint64_t v = lanes[i]->val;
		if (!(mask >> (lanes[i]->id - lo) & 1))
			continue;
		if (first) {
			acc = v;
			first = 0;
			continue;
		}
		switch (op) {
		case RED_ADD: acc += v; break;
		case RED_AND: acc &= v; break;
		case RED_OR: acc |= v; break;
		case RED_XOR: acc ^= v; break;
		case RED_MIN:
			if (sgn ? sext(v, size) < sext(acc, size) : v < acc)
				acc = v;
			break;
		default:
			if (sgn ? sext(v, size) > sext(acc, size) : v > acc)
				acc = v;
			break;
		}
	}
	return acc;
}

/* A lane named in the mask has returned: on a GPU the instruction waits
 * for it forever, or reads garbage. */
static void check_mask(struct thr **lanes, unsigned mask, int lo, int hi)
{
	for (int i = lo; i < hi; i++) {
		struct thr *x = &rt.threads[i];
		if (!(mask >> (i - lo) & 1) || x->state != T_EXITED)
			continue;
		char where[256];
		fault_report(cudaErrorLaunchFailure,
			     "kernel %s, block (%u,%u,%u): the warp intrinsic at %s names lane %d "
			     "(thread (%u,%u,%u)) in its mask 0x%08x, but that thread has already "
			     "returned: every lane of the mask must reach the call",
			     rt.launch->name, cuemu_blockIdx.x, cuemu_blockIdx.y, cuemu_blockIdx.z,
			     site_text(lanes[0]->site, where, sizeof where), i - lo, x->tid.x, x->tid.y,
			     x->tid.z, mask);
		return;
	}
}

/* The lanes parked at one call site, served together. Each lane's own mask
 * decides what it sees: two tiles of one warp (cooperative groups'
 * tiled_partition<16>) call the same site with different masks. */
void warp_issue(struct thr **lanes, int n, int lo, int hi)
{
	int op = lanes[0]->op;
	unsigned named = 0, present = 0, votes = 0;
	for (int i = 0; i < n; i++) {
		present |= 1u << (lanes[i]->id - lo);
		named |= lanes[i]->mask;
		if (lanes[i]->val)
			votes |= 1u << (lanes[i]->id - lo);
	}
	if (op != W_ACTIVEMASK && !rt.launch->divergence_seen)
		check_mask(lanes, named, lo, hi);
	/* Shuffles and reductions move or combine lanes' values: work. */
	if (rt.tracing_block && (op & ~RED_SIGNED) <= RED_XOR)
		work_collective(n);
	for (int i = 0; i < n; i++) {
		struct thr *t = lanes[i];
		int lane = t->id - lo, w = t->width;
		unsigned mask = t->mask;
		if (w <= 0 || w > WARP || (w & (w - 1)))
			w = WARP;
		switch (op & ~RED_SIGNED) {
		case SHFL_IDX: case SHFL_UP: case SHFL_DOWN: case SHFL_XOR: {
			int src = shfl_source(op, lane, t->arg, w);
			t->out = lo + src < hi ? rt.threads[lo + src].val : t->val;
			break;
		}
		case RED_ADD: case RED_MIN: case RED_MAX: case RED_AND: case RED_OR: case RED_XOR:
			t->out = reduce(op, lanes, n, mask, lo);
			break;
		case MATCH_ANY: {
			unsigned m = 0;
			for (int j = 0; j < n; j++)
				if (lanes[j]->val == t->val && (mask >> (lanes[j]->id - lo) & 1))
					m |= 1u << (lanes[j]->id - lo);
			t->out = m;
			break;
		}
		case W_BALLOT: t->out = votes & mask; break;
		case W_ANY: t->out = (votes & mask) != 0; break;
		case W_ALL: t->out = (votes & mask) == (present & mask); break;
		case W_ACTIVEMASK: t->out = present; break;
		default: t->out = 0; break;
		}
	}
}
