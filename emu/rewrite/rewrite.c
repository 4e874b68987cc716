/*
 * The source rewrite that lets g++ compile CUDA C++ (see rewrite.h).
 *
 * The input is the preprocessor's output (rw.h says why; where nvcc's two
 * passes differ under __CUDA_ARCH__, main.c first merges them, arch.c);
 * code of system and emulator headers is skipped. Three edits (and right
 * shifts in device code, shift.c; the __noinline__ qualifier, noinline.c;
 * built-ins provided under other names, rename.c; inline PTX, ptx.c),
 * everything else is left to the force-included headers:
 *
 *   k<<<g, b, smem, s>>>(args)    (launch.c; k may be any kernel expression)
 *     -> cuemu_launch_(__FILE__, __LINE__, "k", ADDRESS-OF-k-IF-ONE-FUNCTION,
 *            [=](auto &&...cuemu_a_) { k(cuemu_a_...); }, g, b, smem, s)(args)
 *     The launcher evaluates the arguments once; each CUDA thread calls the
 *     lambda, which calls the kernel the way C++ calls any function (so a
 *     template kernel's arguments are deduced as nvcc deduces them).
 *     An argument that is just NULL or 0 becomes cuemu_null_() (see
 *     null_arguments()).
 *   extern __shared__ T a[];  ->  T *const a = (T *)cuemu_dyn_smem;
 *   __shared__ T a[N];  ->  static void *cuemu_shp_1;
 *                           T (&a)[N] = cuemu_shared_ref_<decltype(a)>(cuemu_shp_1, "a");
 *     A reference to a slot of the runtime's shared arena, taken when the
 *     kernel first runs: the runtime knows where shared memory is (g++
 *     ignores a section attribute on a template's static), and every
 *     instantiation of a template kernel gets its own array, as in CUDA.
 *
 * Every edit keeps the number of newlines and the line markers inside it
 * (rw.c), so lines after it keep their numbers, and compiler messages point
 * at the student's lines.
 *
 * Constructs the emulator cannot run are reported as FILE:LINE: error:
 * lines, gcc style, before g++ ever sees the file (refuse.c).
 */
#include "rewrite.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rw.h"

/* ---- shared memory declarations ------------------------------------------------------------------ */

/* Skips __align__(...) or __attribute__((...)) at token k; returns the
 * token after it, or k when there is none. */
static size_t skip_attribute(const struct rw *w, size_t k)
{
	if (!(is(w, k, "__align__") || is(w, k, "__attribute__")) || !is(w, k + 1, "("))
		return k;
	int depth = 0;
	for (size_t j = k + 1; tok(w, j)->kind != TK_END; j++) {
		if (is(w, j, "("))
			depth++;
		else if (is(w, j, ")") && --depth == 0)
			return j + 1;
	}
	return k;
}

/* Tokens i, i+1 are "extern __shared__". Returns the index of the ';'. */
static size_t extern_shared(struct rw *w, size_t i)
{
	size_t end = i + 2, open = 0, name = 0;
	while (tok(w, end)->kind != TK_END && !is(w, end, ";"))
		end++;
	for (size_t k = i + 2; k < end; k++) {
		if (is(w, k, "[")) {
			open = k;
			break;
		}
		if (tok(w, k)->kind == TK_IDENT)
			name = k;
	}
	if (!is(w, end, ";") || !name) {
		error_at(w, tok(w, i)->line, "cannot read this extern __shared__ declaration: write it "
			 "as extern __shared__ TYPE name[];");
		return end;
	}
	struct sb type = { 0 }, s = { 0 };
	for (size_t k = i + 2; k < name; k++) {
		size_t after = skip_attribute(w, k);
		if (after != k) {
			k = after - 1;
			continue;
		}
		sb_puts(&type, " ");
		put_span(&type, w, k, k);
	}
	char *t = sb_take(&type);
	if (!t || !*t) {
		free(t);
		error_at(w, tok(w, i)->line, "extern __shared__ declaration without a type");
		return end;
	}
	size_t nlen = tok(w, name)->end - tok(w, name)->start;
	const char *nm = w->src + tok(w, name)->start;
	if (open)
		sb_printf(&s, "%s *const %.*s = (%s *)cuemu_dyn_smem;", t + 1, (int)nlen, nm, t + 1);
	else
		sb_printf(&s, "%s &%.*s = *(%s *)cuemu_dyn_smem;", t + 1, (int)nlen, nm, t + 1);
	free(t);
	add_edit(w, tok(w, i)->start, tok(w, end)->end, sb_take(&s));
	return end;
}

/* The tokens of one declarator of a __shared__ declaration, [a, b): the
 * name (the last identifier before the first '[', or the last one). */
/* Bracket and template-argument depth of a declaration, token by token. '<'
 * and '>' count only outside brackets, where they can only be template
 * argument lists: inside, "(n) >> 5" of an expanded macro is a shift. */
struct nesting {
	int brackets, angles;
};

static void nest(const struct rw *w, size_t k, struct nesting *d)
{
	if (is(w, k, "(") || is(w, k, "[") || is(w, k, "{"))
		d->brackets++;
	else if (is(w, k, ")") || is(w, k, "]") || is(w, k, "}"))
		d->brackets--;
	else if (d->brackets == 0 && is(w, k, "<"))
		d->angles++;
	else if (d->brackets == 0 && is(w, k, ">") && d->angles > 0)
		d->angles--;
}

static size_t declarator_name(const struct rw *w, size_t a, size_t b, int *is_array)
{
	size_t name = 0;
	struct nesting d = { 0, 0 };
	*is_array = 0;
	for (size_t k = a; k < b; k++) {
		int depth = d.brackets + d.angles;
		if (depth == 0 && is(w, k, "[")) {
			*is_array = 1;
			break;
		} else if (depth == 0 && tok(w, k)->kind == TK_IDENT && !is(w, k, "__align__") &&
			   !is(w, k, "__attribute__") && !is(w, k, "const") && !is(w, k, "volatile"))
			name = k;
		nest(w, k, &d);
	}
	return name;
}

/* Appends tokens [a, b) but the declarator name, the storage class and
 * attributes; the name becomes a reference to its arena slot. */
static void put_declarator(struct sb *s, const struct rw *w, size_t a, size_t b, size_t name,
			   int is_array, int slot)
{
	for (size_t k = a; k < b; k++) {
		size_t after = skip_attribute(w, k);
		if (after != k) {
			k = after - 1;
			continue;
		}
		if (is(w, k, "static") || is(w, k, "__shared__"))
			continue;
		if (k == name) {
			sb_puts(s, is_array ? " (&" : " &");
			put_span(s, w, k, k);
			sb_puts(s, is_array ? ")" : "");
			continue;
		}
		/* Tokens that touch stay together: ">>" of an expanded macro is a shift. */
		if (k == a || tok(w, k - 1)->end != tok(w, k)->start)
			sb_puts(s, " ");
		put_span(s, w, k, k);
	}
	sb_puts(s, " = cuemu_shared_ref_<decltype(");
	put_span(s, w, name, name);
	sb_printf(s, ")>(cuemu_shp_%d, \"", slot);
	put_span(s, w, name, name);	/* the array's name, for an out-of-bounds report */
	sb_puts(s, "\")");
}

/* Token i is __shared__ (not extern). start: the declaration's first token.
 * Returns the index of its ';'. */
static size_t static_shared(struct rw *w, size_t start, size_t i, int at_namespace)
{
	static int slots;
	size_t end = i + 1, parts[64], n = 0;
	struct nesting d = { 0, 0 };
	parts[n++] = start;
	for (; tok(w, end)->kind != TK_END && !(d.brackets == 0 && is(w, end, ";")); end++) {
		if (d.brackets == 0 && d.angles == 0 && is(w, end, ",") && n < 63)
			parts[n++] = end + 1;
		nest(w, end, &d);
	}
	parts[n] = end + 1;
	if (!is(w, end, ";")) {
		error_at(w, tok(w, i)->line, "cannot read this __shared__ declaration: expected a ';'");
		return end;
	}
	struct sb s = { 0 };
	int first = slots;
	sb_puts(&s, "static void");
	for (size_t p = 0; p < n; p++)
		sb_printf(&s, "%s *cuemu_shp_%d", p ? "," : "", first + (int)p);
	sb_puts(&s, at_namespace ? "; static" : ";");
	for (size_t p = 0; p < n; p++) {
		int is_array;
		size_t b = parts[p + 1] - 1, name = declarator_name(w, parts[p], b, &is_array);
		if (!name) {
			error_at(w, tok(w, i)->line, "cannot find the name in this __shared__ declaration");
			free(sb_take(&s));
			return end;
		}
		if (p)
			sb_puts(&s, ",");
		put_declarator(&s, w, parts[p], b, name, is_array, slots++);
	}
	sb_puts(&s, ";");
	add_edit(w, tok(w, start)->start, tok(w, end)->end, sb_take(&s));
	return end;
}

/* ---- the walk ------------------------------------------------------------------------------------ */

struct scope {
	int depth, parens;
	int blocks;		/* open braces that are not namespace or extern "C" ones */
	unsigned char kind[512];	/* per open brace: 1 namespace-like, 0 block */
	size_t stmt_start;	/* the first token of the current statement */
	int pending;		/* a __global__/__device__ declaration has started */
	int pending_host;	/* ... that is also __host__ */
	int pending_depth;
	int device_depth;	/* > 0: inside a device function's body, opened at this depth */
};

static void track(struct rw *w, size_t i, struct scope *sc)
{
	if (is(w, i, "__global__") || is(w, i, "__device__")) {
		if (!sc->pending)
			sc->pending_host = 0;
		sc->pending = 1;
		sc->pending_depth = sc->depth;
	} else if (is(w, i, "__host__")) {
		sc->pending_host = 1;
	} else if (is(w, i, "(")) {
		sc->parens++;
	} else if (is(w, i, ")")) {
		sc->parens--;
	} else if (is(w, i, "{")) {
		if (sc->pending && sc->parens == 0 && sc->depth == sc->pending_depth) {
			if (!sc->pending_host && !sc->device_depth)
				sc->device_depth = sc->depth + 1;
			sc->pending = 0;
		}
		int ns = i > 0 && (tok(w, i - 1)->kind == TK_STRING || is(w, i - 1, "namespace") ||
				   (i > 1 && is(w, i - 2, "namespace")));
		if (sc->depth < (int)sizeof sc->kind)
			sc->kind[sc->depth] = (unsigned char)ns;
		sc->blocks += !ns;
		sc->depth++;
	} else if (is(w, i, "}")) {
		sc->depth--;
		if (sc->depth >= 0 && sc->depth < (int)sizeof sc->kind)
			sc->blocks -= !sc->kind[sc->depth];
		if (sc->device_depth && sc->depth < sc->device_depth)
			sc->device_depth = 0;
	} else if ((is(w, i, ";") || is(w, i, "=")) && sc->depth == sc->pending_depth && sc->parens == 0) {
		sc->pending = 0;
	}
}

/* A token after which a new statement or declaration starts. */
static int ends_statement(const struct rw *w, size_t i)
{
	return tok(w, i)->kind == TK_DIRECTIVE || is(w, i, ";") || is(w, i, "{") || is(w, i, "}");
}

/* Token i starts a launch's "<<<": three '<', which nvcc accepts with blanks
 * between them ("k<< <g, b >> >(...)"); no other C++ has three in a row
 * but "operator<< <T>", the explicit specialisation of an operator. */
static int launch_opens(const struct rw *w, size_t i)
{
	return is(w, i, "<") && is(w, i + 1, "<") && is(w, i + 2, "<") &&
	       !(i > 0 && is(w, i - 1, "operator"));
}

static void walk(struct rw *w)
{
	struct scope sc = { 0 };
	for (size_t i = 0; tok(w, i)->kind != TK_END; i++) {
		const struct token *t = tok(w, i);
		if (t->kind == TK_DIRECTIVE) {
			follow_line_marker(w, i);
			if (!w->in_system)
				refuse_directive(w, i);
			sc.stmt_start = i + 1;
			continue;
		}
		if (w->in_system)
			continue;	/* the toolchain's headers and the emulator's own */
		if (i == 0 || ends_statement(w, i - 1))
			sc.stmt_start = i;
		if (t->kind == TK_IDENT || is(w, i, "["))
			refuse_check(w, i);
		if (t->kind == TK_IDENT) {
			if (is(w, i, "extern") && is(w, i + 1, "__shared__")) {
				i = extern_shared(w, i);
				continue;
			}
			if (is(w, i, "__shared__") && !(i > 0 && is(w, i - 1, "extern"))) {
				i = static_shared(w, sc.stmt_start, i, sc.blocks == 0);
				continue;
			}
			if (noinline_rewrite(w, i))
				continue;
			if (launch_api_rewrite(w, i, sc.device_depth > 0))
				continue;
			if (rename_rewrite(w, i))
				continue;
			if (is(w, i, "asm") || is(w, i, "__asm__") || is(w, i, "__asm")) {
				i = ptx_rewrite(w, i, sc.blocks > 0);
				continue;
			}
			track(w, i, &sc);
		} else if (launch_opens(w, i)) {
			i = launch_rewrite(w, i, sc.device_depth > 0);
		} else if (sc.device_depth > 0 && is(w, i, ">")) {
			i = shift_rewrite(w, i);
		} else {
			track(w, i, &sc);
		}
	}
}

static int edit_cmp(const void *a, const void *b)
{
	const struct edit *x = a, *y = b;
	return x->start < y->start ? -1 : x->start > y->start;
}

/* The #line file name, quoted as a C string literal needs. */
static void put_line_directive(struct sb *out, const char *path)
{
	sb_puts(out, "#line 1 \"");
	for (const char *p = path; *p; p++) {
		if (*p == '"' || *p == '\\')
			sb_printf(out, "\\%c", *p);
		else
			sb_printf(out, "%c", *p);
	}
	sb_puts(out, "\"\n");
}

char *rewrite_source(const char *path, const char *src, size_t len, const char *const *system_dirs,
		     FILE *err, int *errors)
{
	struct rw w = { .path = path, .src = src, .len = len, .err = err, .system_dirs = system_dirs };
	struct sb out = { 0 };
	*errors = 0;
	if (lex(src, len, &w.tk) < 0) {
		fprintf(err, "%s: out of memory\n", path);
		*errors = 1;
		return NULL;
	}
	walk(&w);
	qsort(w.edits, w.n_edits, sizeof *w.edits, edit_cmp);
	put_line_directive(&out, path);
	size_t at = 0;
	for (size_t k = 0; k < w.n_edits; k++) {
		struct edit *e = &w.edits[k];
		if (e->start < at)
			continue;	/* overlaps an earlier edit: cannot happen */
		sb_printf(&out, "%.*s", (int)(e->start - at), src + at);
		sb_puts(&out, e->text);
		at = e->end;
	}
	if (at < len)
		sb_printf(&out, "%.*s", (int)(len - at), src + at);
	for (size_t k = 0; k < w.n_edits; k++)
		free(w.edits[k].text);
	free(w.edits);
	free(w.tk.v);
	*errors = w.errors;
	return sb_take(&out);
}
