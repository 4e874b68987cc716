/*
 * What the emulator cannot run, or must not let through, reported as
 * FILE:LINE: error: lines before g++ sees the file. The input is the
 * preprocessor's output, so a name made by token pasting or hidden in a
 * macro is seen as the compiler will see it.
 */
#include <stdio.h>
#include <string.h>

#include "rw.h"

static const char *const texture_names[] = {
	"tex1Dfetch", "tex1D", "tex2D", "tex3D", "tex1DLayered", "tex2DLayered", "texCubemap",
	"tex2Dgather", "surf1Dread", "surf1Dwrite", "surf2Dread", "surf2Dwrite", "surf3Dread",
	"surf3Dwrite", "cudaCreateTextureObject", "cudaCreateSurfaceObject", "cudaBindTexture",
	"cudaBindTexture2D", "cudaBindTextureToArray", "cudaTextureObject_t", "cudaSurfaceObject_t",
	"cudaMallocArray", "cudaMalloc3DArray", NULL,
};

static const char *const launch_api_names[] = {
	"cudaLaunchKernelEx", "cudaLaunchCooperativeKernel",
	"cudaLaunchCooperativeKernelMultiDevice", "cudaGraphLaunch", NULL,
};

static const char *const legacy_warp_names[] = {
	"__shfl", "__shfl_up", "__shfl_down", "__shfl_xor", "__ballot", "__any", "__all", NULL,
};

/* Attributes that take a function out of ThreadSanitizer's instrumentation:
 * its memory accesses would be neither checked nor traced. */
static const char *const uninstrumented_names[] = {
	"no_sanitize", "__no_sanitize__", "no_sanitize_thread", "__no_sanitize_thread__",
	"no_sanitize_address", "__no_sanitize_address__", "no_address_safety_analysis",
	"__no_address_safety_analysis__", "disable_sanitizer_instrumentation",
	"__disable_sanitizer_instrumentation__", "no_sanitize_undefined", "__no_sanitize_undefined__",
	/* A function's own compiler options: they can switch the instrumentation off. */
	"optimize", "__optimize__",
	NULL,
};

/* Pragmas that do the same for every function after them. */
static const char *const uninstrumented_pragmas[] = {
	"GCC optimize", "GCC push_options", "clang attribute", "clang optimize", NULL,
};

static int in_list(const struct rw *w, size_t i, const char *const *names)
{
	for (int k = 0; names[k]; k++)
		if (is(w, i, names[k]))
			return 1;
	return 0;
}

static void token_text(const struct rw *w, size_t i, char *buf, size_t len)
{
	size_t n = tok(w, i)->end - tok(w, i)->start;
	snprintf(buf, len, "%.*s", (int)(n < len - 1 ? n : len - 1), w->src + tok(w, i)->start);
}

/* The attribute list that starts at token i (__attribute__((...)) or
 * [[...]]): refuses the names above in it. Returns its last token. */
static size_t check_attribute_list(struct rw *w, size_t i)
{
	int bracket = is(w, i, "[");
	int depth = 0;
	size_t k = bracket ? i + 2 : i + 1;
	for (; tok(w, k)->kind != TK_END; k++) {
		if (is(w, k, "(") || is(w, k, "[")) {
			depth++;
		} else if (is(w, k, ")") || is(w, k, "]")) {
			if (bracket && depth == 0)
				return k + 1;	/* the first ] of ]] */
			if (--depth == 0 && !bracket)
				return k;
		} else if (tok(w, k)->kind == TK_IDENT && in_list(w, k, uninstrumented_names)) {
			char name[64];
			token_text(w, k, name, sizeof name);
			error_at(w, tok(w, k)->line, "the attribute %s is not allowed: it would hide the "
				 "function's memory accesses from the checks the grade relies on", name);
		} else if (!bracket && depth == 0) {
			return k - 1;	/* no parenthesis after __attribute__ */
		}
	}
	return k;
}

/* A directive of the student's file that survived preprocessing: a
 * #pragma (written so, or made by _Pragma). */
void refuse_directive(struct rw *w, size_t i)
{
	const struct token *t = tok(w, i);
	char text[256];
	size_t o = 0;
	/* The words of the directive with one blank between them. */
	for (size_t k = t->start + 1; k < t->end && o + 1 < sizeof text; k++) {
		char c = w->src[k];
		int blank = c == ' ' || c == '\t';
		if (blank && (o == 0 || text[o - 1] == ' '))
			continue;
		text[o++] = blank ? ' ' : c;
	}
	text[o] = '\0';
	if (strncmp(text, "pragma ", 7) != 0)
		return;
	for (int k = 0; uninstrumented_pragmas[k]; k++) {
		size_t n = strlen(uninstrumented_pragmas[k]);
		if (strncmp(text + 7, uninstrumented_pragmas[k], n) == 0)
			error_at(w, t->line, "#pragma %s is not allowed: it would change how the functions "
				 "after it are compiled, and could hide their memory accesses from the checks "
				 "the grade relies on", uninstrumented_pragmas[k]);
	}
}

void refuse_check(struct rw *w, size_t i)
{
	int line = tok(w, i)->line;
	char name[64];
	token_text(w, i, name, sizeof name);
	if (is(w, i, "__attribute__") || is(w, i, "__attribute") ||
	    (is(w, i, "[") && is(w, i + 1, "["))) {
		check_attribute_list(w, i);
		return;
	}
	if (tok(w, i)->kind != TK_IDENT)
		return;
	if (in_list(w, i, launch_api_names))
		error_at(w, line, "%s is not supported by the CPU emulator: launch with "
			 "kernel<<<grid, block>>>(arguments) or cudaLaunchKernel", name);
	else if (in_list(w, i, texture_names) || (is(w, i, "texture") && is(w, i + 1, "<")))
		error_at(w, line, "textures and surfaces (%s) are not supported by the CPU emulator: "
			 "read the data through a plain device pointer", name);
	else if (in_list(w, i, legacy_warp_names) && is(w, i + 1, "("))
		error_at(w, line, "%s without _sync was removed in CUDA 9: use %s_sync(0xffffffff, ...) "
			 "with the mask of the lanes taking part", name, name);
}
