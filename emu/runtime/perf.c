/*
 * The figures of a launch that the grader's performance model needs
 * (grader/model/, docs/model.md), summed over the launch's traced blocks:
 *
 *   global requests, sectors, 128-byte lines and bytes asked for, for loads,
 *     stores, atomics;
 *   the sectors each block touches that it did not touch a moment before
 *     (a block's warps share the L2, so what they touch twice reaches DRAM
 *     once), summed over the blocks;
 *   shared-memory requests and wavefronts;
 *   load runs: a warp's global loads that follow each other with no global
 *     store, atomic or barrier between them can all be in flight at once
 *     (a store may alias a later load, so a compiler cannot hoist that load
 *     above it); requests / runs is the loads a warp keeps in flight;
 *   barrier intervals, warps, and the span of static shared memory touched;
 *   and apart from the sample, the global bytes every block of the launch
 *   accessed, traced or not: the model's measure of how much work the
 *   whole grid did against its sampled blocks, which differ where a
 *   grid-stride loop gives some blocks one pass more than others.
 *
 * The sectors of one request arrive sorted (trace.c). A block is recognised
 * by rt.block_serial, which sched.c bumps for every traced block.
 */
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "sb.h"

/* What a block's warps touched recently: a direct-mapped table of sectors
 * (2 MiB of them) tagged with the block's serial, one for loads and one for
 * stores. A sector that misses it counts as DRAM traffic; one the block
 * touched a moment ago is served by the L2. Tagging by serial empties it for
 * each block without clearing it.
 *
 * The slot is a hash of the sector's offset from the device heap, the same
 * in every process (of the absolute address, it followed where mmap put the
 * heap: ASLR). And the last VICTIMS sectors of the block that another of its
 * sectors pushed out of their slot are kept aside: a sector the block
 * touched a few of its sectors ago is in the L2 of any size. Without them a
 * slot shared by two sectors a few accesses apart, one chance in 65536 per
 * sector in between, counted a sector twice: lab 2's add_block_sums, whose
 * 16 warps each load one word of the sums among the block's 128 sectors of
 * the output, counted 517 sectors in place of 516 in about one prediction
 * run in 300 (24.944% of copy in place of 24.949, 36.68 points in place of
 * 36.69), as the seed's traced blocks and the heap's address fell. Over
 * many sectors the table is what it was: the victims hold only the last few. */
#define CACHE_SLOTS (1u << 16)
#define VICTIMS 16

struct cache_slot {
	uintptr_t sector;
	uint32_t serial;
};

static struct cache_slot cache[2][CACHE_SLOTS];
static struct cache_slot victim[2][VICTIMS];	/* a ring, the newest at victim_next - 1 */
static unsigned victim_next[2];

struct perf_rec {
	uint64_t req[3], sectors[3], lines[3], bytes[3];	/* by akind: load, store, atomic */
	uint64_t block_sectors[2];		/* load, store (atomics count as stores) */
	uint64_t sh_req, sh_wf, ld_runs, intervals;
	uint64_t grid_bytes[3];			/* every block's, by akind */
	uintptr_t static_lo, static_hi;
	uint32_t serial;
	int in_block;
	uint8_t open[MAX_WARPS];		/* the warp's load run is open */
	uint64_t last[3][MAX_WARPS];		/* the sectors of the warp's last request, hashed */
};

struct perf_rec *perf_begin(void)
{
	return calloc(1, sizeof(struct perf_rec));
}

/* Counts sector x of a block's loads (k = 0) or stores (1) if it is new. */
static void cache_touch(struct perf_rec *p, int k, uintptr_t x)
{
	uint64_t key = (uint64_t)(x - (rt.heap_lo >> 5));
	struct cache_slot *c = &cache[k][(key * 0x9e3779b97f4a7c15ull) >> 48];
	if (c->sector == x && c->serial == p->serial)
		return;
	int kept = 0;
	for (int i = 0; i < VICTIMS && !kept; i++) {
		struct cache_slot *v = &victim[k][i];
		if (v->sector == x && v->serial == p->serial) {
			v->serial = 0;	/* back in its slot */
			kept = 1;
		}
	}
	if (c->serial == p->serial) {	/* one of the block's own sectors goes aside */
		victim[k][victim_next[k]] = *c;
		victim_next[k] = (victim_next[k] + 1) % VICTIMS;
	}
	c->sector = x;
	c->serial = p->serial;
	if (!kept)
		p->block_sectors[k]++;
}

static void block_check(struct perf_rec *p)
{
	if (p->in_block && p->serial == rt.block_serial)
		return;
	memset(p->open, 0, sizeof p->open);
	memset(p->last, 0, sizeof p->last);
	p->serial = rt.block_serial;
	p->in_block = 1;
}

void perf_global(struct perf_rec *p, int kind, int warp, const uintptr_t *sector, int n, uint64_t bytes)
{
	if (!p || kind > AK_ATOMIC)
		return;
	block_check(p);
	warp %= MAX_WARPS;
	p->bytes[kind] += bytes;
	/* The same sectors as the warp's last request of this kind, its lanes at
	 * most 16 bytes apart: the next part of one wide access (the compiler
	 * splits a float4 into four 4-byte accesses, each lane's 16 bytes one
	 * instruction on a GPU), not a new request. Lanes further apart are
	 * separate instructions on a GPU too (a loop over a thread's items). */
	uint64_t sig = (uint64_t)n + 1;
	for (int i = 0; i < n; i++)
		sig = (sig ^ sector[i]) * 0x100000001b3ull;
	if (sig == p->last[kind][warp] && bytes >= 8 * (uint64_t)n)
		return;
	p->last[kind][warp] = sig;
	uint64_t lines = 0;
	for (int i = 0; i < n; i++)
		lines += i == 0 || sector[i] >> 2 != sector[i - 1] >> 2;
	p->req[kind]++;
	p->sectors[kind] += (uint64_t)n;
	p->lines[kind] += lines;
	for (int i = 0; i < n; i++)
		cache_touch(p, kind == AK_LOAD ? 0 : 1, sector[i]);
	if (kind == AK_LOAD) {
		p->ld_runs += !p->open[warp];
		p->open[warp] = 1;
	} else {
		p->open[warp] = 0;
	}
}

/* wavefronts: what trace.c charges the request, less than none where it
 * completes a wide access that costs less than its pieces did. */
void perf_shared(struct perf_rec *p, int64_t wavefronts, uintptr_t lo, uintptr_t hi)
{
	if (!p)
		return;
	block_check(p);
	p->sh_req++;
	p->sh_wf += (uint64_t)wavefronts;
	/* Static shared memory (the arena and the section), not the dynamic buffer. */
	if (lo - rt.dyn_lo < DYN_SMEM_MAX)
		return;
	lo = shared_compact(lo);	/* the span the arrays make, red zones left out */
	hi = shared_compact(hi - 1) + 1;
	if (!p->static_hi || lo < p->static_lo)
		p->static_lo = lo;
	if (hi > p->static_hi)
		p->static_hi = hi;
}

void perf_interval_end(struct perf_rec *p)
{
	if (!p)
		return;
	block_check(p);
	p->intervals++;
	memset(p->open, 0, sizeof p->open);
	memset(p->last, 0, sizeof p->last);
}

void perf_grid_bytes(struct perf_rec *p, const uint64_t bytes[3])
{
	if (p)
		memcpy(p->grid_bytes, bytes, sizeof p->grid_bytes);
}

uint64_t perf_requests(const struct perf_rec *p)
{
	return p ? p->req[0] + p->req[1] + p->req[2] + p->sh_req : 0;
}

void perf_free(struct perf_rec *p)
{
	if (!p)
		return;
	free(p);
}

void perf_json(struct sb *s, struct perf_rec *p)
{
	static const char *const kind[3] = { "load", "store", "atomic" };
	if (!p) {
		sb_puts(s, "\"model\":null");
		return;
	}
	sb_puts(s, "\"model\":{");
	for (int k = 0; k < 3; k++)
		sb_printf(s, "\"%s_requests\":%llu,\"%s_sectors\":%llu,\"%s_lines\":%llu,\"%s_bytes\":%llu,",
			  kind[k], (unsigned long long)p->req[k], kind[k], (unsigned long long)p->sectors[k],
			  kind[k], (unsigned long long)p->lines[k], kind[k], (unsigned long long)p->bytes[k]);
	sb_printf(s, "\"load_block_sectors\":%llu,\"store_block_sectors\":%llu,",
		  (unsigned long long)p->block_sectors[0], (unsigned long long)p->block_sectors[1]);
	sb_printf(s, "\"shared_requests\":%llu,\"shared_wavefronts\":%llu,\"load_runs\":%llu,"
		  "\"intervals\":%llu,\"static_shared_bytes\":%llu,\"grid_load_bytes\":%llu,"
		  "\"grid_store_bytes\":%llu,\"grid_atomic_bytes\":%llu}",
		  (unsigned long long)p->sh_req, (unsigned long long)p->sh_wf,
		  (unsigned long long)p->ld_runs, (unsigned long long)p->intervals,
		  (unsigned long long)(p->static_hi - p->static_lo), (unsigned long long)p->grid_bytes[0],
		  (unsigned long long)p->grid_bytes[1], (unsigned long long)p->grid_bytes[2]);
}
