/*
 * Device memory: one reserved address range, carved into cudaMalloc buffers.
 *
 * The whole range is PROT_NONE while no kernel runs, so a device pointer
 * dereferenced by the host faults at once (fault.c names the line); a
 * launch opens it (one mprotect) and closes it after. cudaMemcpy and
 * cudaMemset open just the pages they copy.
 *
 * Buffers start on a page and are followed by at least GAP bytes that
 * belong to no buffer, so that an index a little past the end is an
 * access outside every buffer and is reported, instead of landing in the
 * next buffer unnoticed.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "internal.h"

#define PAGE 4096u
#define GAP (64u * 1024u)
#define FREED_KEPT 32

struct buf {
	uintptr_t base;
	size_t size;
	uintptr_t site;		/* the cudaMalloc call */
};

static char *heap;
static size_t heap_size;	/* reserved bytes = the device's global memory */
static uintptr_t used_hi;	/* end of the highest page ever handed out */
static struct buf *bufs;	/* live buffers, by address */
static int n_bufs, cap_bufs;
static size_t live_bytes;
static struct buf freed[FREED_KEPT];	/* recent cudaFree's, for messages */
static int n_freed;

/* Host memory that kernels may use too (cudaMallocHost, managed). */
static struct buf *mapped;
static int n_mapped, cap_mapped;

static uintptr_t align_up(uintptr_t x, uintptr_t a)
{
	return (x + a - 1) & ~(a - 1);
}

/* Device memory is shared with the launch's worker processes (blocks_parallel.c)
 * where there can be any: their stores must be the parent's. */
static int map_flags(void)
{
	return rt.workers > 1 ? MAP_SHARED : MAP_PRIVATE;
}

/* A process forked by anything but a launch (a test's child, a program's
 * own fork) must not share device memory with its parent, as it did not
 * when the mapping was private: it gets a private copy of the used part. */
static void private_in_child(void)
{
	size_t used = used_hi - rt.heap_lo;
	char *copy = MAP_FAILED;
	if (rt.par_worker || !heap)
		return;
	if (used) {
		copy = mmap(NULL, used, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (copy == MAP_FAILED || mprotect(heap, used, PROT_READ) != 0)
			fault_fatal("cannot copy device memory into a forked process: %s", strerror(errno));
		memcpy(copy, heap, used);
	}
	if (mmap(heap, heap_size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED,
		 -1, 0) == MAP_FAILED)
		fault_fatal("cannot remap device memory in a forked process: %s", strerror(errno));
	if (used) {
		if (mremap(copy, used, used, MREMAP_MAYMOVE | MREMAP_FIXED, heap) == MAP_FAILED)
			fault_fatal("cannot remap device memory in a forked process: %s", strerror(errno));
		mprotect(heap, used, rt.in_kernel ? PROT_READ | PROT_WRITE : PROT_NONE);
	}
	rt.workers = 1;		/* and its own launches run serially: its memory is private */
}

void heap_init(void)
{
	const char *env = getenv("CUEMU_MEMORY_MB");
	size_t mb = env && *env ? strtoull(env, NULL, 10) : 4096;
	if (mb < 16)
		mb = 16;
	heap_size = mb << 20;
	heap = mmap(NULL, heap_size, PROT_NONE, map_flags() | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (heap == MAP_FAILED) {
		/* An address-space limit: try smaller until something fits. */
		while (heap == MAP_FAILED && heap_size > (64u << 20)) {
			heap_size /= 2;
			heap = mmap(NULL, heap_size, PROT_NONE,
				    map_flags() | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
		}
		if (heap == MAP_FAILED)
			fault_fatal("cannot reserve address space for device memory: %s", strerror(errno));
	}
	rt.heap_lo = (uintptr_t)heap;
	rt.heap_span = heap_size;
	used_hi = rt.heap_lo;
	if (rt.workers > 1)
		pthread_atfork(NULL, NULL, private_in_child);
}

size_t heap_total(void)
{
	return heap_size;
}

size_t heap_free_bytes(void)
{
	return heap_size > live_bytes ? heap_size - live_bytes : 0;
}

/* Index of the first buffer whose base is > a. */
static int upper(uintptr_t a)
{
	int lo = 0, hi = n_bufs;
	while (lo < hi) {
		int mid = (lo + hi) / 2;
		if (bufs[mid].base <= a)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

int heap_lookup(uintptr_t a, size_t n, uintptr_t *lo, uintptr_t *hi)
{
	int i = upper(a) - 1;
	if (i < 0 || a + n > bufs[i].base + bufs[i].size)
		return 0;
	*lo = bufs[i].base;
	*hi = bufs[i].base + bufs[i].size;
	return 1;
}

int heap_is_device(uintptr_t a)
{
	return a - rt.heap_lo < rt.heap_span;
}

int heap_range_ok(uintptr_t a, size_t n)
{
	uintptr_t lo, hi;
	return heap_lookup(a, n ? n : 1, &lo, &hi);
}

static const char *where(uintptr_t site, char *buf, size_t len)
{
	return site ? site_text(site, buf, len) : "an unknown line";
}

int heap_describe(uintptr_t a, size_t n, char *out, size_t len)
{
	char at[256];
	int i = upper(a) - 1, just_outside = 1;
	for (int k = n_freed - 1; k >= 0 && k >= n_freed - FREED_KEPT; k--) {
		struct buf *f = &freed[k % FREED_KEPT];
		if (a >= f->base && a < f->base + f->size) {
			snprintf(out, len, "inside a %zu-byte buffer that was already freed with cudaFree at %s",
				 f->size, where(f->site, at, sizeof at));
			return 1;
		}
	}
	if (i >= 0 && a >= bufs[i].base && a + n <= bufs[i].base + bufs[i].size) {
		snprintf(out, len, "inside a %zu-byte cudaMalloc buffer (allocated at %s)", bufs[i].size,
			 where(bufs[i].site, at, sizeof at));
		just_outside = 0;
	} else if (i >= 0 && a >= bufs[i].base && a < bufs[i].base + bufs[i].size) {
		snprintf(out, len, "it runs %zu bytes past the end of a %zu-byte cudaMalloc buffer "
			 "(allocated at %s)", (size_t)(a + n - bufs[i].base - bufs[i].size), bufs[i].size,
			 where(bufs[i].site, at, sizeof at));
	} else if (i >= 0 && a - (bufs[i].base + bufs[i].size) < GAP) {
		size_t off = a - bufs[i].base, size = bufs[i].size;
		where(bufs[i].site, at, sizeof at);
		if (n && off % n == 0 && size % n == 0)
			snprintf(out, len, "it is element %zu of a cudaMalloc buffer of %zu %zu-byte "
				 "elements (allocated at %s), %zu past its last element: check the index "
				 "against the size", off / n, size / n, n, at, off / n - size / n + 1);
		else
			snprintf(out, len, "it is byte %zu of a %zu-byte cudaMalloc buffer (allocated at "
				 "%s), past its end: check the index against the size", off, size, at);
	} else if (i + 1 < n_bufs && bufs[i + 1].base - a <= GAP) {
		size_t before = bufs[i + 1].base - a;
		snprintf(out, len, "%zu bytes before the start of a %zu-byte cudaMalloc buffer "
			 "(allocated at %s): a negative index?", before, bufs[i + 1].size,
			 where(bufs[i + 1].site, at, sizeof at));
	} else {
		snprintf(out, len, "not inside any cudaMalloc buffer");
		just_outside = 0;
	}
	return just_outside;
}

static int insert_buf(uintptr_t base, size_t size, uintptr_t site)
{
	if (n_bufs == cap_bufs) {
		int cap = cap_bufs ? 2 * cap_bufs : 64;
		struct buf *b = realloc(bufs, (size_t)cap * sizeof *b);
		if (!b)
			return -1;
		bufs = b;
		cap_bufs = cap;
	}
	int i = upper(base);
	memmove(&bufs[i + 1], &bufs[i], (size_t)(n_bufs - i) * sizeof *bufs);
	bufs[i] = (struct buf){ base, size, site };
	n_bufs++;
	return 0;
}

/* First fit: the lowest place with GAP free bytes before and after. */
static uintptr_t find_place(size_t size)
{
	uintptr_t cursor = rt.heap_lo + GAP, end = rt.heap_lo + heap_size;
	for (int i = 0; i < n_bufs; i++) {
		if (cursor + size + GAP <= bufs[i].base)
			return cursor;
		cursor = align_up(bufs[i].base + bufs[i].size, PAGE) + GAP;
	}
	return cursor + size + GAP <= end ? cursor : 0;
}

void *heap_alloc(size_t size, uintptr_t site)
{
	uintptr_t p = find_place(size);
	if (!p || insert_buf(p, size, site) < 0)
		return NULL;
	live_bytes += size;
	if (align_up(p + size, PAGE) > used_hi)
		used_hi = align_up(p + size, PAGE);
	return (void *)p;
}

/* Returns 0, or -1 if p is no live buffer's start. */
int heap_free(void *ptr, uintptr_t site)
{
	uintptr_t p = (uintptr_t)ptr;
	int i = upper(p) - 1;
	if (i < 0 || bufs[i].base != p)
		return -1;
	freed[n_freed++ % FREED_KEPT] = (struct buf){ p, bufs[i].size, site };
	/* Give the pages back: the next buffer here starts from zeros. */
	uintptr_t lo = align_up(p, PAGE), hi = align_up(p + bufs[i].size, PAGE);
	if (hi > lo)
		madvise((void *)lo, hi - lo, rt.workers > 1 ? MADV_REMOVE : MADV_DONTNEED);
	live_bytes -= bufs[i].size;
	memmove(&bufs[i], &bufs[i + 1], (size_t)(n_bufs - i - 1) * sizeof *bufs);
	n_bufs--;
	memset(rt.hit_lo, 0, sizeof rt.hit_lo);
	memset(rt.hit_hi, 0, sizeof rt.hit_hi);
	return 0;
}

void heap_reset(void)
{
	while (n_bufs > 0)
		heap_free((void *)bufs[n_bufs - 1].base, 0);
	n_freed = 0;
}

static void protect(uintptr_t lo, uintptr_t hi, int prot)
{
	lo &= ~(uintptr_t)(PAGE - 1);
	hi = align_up(hi, PAGE);
	if (hi > lo && mprotect((void *)lo, hi - lo, prot) != 0)
		fault_fatal("mprotect of device memory failed: %s", strerror(errno));
}

void heap_open(uintptr_t a, size_t n)
{
	if (n && heap_is_device(a))
		protect(a, a + n, PROT_READ | PROT_WRITE);
}

void heap_close(uintptr_t a, size_t n)
{
	if (n && heap_is_device(a) && !rt.in_kernel)
		protect(a, a + n, PROT_NONE);
}

void heap_kernel_begin(void)
{
	protect(rt.heap_lo, used_hi, PROT_READ | PROT_WRITE);
}

void heap_kernel_end(void)
{
	protect(rt.heap_lo, used_hi, PROT_NONE);
}

int host_map_add(void *p, size_t size)
{
	if (n_mapped == cap_mapped) {
		int cap = cap_mapped ? 2 * cap_mapped : 16;
		struct buf *b = realloc(mapped, (size_t)cap * sizeof *b);
		if (!b)
			return -1;
		mapped = b;
		cap_mapped = cap;
	}
	mapped[n_mapped++] = (struct buf){ (uintptr_t)p, size, 0 };
	return 0;
}

int host_map_remove(void *p)
{
	for (int i = 0; i < n_mapped; i++)
		if (mapped[i].base == (uintptr_t)p) {
			mapped[i] = mapped[--n_mapped];
			return 0;
		}
	return -1;
}

/* cudaMallocManaged's buffers are host buffers marked so (in the site
 * field, unused for host memory): cudaFree frees them, as it does on a GPU. */
void host_map_mark_managed(void *p)
{
	for (int i = 0; i < n_mapped; i++)
		if (mapped[i].base == (uintptr_t)p)
			mapped[i].site = 1;
}

int host_map_is_managed(const void *p)
{
	for (int i = 0; i < n_mapped; i++)
		if (mapped[i].base == (uintptr_t)p)
			return mapped[i].site == 1;
	return 0;
}

int host_mapped_any(void)
{
	return n_mapped > 0;
}

int host_mapped(uintptr_t a, size_t n)
{
	for (int i = 0; i < n_mapped; i++)
		if (a >= mapped[i].base && a + n <= mapped[i].base + mapped[i].size)
			return 1;
	return 0;
}
