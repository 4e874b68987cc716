/*
 * Kernel launches (see rw.h and rewrite.c): k<<<g, b, smem, s>>>(args)
 * becomes a call of the launcher with a lambda that calls the kernel.
 */
#include <stdlib.h>
#include <string.h>

#include "rw.h"

/* The index of the bracket that opens the one closing at token j ("(" for
 * ")", "[" for "]", "<" for ">"), or -1. */
static long opener(const struct rw *w, long j)
{
	const char *close = is(w, (size_t)j, ")") ? ")" : is(w, (size_t)j, "]") ? "]" : ">";
	const char *open = *close == ')' ? "(" : *close == ']' ? "[" : "<";
	int depth = 0;
	for (; j >= 0; j--) {
		if (is(w, (size_t)j, close))
			depth++;
		else if (is(w, (size_t)j, open) && --depth == 0)
			return j;
		else if (is(w, (size_t)j, ";") || is(w, (size_t)j, "{") || is(w, (size_t)j, "}"))
			return -1;
	}
	return -1;
}

/* Token j is a keyword after which an expression starts ("if (c) (k)<<<"). */
static int keyword(const struct rw *w, size_t j)
{
	static const char *const words[] = { "if", "while", "for", "switch", "return", "else", "do",
					     "case", "sizeof", NULL };
	for (int k = 0; words[k]; k++)
		if (is(w, j, words[k]))
			return 1;
	return 0;
}

/* The first token of the kernel expression that ends just before token i,
 * or -1: a name ("k", "ns::k", "k<T, 4>"), or any postfix expression that
 * yields a kernel, as nvcc takes ("(k)" from a macro's parentheses, a
 * function pointer "f", "table[i]", "s.fn", "pick(c)"). *name_end: the
 * token ending the name without template arguments when the expression is
 * a plain name, else the expression's last token. */
static long kernel_start(const struct rw *w, size_t i, size_t *name_end)
{
	long j = (long)i - 1, start = -1;
	*name_end = i - 1;
	while (j >= 0) {
		if (is(w, (size_t)j, ")") || is(w, (size_t)j, "]")) {
			long o = opener(w, j);
			if (o < 0)
				return -1;
			start = o;
			j = o - 1;
			/* "(k)" stands alone; "pick(c)", "t[i]" go on to what they apply to */
			if (j < 0 || keyword(w, (size_t)j))
				break;
			if (tok(w, (size_t)j)->kind == TK_IDENT || is(w, (size_t)j, ">") ||
			    (is(w, (size_t)o, "[") && (is(w, (size_t)j, ")") || is(w, (size_t)j, "]"))))
				continue;
			break;
		}
		if (is(w, (size_t)j, ">")) {
			long o = opener(w, j);
			if (o < 1 || tok(w, (size_t)o - 1)->kind != TK_IDENT)
				return -1;
			if (start < 0)
				*name_end = (size_t)o - 1;
			j = o - 1;
			continue;
		}
		if (tok(w, (size_t)j)->kind != TK_IDENT)
			break;
		if (start < 0 && *name_end == i - 1)
			*name_end = (size_t)j;
		start = j;
		if (j >= 2 && is(w, (size_t)j - 1, ":") && is(w, (size_t)j - 2, ":")) {
			j -= 3;	/* ns::k, or ::k at the start */
			if (j < 0 || tok(w, (size_t)j)->kind != TK_IDENT) {
				start = j + 1;
				break;
			}
			continue;
		}
		if (j >= 1 && is(w, (size_t)j - 1, ".")) {
			j -= 2;
			continue;
		}
		if (j >= 2 && is(w, (size_t)j - 1, ">") && is(w, (size_t)j - 2, "-")) {
			j -= 3;
			continue;
		}
		break;
	}
	if (start < 0 || (tok(w, (size_t)start)->kind != TK_IDENT && !is(w, (size_t)start, "(") &&
			  !is(w, (size_t)start, ":")))
		return -1;
	return start;
}

/* The index of the first '>' of the ">>>" closing the configuration that
 * starts at token i, or 0. */
static size_t config_end(const struct rw *w, size_t i)
{
	int depth = 0;
	for (size_t k = i; tok(w, k)->kind != TK_END; k++) {
		if (is(w, k, "(") || is(w, k, "[") || is(w, k, "{"))
			depth++;
		else if (is(w, k, ")") || is(w, k, "]") || is(w, k, "}"))
			depth--;
		else if (is(w, k, ";") || depth < 0)
			return 0;
		else if (depth == 0 && is(w, k, ">") && is(w, k + 1, ">") && is(w, k + 2, ">"))
			return k;
	}
	return 0;
}

/* The launcher stores each argument as its own type before the kernel's
 * call converts it to the parameter's, so a null pointer constant would
 * arrive as a long (NULL) or an int (0) and convert to no pointer. An
 * argument that is just NULL or 0 becomes cuemu_null_(), which converts to
 * any pointer or number, as the constant would have. open: the '('. */
static void null_arguments(struct rw *w, size_t open)
{
	int depth = 0;
	size_t first = 0, n = 0;	/* the argument's first token and its count */
	for (size_t k = open; tok(w, k)->kind != TK_END; k++) {
		if (tok(w, k)->kind == TK_DIRECTIVE)
			continue;	/* a line marker around a macro's expansion (NULL) */
		if (is(w, k, "(") || is(w, k, "[") || is(w, k, "{")) {
			if (depth++ == 0)
				continue;
		}
		int close = is(w, k, ")") || is(w, k, "]") || is(w, k, "}");
		if ((close && depth == 1) || (depth == 1 && is(w, k, ","))) {
			if (n == 1 && (is(w, first, "NULL") || is(w, first, "__null") || is(w, first, "0")))
				add_edit(w, tok(w, first)->start, tok(w, first)->end, strdup("cuemu_null_()"));
			n = 0;
			if (close)
				return;
			continue;
		}
		if (close)
			depth--;
		if (n++ == 0)
			first = k;
	}
}

size_t launch_rewrite(struct rw *w, size_t i, int in_device_code)
{
	int line = tok(w, i)->line;
	size_t name_end = 0;
	long ks = kernel_start(w, i, &name_end);
	size_t ge = config_end(w, i + 3);
	if (in_device_code)
		error_at(w, line, "a kernel launch inside device code (dynamic parallelism) cannot run in "
			 "the CPU emulator: launch kernels from host code");
	if (ks < 0) {
		error_at(w, line, "cannot tell which kernel this <<< >>> launches: write it as "
			 "kernel<<<grid, block>>>(arguments)");
		return i + 2;
	}
	if (!ge || !is(w, ge + 3, "(")) {
		error_at(w, line, "a <<< launch configuration without its >>> and (arguments)");
		return i + 2;
	}
	if (ge == i + 3) {
		error_at(w, line, "an empty <<< >>> launch configuration: give at least the grid and "
			 "block sizes");
		return ge + 2;
	}
	null_arguments(w, ge + 3);
	struct sb s = { 0 };
	/* The name of "(k)", a macro's parenthesised parameter, is k. */
	size_t name_start = (size_t)ks;
	if (is(w, name_start, "(") && name_end == i - 1 && opener(w, (long)name_end) == ks) {
		name_start++;
		name_end--;
	}
	sb_puts(&s, "cuemu_launch_(__FILE__, __LINE__, \"");
	put_span(&s, w, name_start, name_end);
	/* [=]: a kernel named through a variable (a function pointer) is read
	 * once, here on the host, as a launch does; each CUDA thread calls a
	 * copy of the lambda on its own stack. A kernel's name captures nothing. */
	/* The kernel's address where the expression is one function: a launch
	 * through a variable is named after the kernel it runs. */
	sb_puts(&s, "\", cuemu_kernel_ptr_([=](auto cuemu_d_) -> decltype(cuemu_kptr_(cuemu_d_, ");
	put_span(&s, w, (size_t)ks, i - 1);
	sb_puts(&s, ")) { return cuemu_kptr_(cuemu_d_, ");
	put_span(&s, w, (size_t)ks, i - 1);
	sb_puts(&s, "); }), [=](auto &&...cuemu_a_) { ");
	put_span(&s, w, (size_t)ks, i - 1);
	sb_puts(&s, "(cuemu_a_...); }, ");
	put_span(&s, w, i + 3, ge - 1);
	sb_puts(&s, ")");
	add_edit(w, tok(w, (size_t)ks)->start, tok(w, ge + 2)->end, sb_take(&s));
	return ge + 2;
}

