/*
 * The rewriter's state and the helpers its files share (rewrite.c: the
 * edits; refuse.c: what the emulator cannot run; rw.c: these helpers).
 *
 * The input is normally the preprocessor's output (cuemu-cc runs g++ -E
 * first), so that launches and refused constructs made by macros are seen
 * as the compiler will see them. Its line markers (# 12 "scan.cu" 2) say
 * which file and line each token comes from: messages name the student's
 * file and line, and code from system headers and the emulator's own
 * headers is left alone.
 */
#ifndef CUEMU_RW_H
#define CUEMU_RW_H

#include <stddef.h>
#include <stdio.h>

#include "../runtime/sb.h"
#include "lex.h"

struct edit {
	size_t start, end;
	char *text;
};

struct rw {
	const char *path;	/* the name in messages and #line, until a line marker says otherwise */
	const char *src;
	size_t len;
	struct tokens tk;
	struct edit *edits;
	size_t n_edits, cap_edits;
	int errors;
	FILE *err;
	const char *const *system_dirs;	/* code from files under these is not rewritten */
	/* the last line marker */
	char file[1024];	/* the file it names ("" before any) */
	int line_delta;		/* a token's line is its physical line + line_delta */
	int in_system;		/* the file is a system or emulator header */
};

static inline const struct token *tok(const struct rw *w, size_t i)
{
	return &w->tk.v[i < w->tk.n ? i : w->tk.n - 1];
}

static inline int is(const struct rw *w, size_t i, const char *text)
{
	return i < w->tk.n && tk_is(w->src, tok(w, i), text);
}

/* "FILE:LINE: error: ..." on w->err, for physical line `line` of the input. */
void error_at(struct rw *w, int line, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Replaces input [start, end) with text (malloc'd, taken), padded with
 * newlines so that the line count stays. */
void add_edit(struct rw *w, size_t start, size_t end, char *text);

/* The input text of tokens [a, b], newlines turned into spaces. */
void put_span(struct sb *s, const struct rw *w, size_t a, size_t b);

/* Token i is a directive: if it is a line marker, follows it. */
void follow_line_marker(struct rw *w, size_t i);

/* launch.c: token i is the first '<' of a launch's "<<<"; rewrites the
 * launch (or refuses one it cannot read, or one in device code). Returns
 * the index of the last '>' of ">>>". */
size_t launch_rewrite(struct rw *w, size_t i, int in_device_code);

/* launch_api.c: token i starts "cudaLaunchKernel(": rewrites its kernel
 * argument for the launcher (or refuses one it cannot read, or one in
 * device code). Returns 1 when token i was such a call, else 0. */
int launch_api_rewrite(struct rw *w, size_t i, int in_device_code);

/* refuse.c: reports what the emulator cannot run, at token i, an
 * identifier or the first [ of [[ (the launch API, textures, the legacy
 * shuffles, attributes that turn the instrumentation off). */
void refuse_check(struct rw *w, size_t i);
/* Refuses a #pragma at token i (a directive) that changes how later code is compiled. */
void refuse_directive(struct rw *w, size_t i);

/* noinline.c: the student's __noinline__ qualifier at token i, spelled
 * out as an attribute (one inside __attribute__((...)) stays). Returns 1
 * when it rewrote token i. */
int noinline_rewrite(struct rw *w, size_t i);

/* rename.c: a CUDA built-in at token i that the emulator provides under
 * another name (__ldg, atomicAdd_block, __expf...) is renamed. Returns 1
 * when it rewrote token i. */
int rename_rewrite(struct rw *w, size_t i);

/* ptx.c: the asm statement at token i (asm, __asm__ or __asm) becomes the
 * C++ that does what its inline PTX does, or is refused naming the
 * instruction the emulator cannot run. in_block: inside a function body.
 * Returns the last token it consumed. */
size_t ptx_rewrite(struct rw *w, size_t i, int in_block);

/* shift.c: at token i in device code, a ">>" that is surely a shift is
 * rewritten to shift as the GPU does. Returns the last token it consumed
 * (i when it is no ">>"). */
size_t shift_rewrite(struct rw *w, size_t i);

#endif
