/*
 * Analysis warnings: code that runs here as it does on a GPU, or that the
 * emulator cannot run as the GPU does, which the student should hear about
 * with its line but which fails no run.
 *
 *   exited_before_barrier  threads of a block returned while the others
 *       went on to __syncthreads(): sm_70 and later GPUs no longer count
 *       exited threads at a barrier, so this works there; older GPUs could
 *       hang, and the guide calls it undefined.
 *   shift_clamped  a right shift in device code by the type's width or more,
 *       which the rewriter made give the GPU's value (rewrite/shift.c).
 *   shift_out_of_range  another shift by the type's width or more (a UBSan
 *       check, -fsanitize=shift-exponent, calls our handler below): the
 *       GPU's shift instruction clamps the count (the result is 0, or -1
 *       for a negative signed value), x86 takes it modulo the width.
 *
 * Kept whatever the tracing mode; reset with the metrics, written into
 * their JSON as "warnings" (docs/emu-metrics.md).
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"
#include "sb.h"

#define MAX_WARNINGS WARN_MAX

struct warning {
	const char *kind;
	char file[256];
	unsigned line;
	unsigned long long count;
	char message[320];
	unsigned long long marked;	/* count at warn_mark */
	uint64_t block;			/* the first block to add since then */
};

static struct warning warnings[MAX_WARNINGS];
static int n_warnings;

/* Every count goes through here: a worker of a parallel launch must tell
 * the launch which block added first (blocks_parallel.c). */
static unsigned long long bump(struct warning *w)
{
	if (w->count == w->marked && rt.launch)
		w->block = rt.launch->block_linear;
	return w->count++;
}

static struct warning *slot(const char *kind, const char *file, unsigned line)
{
	for (int i = 0; i < n_warnings; i++)
		if (warnings[i].kind == kind && warnings[i].line == line &&
		    strcmp(warnings[i].file, file) == 0)
			return &warnings[i];
	if (n_warnings == MAX_WARNINGS)
		return NULL;
	struct warning *w = &warnings[n_warnings++];
	w->kind = kind;
	snprintf(w->file, sizeof w->file, "%s", file);
	w->line = line;
	w->count = 0;
	w->marked = 0;
	w->message[0] = 0;
	return w;
}

void warn_exited_before_barrier(const char *kernel, int exited, int nthreads, uintptr_t site)
{
	const char *file = "?";
	unsigned line = 0;
	lines_lookup(site - 1, &file, &line);	/* site: the return address, after the call */
	struct warning *w = slot("exited_before_barrier", file, line);
	if (!w)
		return;
	if (bump(w) == 0)
		snprintf(w->message, sizeof w->message,
			 "in kernel %s, __syncthreads() at %s:%u was reached while %d of the block's %d "
			 "threads had already returned: GPUs since Volta (sm_70) let the others go on, "
			 "older ones may hang; guard the work with an if rather than returning early",
			 kernel, file, line, exited, nthreads);
}

/* A device-code shift the rewriter made clamp as the GPU's does (cuemu_device.h). */
void cuemu_shift_clamped(const char *file, int line, int bits, long long count)
{
	struct warning *w = slot("shift_clamped", file ? file : "?", (unsigned)line);
	if (w && bump(w) == 0)
		snprintf(w->message, sizeof w->message,
			 "%s:%d shifts a %d-bit value by %lld bits: the emulator gives what the GPU "
			 "gives (0, or -1 for a negative value shifted right), but C++ leaves it "
			 "undefined and a CPU gives another value; keep shift counts below the width",
			 file ? file : "?", line, bits, count);
}

/* GCC's and clang's description of the check that failed. */
struct ubsan_location {
	const char *file;
	uint32_t line, column;
};
struct ubsan_type {
	uint16_t kind, info;	/* integer: info bit 0 signed, info >> 1 log2 of the width */
	char name[];
};
struct ubsan_shift {
	struct ubsan_location loc;
	const struct ubsan_type *lhs, *rhs;
};

static long long operand(const struct ubsan_type *t, uintptr_t v)
{
	unsigned bits = 1u << (t->info >> 1);
	if (bits > 64)
		return 0;	/* passed by pointer: no need for its value here */
	if (t->info & 1)
		return bits == 64 ? (long long)v : (long long)((int64_t)(v << (64 - bits)) >> (64 - bits));
	return (long long)v;
}

void __ubsan_handle_shift_out_of_bounds(struct ubsan_shift *d, uintptr_t lhs, uintptr_t rhs)
{
	const char *file = d->loc.file ? d->loc.file : "?";
	struct warning *w = slot("shift_out_of_range", file, d->loc.line);
	if (!w)
		return;
	if (bump(w) == 0)
		snprintf(w->message, sizeof w->message,
			 "%s:%u shifts a %u-bit %s by %lld bits: the GPU gives 0 (-1 for a negative value "
			 "shifted right) where x86 shifts by the count modulo %u, so this line may "
			 "compute other values here than on the GPU; keep shift counts below the width",
			 file, d->loc.line, 1u << (d->lhs->info >> 1), d->lhs->name,
			 operand(d->rhs, rhs), 1u << (d->lhs->info >> 1));
	(void)lhs;
}

void __ubsan_handle_shift_out_of_bounds_abort(struct ubsan_shift *d, uintptr_t lhs, uintptr_t rhs)
{
	__ubsan_handle_shift_out_of_bounds(d, lhs, rhs);
}

void warn_reset(void)
{
	n_warnings = 0;
}

void warn_mark(void)
{
	for (int i = 0; i < n_warnings; i++)
		warnings[i].marked = warnings[i].count;
}

int warn_export(struct warn_export *out)
{
	int n = 0;
	for (int i = 0; i < n_warnings; i++) {
		const struct warning *w = &warnings[i];
		if (w->count == w->marked)
			continue;
		out[n].kind = w->kind;
		memcpy(out[n].file, w->file, sizeof out[n].file);
		out[n].line = w->line;
		out[n].count = w->count - w->marked;
		out[n].block = w->block;
		memcpy(out[n].message, w->message, sizeof out[n].message);
		n++;
	}
	return n;
}

/* The caller goes in block order: a warning new to this process takes the
 * message of its first block, as the serial run does. */
void warn_import(const struct warn_export *e)
{
	struct warning *w = slot(e->kind, e->file, e->line);
	if (!w)
		return;
	if (w->count == 0)
		memcpy(w->message, e->message, sizeof w->message);
	w->count += e->count;
}

void warn_json(struct sb *s)
{
	sb_puts(s, "\"warnings\":[");
	for (int i = 0; i < n_warnings; i++) {
		const struct warning *w = &warnings[i];
		sb_printf(s, "%s{\"kind\":\"%s\",\"file\":", i ? "," : "", w->kind);
		sb_json_string(s, w->file);
		sb_printf(s, ",\"line\":%u,\"count\":%llu,\"message\":", w->line, w->count);
		sb_json_string(s, w->message);
		sb_puts(s, "}");
	}
	sb_puts(s, "]");
}
