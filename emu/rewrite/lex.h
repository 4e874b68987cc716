/*
 * Tokens of a CUDA C++ source, enough for the rewriter: identifiers,
 * numbers, literals and one-character punctuation, with their offsets and
 * lines. Comments are dropped; preprocessor directives become one token
 * each (TK_DIRECTIVE), so that nothing inside them is rewritten by mistake.
 */
#ifndef CUEMU_LEX_H
#define CUEMU_LEX_H

#include <stddef.h>

enum tk { TK_IDENT, TK_NUMBER, TK_STRING, TK_CHAR, TK_PUNCT, TK_DIRECTIVE, TK_END };

struct token {
	enum tk kind;
	size_t start, end;	/* [start, end) in the source */
	int line;
};

struct tokens {
	struct token *v;
	size_t n, cap;
};

/* Splits src[0..len) into tokens (the last is TK_END). Returns 0, or -1
 * when out of memory. */
int lex(const char *src, size_t len, struct tokens *out);

/* 1 if token t is the identifier (or punctuation) text. */
int tk_is(const char *src, const struct token *t, const char *text);

#endif
