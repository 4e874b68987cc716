/*
 * The work of traced blocks: how many thread-operations combine values
 * (docs/emu-metrics.md, "Work"), so that the grader can tell a
 * work-efficient scan from one that adds every element log2(n) times,
 * whatever its block size and however it scans its block sums.
 *
 * The emulator sees memory accesses, not additions, so it judges a store
 * by its value: a store of a word that the thread had loaded shortly
 * before is a move (a copy into shared memory, a swap, a copy out); a store
 * of any other value was computed, and counts. Each lane's part in a
 * shuffle or warp reduction counts, and each atomic access (a
 * read-modify-write). A store's value exists only once the thread has run
 * on past it, so it is read at the thread's next traced access, or at the
 * end of the barrier interval.
 */
#include <string.h>

#include "internal.h"

static void remember_loaded(struct thr *t, uintptr_t addr, uint32_t size)
{
	for (uint32_t at = 0; at + 4 <= size && at < 16; at += 4) {
		uint32_t word;
		memcpy(&word, (const void *)(addr + at), 4);
		t->loaded[t->next_loaded] = word;
		t->next_loaded = (uint8_t)((t->next_loaded + 1) % WORK_LOADED);
		if (t->n_loaded < WORK_LOADED)
			t->n_loaded++;
	}
}

static int was_loaded(const struct thr *t, uint32_t word)
{
	for (int i = 0; i < t->n_loaded; i++)
		if (t->loaded[i] == word)
			return 1;
	return 0;
}

/* The thread's last store has happened: counts its computed words (of its
 * last 16 bytes: those of a long copy whose loads are still remembered). */
static void settle_store(struct launch *L, struct thr *t)
{
	if (!t->pending_size)
		return;
	uint32_t size = t->pending_size < 4 ? 4 : t->pending_size;
	uintptr_t from = t->pending_addr + (size > 16 ? size - 16 : 0);
	for (uint32_t at = 0; at + 4 <= size && at < 16; at += 4) {
		uint32_t word = 0;
		memcpy(&word, (const void *)(from + at), t->pending_size < 4 ? t->pending_size : 4);
		L->combines += !was_loaded(t, word);
	}
	t->pending_size = 0;
}

/* A struct or array copy the compiler expands inline announces its
 * destination (piece by piece), then its source, from the next few bytes of
 * code, and copies after both: its store is one pending store of all its
 * pieces, settled once the source is read. */
#define COPY_HOOKS_SPAN 32

static int inline_copy_goes_on(struct thr *t)
{
	if (!t->pending_size)
		return 0;
	if (t->kind == AK_LOAD && t->site > t->pending_site &&
	    t->site - t->pending_site <= COPY_HOOKS_SPAN) {
		remember_loaded(t, t->addr, t->size);
		return 1;
	}
	if (t->kind == AK_STORE && t->site == t->pending_site &&
	    t->addr == t->pending_addr + t->pending_size && t->pending_addr >= t->copy_lo &&
	    t->addr + t->size <= t->copy_hi) {
		t->pending_size += t->size;
		return 1;
	}
	return 0;
}

void work_request(struct thr **lanes, int n)
{
	struct launch *L = rt.launch;
	for (int i = 0; i < n; i++) {
		struct thr *t = lanes[i];
		if (inline_copy_goes_on(t))
			continue;
		settle_store(L, t);
		if (t->kind == AK_LOAD) {
			remember_loaded(t, t->addr, t->size);
		} else if (t->kind == AK_ATOMIC) {
			L->combines++;
		} else {
			t->pending_addr = t->addr;
			t->pending_size = t->size;
			t->pending_site = t->site;
		}
	}
}

void work_collective(int n)
{
	rt.launch->combines += (uint64_t)n;
}

void work_interval_end(void)
{
	for (int i = 0; i < rt.launch->nthreads; i++)
		settle_store(rt.launch, &rt.threads[i]);
}

void work_thread_reset(struct thr *t)
{
	t->n_loaded = t->next_loaded = 0;
	t->pending_size = 0;
	t->copy_lo = t->copy_hi = 0;
}
