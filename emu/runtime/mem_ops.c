/*
 * memcpy and its family (the wide wmemcpy too), as the student's code calls them. cuemu-cc
 * renames these functions in the student's object (memcpy becomes
 * cuemu_memcpy_, and so on) and compiles it with -fno-builtin for them, so
 * that every copy whose size is known only at run time, every copy the
 * compiler would have expanded inline without instrumentation, and every
 * call made by a header's inline function comes here. Struct and array
 * copies the compiler expands itself arrive through TSan's range hooks
 * (access.c), which use mem_range() too.
 *
 * A range is traced as the GPU issues it: consecutive accesses of up to 16
 * bytes, as wide as the alignment of the addresses and of the size allow,
 * all at the caller's call site. A warp whose lanes copy one element each
 * then makes one request per piece, exactly like the plain assignment. A
 * copy is a load of each piece (at the call site less one, so that loads
 * and stores are instructions of their own) then its store; the bytes move
 * piece by piece when the lane runs on, as a plain load and store would.
 * Outside traced blocks a range is checked once, whole, and copied by libc.
 */
#include <string.h>
#include <wchar.h>

#include "internal.h"

#define PIECE_MAX 16u
#define CHECK_MAX (1u << 30)	/* the longest range one access may describe */

/* The widest piece of at most PIECE_MAX bytes that bits (the addresses and
 * the size, or'ed) allow. */
static uint32_t piece_size(uintptr_t bits)
{
	uint32_t c = PIECE_MAX;
	while (c > 1 && (bits & (c - 1)))
		c >>= 1;
	return c;
}

/* Checks (and outside traced blocks classifies) a whole range at once. */
static void check_whole(uintptr_t a, size_t n, int kind, uintptr_t site)
{
	for (size_t at = 0; at < n; at += CHECK_MAX)
		access_at(a + at, (uint32_t)(n - at < CHECK_MAX ? n - at : CHECK_MAX), kind, site);
}

static int traced_here(void)
{
	return rt.in_kernel && rt.tracing_block;
}

void mem_range(uintptr_t a, size_t n, int kind, uintptr_t site)
{
	if (!n)
		return;
	if (!traced_here()) {
		check_whole(a, n, kind, site);
		return;
	}
	uint32_t c = piece_size(a | n);
	if (kind == AK_STORE) {	/* work.c: one store, made after the source is read */
		rt.cur->copy_lo = a;
		rt.cur->copy_hi = a + n;
	}
	for (size_t at = 0; at < n; at += c)
		access_at(a + at, c, kind, site);
}

void mem_copy(void *d, const void *s, size_t n, uintptr_t site)
{
	char *dst = d;
	const char *src = s;
	if (!n)
		return;
	if (!traced_here()) {
		check_whole((uintptr_t)s, n, AK_LOAD, site - 1);
		check_whole((uintptr_t)d, n, AK_STORE, site);
		memmove(d, s, n);
		return;
	}
	uint32_t c = piece_size((uintptr_t)d | (uintptr_t)s | n);
	int backward = dst > src && dst < src + n;	/* memmove's overlap */
	for (size_t i = 0; i < n; i += c) {
		size_t at = backward ? n - c - i : i;
		unsigned char piece[PIECE_MAX];
		access_at((uintptr_t)(src + at), c, AK_LOAD, site - 1);
		memcpy(piece, src + at, c);
		access_at((uintptr_t)(dst + at), c, AK_STORE, site);
		memcpy(dst + at, piece, c);
	}
}

void mem_fill(void *d, int v, size_t n, uintptr_t site)
{
	if (!traced_here()) {
		if (n)
			check_whole((uintptr_t)d, n, AK_STORE, site);
		memset(d, v, n);
		return;
	}
	char *dst = d;
	uint32_t c = piece_size((uintptr_t)d | n);
	for (size_t at = 0; at < n; at += c) {
		access_at((uintptr_t)(dst + at), c, AK_STORE, site);
		memset(dst + at, v, c);
	}
}

static int compare(const void *a, const void *b, size_t n, uintptr_t site)
{
	mem_range((uintptr_t)a, n, AK_LOAD, site - 1);
	mem_range((uintptr_t)b, n, AK_LOAD, site);
	return memcmp(a, b, n);
}

/* The _chk forms of _FORTIFY_SOURCE: the copy must fit its destination. */
static void fits(size_t n, size_t room, uintptr_t site)
{
	char where[256];
	if (n > room)
		fault_fatal("buffer overflow detected at %s: a copy of %zu bytes into an object of "
			    "%zu", site_text(site, where, sizeof where), n, room);
}

/* The renamed functions, with libc's signatures. */
void *cuemu_memcpy_(void *d, const void *s, size_t n);
void *cuemu_memmove_(void *d, const void *s, size_t n);
void *cuemu_mempcpy_(void *d, const void *s, size_t n);
void *cuemu_memset_(void *d, int v, size_t n);
void cuemu_bcopy_(const void *s, void *d, size_t n);
void cuemu_bzero_(void *d, size_t n);
void cuemu_explicit_bzero_(void *d, size_t n);
int cuemu_memcmp_(const void *a, const void *b, size_t n);
int cuemu_bcmp_(const void *a, const void *b, size_t n);
void *cuemu_memccpy_(void *d, const void *s, int c, size_t n);
wchar_t *cuemu_wmemcpy_(wchar_t *d, const wchar_t *s, size_t n);
wchar_t *cuemu_wmemmove_(wchar_t *d, const wchar_t *s, size_t n);
wchar_t *cuemu_wmemset_(wchar_t *d, wchar_t v, size_t n);
void *cuemu___memcpy_chk_(void *d, const void *s, size_t n, size_t room);
void *cuemu___memmove_chk_(void *d, const void *s, size_t n, size_t room);
void *cuemu___mempcpy_chk_(void *d, const void *s, size_t n, size_t room);
void *cuemu___memset_chk_(void *d, int v, size_t n, size_t room);
void *cuemu___memccpy_chk_(void *d, const void *s, int c, size_t n, size_t room);
wchar_t *cuemu___wmemcpy_chk_(wchar_t *d, const wchar_t *s, size_t n, size_t room);
wchar_t *cuemu___wmemmove_chk_(wchar_t *d, const wchar_t *s, size_t n, size_t room);
wchar_t *cuemu___wmemset_chk_(wchar_t *d, wchar_t v, size_t n, size_t room);

void *cuemu_memcpy_(void *d, const void *s, size_t n)
{
	mem_copy(d, s, n, RA());
	return d;
}

void *cuemu_memmove_(void *d, const void *s, size_t n)
{
	mem_copy(d, s, n, RA());
	return d;
}

void *cuemu_mempcpy_(void *d, const void *s, size_t n)
{
	mem_copy(d, s, n, RA());
	return (char *)d + n;
}

void *cuemu_memset_(void *d, int v, size_t n)
{
	mem_fill(d, v, n, RA());
	return d;
}

void cuemu_bcopy_(const void *s, void *d, size_t n)
{
	mem_copy(d, s, n, RA());
}

void cuemu_bzero_(void *d, size_t n)
{
	mem_fill(d, 0, n, RA());
}

void cuemu_explicit_bzero_(void *d, size_t n)
{
	mem_fill(d, 0, n, RA());
}

int cuemu_memcmp_(const void *a, const void *b, size_t n)
{
	return compare(a, b, n, RA());
}

int cuemu_bcmp_(const void *a, const void *b, size_t n)
{
	return compare(a, b, n, RA());
}

/* Up to and including the first byte c of s. */
static void *copy_until(void *d, const void *s, int c, size_t n, uintptr_t site)
{
	const char *stop = memchr(s, c, n);
	size_t len = stop ? (size_t)(stop - (const char *)s) + 1 : n;
	mem_copy(d, s, len, site);
	return stop ? (char *)d + len : NULL;
}

void *cuemu_memccpy_(void *d, const void *s, int c, size_t n)
{
	return copy_until(d, s, c, n, RA());
}

/* The wide forms copy 4-byte words: the size of a float. */
wchar_t *cuemu_wmemcpy_(wchar_t *d, const wchar_t *s, size_t n)
{
	mem_copy(d, s, n * sizeof *d, RA());
	return d;
}

wchar_t *cuemu_wmemmove_(wchar_t *d, const wchar_t *s, size_t n)
{
	mem_copy(d, s, n * sizeof *d, RA());
	return d;
}

wchar_t *cuemu_wmemset_(wchar_t *d, wchar_t v, size_t n)
{
	mem_range((uintptr_t)d, n * sizeof *d, AK_STORE, RA());
	return wmemset(d, v, n);
}

void *cuemu___memcpy_chk_(void *d, const void *s, size_t n, size_t room)
{
	fits(n, room, RA());
	mem_copy(d, s, n, RA());
	return d;
}

void *cuemu___memmove_chk_(void *d, const void *s, size_t n, size_t room)
{
	fits(n, room, RA());
	mem_copy(d, s, n, RA());
	return d;
}

void *cuemu___mempcpy_chk_(void *d, const void *s, size_t n, size_t room)
{
	fits(n, room, RA());
	mem_copy(d, s, n, RA());
	return (char *)d + n;
}

void *cuemu___memset_chk_(void *d, int v, size_t n, size_t room)
{
	fits(n, room, RA());
	mem_fill(d, v, n, RA());
	return d;
}

void *cuemu___memccpy_chk_(void *d, const void *s, int c, size_t n, size_t room)
{
	fits(n, room, RA());
	return copy_until(d, s, c, n, RA());
}

/* room: in wide characters, as n */
wchar_t *cuemu___wmemcpy_chk_(wchar_t *d, const wchar_t *s, size_t n, size_t room)
{
	fits(n, room, RA());
	mem_copy(d, s, n * sizeof *d, RA());
	return d;
}

wchar_t *cuemu___wmemmove_chk_(wchar_t *d, const wchar_t *s, size_t n, size_t room)
{
	fits(n, room, RA());
	mem_copy(d, s, n * sizeof *d, RA());
	return d;
}

wchar_t *cuemu___wmemset_chk_(wchar_t *d, wchar_t v, size_t n, size_t room)
{
	fits(n, room, RA());
	mem_range((uintptr_t)d, n * sizeof *d, AK_STORE, RA());
	return wmemset(d, v, n);
}
