/*
 * The arena of static __shared__ arrays, with a red zone after each.
 *
 * A GPU block's shared memory is one window: an index one past an array
 * lands in the next array (or in unused shared memory) and nothing
 * complains. Here every array gets a slot of the arena followed by a gap of
 * at least SHARED_REDZONE bytes that belongs to no array, and a shadow byte
 * per 16-byte granule says which bytes are an array's: an access that
 * touches a red byte is reported as out of bounds, naming the array.
 *
 * The gaps must not change what a legal kernel measures. Each slot stands
 * at its compact offset (where it would be with no gaps: what the kernel's
 * shared memory per block is made of) plus a multiple of SHARED_REDZONE, a
 * multiple of 128 bytes, so every word keeps its bank (trace.c computes
 * banks from the address), and shared_compact() maps an address back for
 * the span of shared memory a kernel touched (perf.c).
 */
#include <stdio.h>
#include <string.h>

#include "internal.h"

/* Shadow values: 0 every byte of the granule is an array's; 1..15 the
 * first so many are; SHADOW_RED none. */
#define GRANULE 16
#define SHADOW_RED 0x80
#define ARENA_SLOTS ((ARENA_SPAN - ARENA_BYTES) / SHARED_REDZONE)

/* One entry more than the granules: an access at the arena's last bytes
 * reads its last granule's successor, which is red. */
uint8_t arena_shadow[ARENA_SPAN / GRANULE + 1];

struct slot {
	size_t at;		/* offset in the arena */
	size_t compact;		/* offset with no red zones */
	size_t size;
	const char *name;	/* as declared; a string of the student's object */
};

static char arena[ARENA_SPAN] __attribute__((aligned(4096)));
static struct slot slots[ARENA_SLOTS];
static int n_slots;
static size_t compact_used;	/* the arrays with no gaps */
static size_t delta;		/* a slot's offset minus its compact offset */

void shared_arena_init(void)
{
	memset(arena_shadow, SHADOW_RED, sizeof arena_shadow);
	rt.shared_lo = (uintptr_t)arena;
	rt.shared_span = 0;
}

static void unpoison(size_t at, size_t size)
{
	memset(arena_shadow + at / GRANULE, 0, size / GRANULE);
	if (size % GRANULE)
		arena_shadow[(at + size) / GRANULE] = (uint8_t)(size % GRANULE);
}

/* The rewriter makes each __shared__ declaration a reference to a slot,
 * handed out once per declaration (per template instantiation) when its
 * kernel first runs. */
void *cuemu_shared_slot(size_t size, size_t align, const char *name)
{
	rt_init();
	if (align < GRANULE)
		align = GRANULE;
	size_t compact = (compact_used + align - 1) & ~(align - 1);
	if (compact + size > ARENA_BYTES || compact + size < compact)
		fault_fatal("the kernels' __shared__ arrays need more than %u KiB in all: the emulator "
			    "keeps them all at once (a GPU block may have 48 KiB)", ARENA_BYTES / 1024);
	delta += SHARED_REDZONE;
	if (align > SHARED_REDZONE)
		delta = (delta + align - 1) & ~(align - 1);
	size_t at = compact + delta;
	if (n_slots == ARENA_SLOTS || at + size + SHARED_REDZONE > ARENA_SPAN)
		fault_fatal("the kernels declare more than %d __shared__ variables in all: the emulator "
			    "keeps them all at once", ARENA_SLOTS - 1);
	slots[n_slots++] = (struct slot){ at, compact, size, name ? name : "a __shared__ variable" };
	compact_used = compact + size;
	unpoison(at, size);
	memset(arena + at, 0xff, size);	/* poisoned, as sched.c leaves it for each block */
	rt.shared_span = at + size + SHARED_REDZONE;
	return arena + at;
}

/* The last slot that starts at or before offset o, or -1. */
static int slot_below(size_t o)
{
	int lo = 0, hi = n_slots - 1, found = -1;
	while (lo <= hi) {
		int mid = (lo + hi) / 2;
		if (slots[mid].at <= o) {
			found = mid;
			lo = mid + 1;
		} else {
			hi = mid - 1;
		}
	}
	return found;
}

uintptr_t shared_compact(uintptr_t a)
{
	size_t o = a - rt.shared_lo;
	int s = o < ARENA_SPAN ? slot_below(o) : -1;
	return s < 0 ? a : rt.shared_lo + slots[s].compact + (o - slots[s].at);
}

static int byte_ok(size_t o)
{
	uint8_t g = arena_shadow[o / GRANULE];
	return g == 0 || (g < GRANULE && o % GRANULE < g);
}

/* "1 word", "3 bytes": the distance d in words where the access is word-sized and aligned to them. */
static const char *distance(size_t d, uint32_t n, char *buf, size_t len)
{
	if (n >= 4 && d % 4 == 0)
		snprintf(buf, len, "%zu word%s", d / 4, d == 4 ? "" : "s");
	else
		snprintf(buf, len, "%zu byte%s", d, d == 1 ? "" : "s");
	return buf;
}

static const char *kind_name(int kind)
{
	return kind == AK_LOAD ? "load" : kind == AK_STORE ? "store" : "atomic";
}

/* The distance of the first byte past end that [o, o + n) touches, in words or bytes. */
static const char *past_end(size_t o, uint32_t n, size_t end, char *buf, size_t len)
{
	size_t past = (o > end ? o : end) - end;
	return distance(past + (n >= 4 && past % 4 == 0 ? 4 : 1), n, buf, len);
}

void shared_dyn_fault(struct thr *t, uintptr_t a, uint32_t n, int kind, uintptr_t site)
{
	char d[32];
	fault_bounds(t, site, "out-of-bounds shared %s of %u bytes, %s past the end of dynamic shared "
		     "memory (this access is at its byte %zu): the launch gave %zu bytes (the third "
		     "<<< >>> argument)", kind_name(kind), n,
		     past_end(a - rt.dyn_lo, n, rt.dyn_bytes, d, sizeof d), (size_t)(a - rt.dyn_lo),
		     rt.dyn_bytes);
}

void shared_check(struct thr *t, uintptr_t a, uint32_t n, int kind, uintptr_t site)
{
	size_t o = a - rt.shared_lo, bad = o;
	while (bad < o + n && bad < ARENA_SPAN && byte_ok(bad))
		bad += arena_shadow[bad / GRANULE] ? 1 : GRANULE - bad % GRANULE;
	if (bad >= o + n)
		return;	/* an array's bytes: its last granule's, or a copy's */
	char d[32];
	int s = slot_below(o);
	const struct slot *below = s >= 0 ? &slots[s] : NULL, *above = s + 1 < n_slots ? &slots[s + 1] : NULL;
	size_t past = below ? bad - (below->at + below->size) : 0;
	if (below && (!above || past < above->at - (o + n)))
		fault_bounds(t, site, "out-of-bounds shared %s of %u bytes, %s past the end of %s (a "
			     "__shared__ array of %zu bytes; this access is at its byte %zu): check the "
			     "index against the array's size", kind_name(kind), n,
			     past_end(bad, n, below->at + below->size, d, sizeof d),
			     below->name, below->size, o - below->at);
	if (above)
		fault_bounds(t, site, "out-of-bounds shared %s of %u bytes, %s before the start of %s "
			     "(a __shared__ array of %zu bytes): check the index against 0",
			     kind_name(kind), n, distance(above->at - o, n, d, sizeof d), above->name,
			     above->size);
	fault_kernel(t, site, "out-of-bounds shared %s of %u bytes at %p: no __shared__ array is there",
		     kind_name(kind), n, (void *)a);
}
