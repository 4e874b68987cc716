/*
 * Poison and canaries around a device output buffer.
 *
 * The harness allocates GUARD_WORDS words before and after the output,
 * fills the whole span with POISON_WORD before the student's call, and ships
 * the whole span back. The grader then knows which elements were never
 * written (still poison) and whether anything was written outside the
 * buffer (a canary changed).
 */
#ifndef COMMON_GUARD_H
#define COMMON_GUARD_H

#include <stddef.h>
#include <stdint.h>

#define GUARD_WORDS 4096u	/* 16 KiB on each side */
#define POISON_WORD 0xA5A5A5A5u	/* what cudaMemset(ptr, 0xA5, ...) writes */
#define POISON_BYTE 0xA5

/* Index of the first word in guard[0..n) that is not POISON_WORD, or n. */
size_t guard_first_changed(const uint32_t *guard, size_t n);

#endif
