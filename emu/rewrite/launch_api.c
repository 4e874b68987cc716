/*
 * Launches through the runtime's API (see rw.h and rewrite.c):
 * cudaLaunchKernel(KERNEL, grid, block, args, smem, stream), where KERNEL
 * is the kernel, often cast to a void pointer ((void *)k, (const void *)&k,
 * reinterpret_cast<void *>(k)). The cast is dropped, so that the launcher
 * (cuemu_launch_api_, cuemu_device.h) sees the kernel's parameter types and
 * unpacks args into them, as the GPU's runtime does from its own record of
 * the kernel.
 */
#include "rw.h"

/* Tokens [a, b] are a cast to a pointer to void: "( [const] void [const] * )". */
static int void_pointer_type(const struct rw *w, size_t a, size_t b)
{
	size_t k = a;
	if (is(w, k, "const"))
		k++;
	if (!is(w, k++, "void"))
		return 0;
	if (is(w, k, "const"))
		k++;
	return is(w, k, "*") && k == b;
}

/* The index of the token that closes the bracket opening at token j, or 0. */
static size_t closer(const struct rw *w, size_t j)
{
	const char *open = is(w, j, "(") ? "(" : "<", *close = *open == '(' ? ")" : ">";
	int depth = 0;
	for (; tok(w, j)->kind != TK_END; j++) {
		if (is(w, j, open))
			depth++;
		else if (is(w, j, close) && --depth == 0)
			return j;
		else if (is(w, j, ";") || is(w, j, "{") || is(w, j, "}"))
			return 0;
	}
	return 0;
}

/* The first argument at token a: its kernel expression in [*ka, *kb] (a
 * cast to a void pointer dropped) and the token after the argument, the
 * "," or ")"; 0 when it cannot be read. */
static size_t kernel_argument(const struct rw *w, size_t a, size_t *ka, size_t *kb)
{
	size_t end;
	if (is(w, a, "(") && (end = closer(w, a)) && void_pointer_type(w, a + 1, end - 1)) {
		a = end + 1;	/* (void *)k */
	} else if ((is(w, a, "reinterpret_cast") || is(w, a, "static_cast")) && is(w, a + 1, "<") &&
		   (end = closer(w, a + 1)) && void_pointer_type(w, a + 2, end - 1) && is(w, end + 1, "(")) {
		size_t shut = closer(w, end + 1);	/* reinterpret_cast<void *>(k) */
		if (!shut || shut == end + 2)
			return 0;
		*ka = end + 2;
		*kb = shut - 1;
		return is(w, shut + 1, ",") || is(w, shut + 1, ")") ? shut + 1 : 0;
	}
	/* The expression: up to the first "," or ")" outside brackets (a
	 * template's arguments, k<float, 4>, are inside "<" and ">"). */
	int depth = 0;
	for (size_t j = a; tok(w, j)->kind != TK_END; j++) {
		if (is(w, j, "(") || is(w, j, "[") || is(w, j, "<"))
			depth++;
		else if ((is(w, j, ")") || is(w, j, "]") || is(w, j, ">")) && depth > 0)
			depth--;
		else if (depth == 0 && (is(w, j, ",") || is(w, j, ")"))) {
			if (j == a)
				return 0;
			*ka = a;
			*kb = j - 1;
			return j;
		} else if (is(w, j, ";") || is(w, j, "{") || is(w, j, "}"))
			return 0;
	}
	return 0;
}

int launch_api_rewrite(struct rw *w, size_t i, int in_device_code)
{
	size_t ka, kb, after;
	if (!is(w, i, "cudaLaunchKernel") || !is(w, i + 1, "("))
		return 0;
	if (in_device_code) {
		error_at(w, tok(w, i)->line, "a kernel launch inside device code (dynamic parallelism) "
			 "cannot run in the CPU emulator: launch kernels from host code");
		return 1;
	}
	after = kernel_argument(w, i + 2, &ka, &kb);
	if (!after || !is(w, after, ",")) {
		error_at(w, tok(w, i)->line, "cannot tell which kernel this cudaLaunchKernel launches: "
			 "write it as cudaLaunchKernel((void *)kernel, grid, block, args, shared, stream)");
		return 1;
	}
	struct sb s = { 0 };
	sb_puts(&s, "cuemu_launch_api_(__FILE__, __LINE__, \"");
	put_span(&s, w, ka, kb);
	sb_puts(&s, "\", ");
	put_span(&s, w, ka, kb);
	add_edit(w, tok(w, i)->start, tok(w, after - 1)->end, sb_take(&s));
	return 1;
}
