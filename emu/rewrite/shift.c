/*
 * Right shifts in device code, as the GPU computes them. C++ leaves a shift
 * by the type's width or more undefined; x86 takes the count modulo the
 * width, the GPU's shift instruction clamps it (0, or -1 for a negative
 * value), and real code depends on that (a bank-offset macro that shifts
 * by 16 + n). So in the body of a __global__ or __device__ function
 *
 *   a >> b   becomes   a << cuemu_shr_(__FILE__, __LINE__) << b
 *
 * which parses as (a << tag) << b: the same precedence and associativity as
 * the shift, and the overloaded operators of cuemu_device.h shift with the
 * GPU's clamp (and report the line when they clamp).
 *
 * Only where ">>" is a shift for certain: two touching '>' (not ">>>" or
 * ">>="), not after "operator", and no lone '<' earlier in the same
 * bracket group of the statement, which could open the template argument
 * list that ">>" closes ("A<B<int>> x"). Elsewhere the shift keeps x86's
 * value and the compiler's shift check (-fsanitize=shift-exponent) warns.
 */
#include <string.h>

#include "rw.h"

static int touching(const struct rw *w, size_t i)
{
	return tok(w, i)->end == tok(w, i + 1)->start;
}

/* A '<' that could open a template argument list: not part of "<<" or "<=". */
static int lone_less(const struct rw *w, size_t k)
{
	if (!is(w, k, "<"))
		return 0;
	if (k > 0 && is(w, k - 1, "<") && touching(w, k - 1))
		return 0;
	return !((is(w, k + 1, "<") || is(w, k + 1, "=")) && touching(w, k));
}

/* No lone '<' between the start of the bracket group holding token i and i. */
static int surely_a_shift(const struct rw *w, size_t i)
{
	int depth = 0;
	for (size_t k = i; k-- > 0;) {
		const struct token *t = tok(w, k);
		if (t->kind == TK_DIRECTIVE)
			continue;
		if (is(w, k, ")") || is(w, k, "]"))
			depth++;
		else if (is(w, k, "(") || is(w, k, "[")) {
			if (depth-- == 0)
				return 1;
		} else if (depth == 0 && (is(w, k, ";") || is(w, k, "{") || is(w, k, "}")))
			return 1;
		else if (depth == 0 && lone_less(w, k))
			return 0;
	}
	return 1;
}

size_t shift_rewrite(struct rw *w, size_t i)
{
	if (!is(w, i, ">") || !is(w, i + 1, ">") || !touching(w, i))
		return i;
	if ((is(w, i + 2, ">") || is(w, i + 2, "=")) && touching(w, i + 1))
		return i + 2;	/* ">>>" or ">>=": left alone */
	if ((i > 0 && is(w, i - 1, "operator")) || !surely_a_shift(w, i))
		return i + 1;
	add_edit(w, tok(w, i)->start, tok(w, i + 1)->end, strdup("<< cuemu_shr_(__FILE__, __LINE__) <<"));
	return i + 1;
}
