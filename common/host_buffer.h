/*
 * Large host buffers (the grader's inputs and references, the emulated
 * harness's inputs, an output brought back whole: up to gigabytes):
 * anonymous mappings aligned to 2 MiB and marked for transparent huge pages,
 * so that the first touch of a gigabyte faults 512 pages, not 262144. Where
 * the kernel gives no huge pages the buffer still works, at 4 KiB a fault.
 */
#ifndef HOST_BUFFER_H
#define HOST_BUFFER_H

#include <stddef.h>

/* bytes of zeroed memory, or NULL when there is none. */
void *host_buffer_alloc(size_t bytes);
/* p from host_buffer_alloc(bytes), or NULL. */
void host_buffer_free(void *p, size_t bytes);

#endif
