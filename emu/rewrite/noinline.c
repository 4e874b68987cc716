/*
 * __noinline__, CUDA's qualifier, is also the name GCC gives the noinline
 * attribute, and libstdc++ writes __attribute__((__noinline__)) (<memory>,
 * <functional>). A macro for the qualifier would break those headers once
 * the rewritten file is compiled with cuemu_qualifiers.h force-included (as
 * nvcc's own host headers define it only where they can). So the student's
 * own qualifiers are spelled out here instead:
 *
 *   __noinline__ int f()  ->  __attribute__((noinline)) int f()
 *
 * and one already inside __attribute__((...)) is left as GCC reads it.
 */
#include <string.h>

#include "rw.h"

/* Token i sits inside the parentheses of __attribute__((...)). */
static int in_gnu_attribute(const struct rw *w, size_t i)
{
	int depth = 0;
	for (size_t k = i; k-- > 0;) {
		if (tok(w, k)->kind == TK_DIRECTIVE)
			continue;
		if (is(w, k, ")")) {
			depth++;
		} else if (is(w, k, "(")) {
			if (depth-- > 0)
				continue;
			return k >= 2 && is(w, k - 1, "(") &&
			       (is(w, k - 2, "__attribute__") || is(w, k - 2, "__attribute"));
		} else if (depth == 0 && (is(w, k, ";") || is(w, k, "{") || is(w, k, "}"))) {
			return 0;
		}
	}
	return 0;
}

int noinline_rewrite(struct rw *w, size_t i)
{
	if (!is(w, i, "__noinline__") || in_gnu_attribute(w, i))
		return 0;
	add_edit(w, tok(w, i)->start, tok(w, i)->end, strdup("__attribute__((noinline))"));
	return 1;
}
