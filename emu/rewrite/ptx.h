/*
 * Inline PTX, shared by ptx.c (the asm statement: its operands, its
 * template) and ptx_insn.c (each instruction of the template as C++).
 */
#ifndef CUEMU_PTX_H
#define CUEMU_PTX_H

#include "rw.h"

#define MAX_OPERANDS 30

struct operand {
	char kind;		/* r l f d h n c, or the output it is tied to ('0'...) */
	int output;
	char name[32];		/* [name] */
	size_t a, b;		/* the expression's tokens, inclusive */
};

struct stmt {
	struct rw *w;
	int line;
	int extended;		/* operands (or clobbers) given: %% and %N mean something */
	struct operand op[MAX_OPERANDS];
	int n;
	struct sb out;
	int failed;
};

/* Reports "FILE:LINE: error: " fmt (with what for its %s) for the
 * statement; returns -1. */
int ptx_fail(struct stmt *st, const char *fmt, const char *what);

/* Appends the C++ of one instruction of the template to st->out (its
 * text: %N for operands, \x01 before a PTX register's name). */
void ptx_translate(struct stmt *st, const char *text);

#endif
