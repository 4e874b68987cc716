/*
 * Races and uninitialised shared reads, in traced blocks.
 *
 * A race: two accesses to the same bytes by different threads of a block
 * within one barrier interval, at least one a write, not both atomic. Each
 * 4-byte word has a shadow: the interval it was last touched in, its last
 * writer and the bytes it wrote, its first reader (and whether other
 * threads read it too) and the bytes read, and the traced block that last
 * wrote it. Threads that store different bytes of one word (a char array,
 * one element a thread) do not race, on a GPU or here. An access that conflicts with what the shadow
 * holds counts one race: a read after another thread's write is RAW, a
 * write after another thread's write WAW, a write after other threads'
 * reads WAR. A stale interval stamp means an empty shadow, so nothing is
 * cleared at a barrier.
 *
 * Shared words have a shadow array each (static section, dynamic buffer);
 * global words a hash table whose stale entries count as free.
 *
 * Static shared memory outlives a block here (unlike on a GPU), so "read
 * before written" is "read before written by this block": the shadow
 * keeps the serial of the traced block that last wrote the word.
 */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* 24 bytes: the global table stays in cache. Sites are kept as offsets
 * in the program image (under 4 GiB), stamps as the low 32 bits. */
struct shadow {
	uint32_t stamp;
	int16_t writer, reader;
	uint8_t multi, atomic;
	uint8_t wbytes, rbytes;	/* bit k: byte k of the word, written by writer / read */
	uint32_t written;	/* block serial of the last write */
	uint32_t wsite, rsite;
};

struct gentry {
	uintptr_t word;
	struct shadow s;
};

static struct shadow *sh_arena, *sh_section, *sh_dyn;
static size_t n_section;
static struct gentry *gtab;
static size_t gcap, glive;
static uint32_t gstamp;

/* The shadow of a shared word: one array per region, made when first needed. */
static struct shadow *region(struct shadow **sh, size_t words, uintptr_t lo, uintptr_t a)
{
	if (!*sh && !(*sh = calloc(words, sizeof **sh)))
		return NULL;
	size_t i = (a - lo) / 4;
	return i < words ? &(*sh)[i] : NULL;
}

static struct shadow *shared_shadow(uintptr_t a)
{
	if (likely(a - rt.shared_lo < ARENA_SPAN && sh_arena))
		return &sh_arena[(a - rt.shared_lo) / 4];
	if (a - rt.dyn_lo < DYN_SMEM_MAX)
		return region(&sh_dyn, DYN_SMEM_MAX / 4, rt.dyn_lo, a);
	if (a - rt.shared_lo < ARENA_SPAN)
		return region(&sh_arena, ARENA_SPAN / 4, rt.shared_lo, a);
	if (!sh_section)
		n_section = rt.section_span / 4 + 1;
	return region(&sh_section, n_section, rt.section_lo, a);
}

static size_t hash(uintptr_t w)
{
	return (size_t)((w * 0x9e3779b97f4a7c15ull) >> 20);
}

static int grow(void)
{
	size_t cap = gcap ? 2 * gcap : 4096;
	struct gentry *t = calloc(cap, sizeof *t);
	if (!t)
		return -1;
	for (size_t i = 0; i < gcap; i++) {
		if (gtab[i].s.stamp != gstamp)
			continue;
		size_t j = hash(gtab[i].word) & (cap - 1);
		while (t[j].s.stamp == gstamp)
			j = (j + 1) & (cap - 1);
		t[j] = gtab[i];
	}
	free(gtab);
	gtab = t;
	gcap = cap;
	return 0;
}

static struct shadow *global_shadow(uintptr_t a)
{
	uintptr_t w = a >> 2;
	if (gstamp != (uint32_t)rt.interval) {
		gstamp = (uint32_t)rt.interval;
		glive = 0;
	}
	if ((glive + 1) * 2 > gcap && grow() < 0)
		return NULL;
	size_t j = hash(w) & (gcap - 1);
	while (gtab[j].s.stamp == gstamp) {
		if (gtab[j].word == w)
			return &gtab[j].s;
		j = (j + 1) & (gcap - 1);
	}
	glive++;
	gtab[j].word = w;
	gtab[j].s.stamp = 0;	/* fresh: the caller resets it */
	return &gtab[j].s;
}

void race_reset(void)
{
	free(sh_arena);
	free(sh_section);
	free(sh_dyn);
	free(gtab);
	sh_arena = sh_section = sh_dyn = NULL;
	gtab = NULL;
	gcap = glive = 0;
}

static int same_warp(int a, int b)
{
	return a / WARP == b / WARP;
}

/* One word, of which the access touches the bytes in mask. An access
 * counts at most one race, however many words it spans: *raced says
 * whether it has counted one already. */
static inline void check_word(struct shadow *s, struct thr *t, int kind, int space, uintptr_t site,
			      uint8_t mask, int *raced)
{
	struct launch_rec *r = rt.launch->rec;
	int me = t->id, atomic = kind == AK_ATOMIC;
	if (s->stamp != (uint32_t)rt.interval) {
		s->stamp = (uint32_t)rt.interval;
		s->writer = s->reader = -1;
		s->multi = s->atomic = 0;
		s->wbytes = s->rbytes = 0;
	}
	if (*raced) {
		/* counted already */
	} else if (s->writer >= 0 && s->writer != me && (s->wbytes & mask) && !(atomic && s->atomic)) {
		metrics_race(r, kind == AK_LOAD ? 0 : 2, same_warp(s->writer, me), space,
			     rt.image_lo + s->wsite, site);
		*raced = 1;
	} else if (kind != AK_LOAD && s->reader >= 0 && (s->reader != me || s->multi) && (s->rbytes & mask)) {
		metrics_race(r, 1, same_warp(s->reader, me), space, rt.image_lo + s->rsite, site);
		*raced = 1;
	}
	if (kind == AK_LOAD) {
		if (s->reader < 0) {
			s->reader = (int16_t)me;
			s->rsite = (uint32_t)(site - rt.image_lo);
		} else if (s->reader != me) {
			s->multi = 1;
		}
		s->rbytes |= mask;
	} else {
		/* Another thread's bytes elsewhere in the word are forgotten: a
		 * later access to them is checked against this writer only. */
		s->wbytes = s->writer == me ? s->wbytes | mask : mask;
		s->writer = (int16_t)me;
		s->wsite = (uint32_t)(site - rt.image_lo);
		s->atomic = (uint8_t)atomic;
	}
}

/* The bytes of word w (an address / 4) that [a, a + n) covers, as bit k
 * for byte k. */
static inline uint8_t word_bytes(uintptr_t w, uintptr_t a, uint32_t n)
{
	uintptr_t lo = w << 2, hi = lo + 4;
	uintptr_t from = a > lo ? a : lo, to = a + n < hi ? a + n : hi;
	return (uint8_t)(((1u << (to - from)) - 1) << (from - lo));
}

int race_check(struct thr *t, uintptr_t a, uint32_t n, int kind, int space, uintptr_t site)
{
	int raced = 0, uninit = 0;
	for (uintptr_t w = a >> 2, last = (a + n - 1) >> 2; w <= last; w++) {
		struct shadow *s = space == SP_SHARED ? shared_shadow(w << 2) : global_shadow(w << 2);
		if (!s)
			return 0;
		if (space == SP_SHARED) {
			if (kind != AK_STORE && s->written != rt.block_serial)
				uninit = 1;
			if (kind != AK_LOAD)
				s->written = rt.block_serial;
		}
		check_word(s, t, kind, space, site, word_bytes(w, a, n), &raced);
	}
	if (uninit)
		metrics_uninit(rt.launch->rec, site);
	return raced;
}
