/* Large host buffers on huge pages (see host_buffer.h). */
#include "host_buffer.h"

#include <stdint.h>
#include <sys/mman.h>

#define HUGE_PAGE ((size_t)2 << 20)

static size_t rounded(size_t bytes)
{
	return (bytes + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1);
}

void *host_buffer_alloc(size_t bytes)
{
	size_t len = rounded(bytes ? bytes : 1);
	/* Map a huge page more than needed, then trim both ends so that the
	 * buffer starts on a huge-page boundary (madvise works on whole ones). */
	char *raw = mmap(NULL, len + HUGE_PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (raw == MAP_FAILED)
		return NULL;
	char *start = (char *)(((uintptr_t)raw + HUGE_PAGE - 1) & ~(uintptr_t)(HUGE_PAGE - 1));
	if (start > raw)
		munmap(raw, (size_t)(start - raw));
	size_t tail = (size_t)(raw + len + HUGE_PAGE - (start + len));
	if (tail)
		munmap(start + len, tail);
	madvise(start, len, MADV_HUGEPAGE);	/* advice: refused is fine */
	return start;
}

void host_buffer_free(void *p, size_t bytes)
{
	if (p)
		munmap(p, rounded(bytes ? bytes : 1));
}
