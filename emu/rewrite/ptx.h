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
	struct {
		char name[32];
		char kind;	/* as a constraint (r l f d h), or p for a predicate */
	} reg[16];		/* registers of a { .reg ... } block */
	int n_regs;
};

/* Reports "FILE:LINE: error: " fmt (with what for its %s) for the
 * statement; returns -1. */
int ptx_fail(struct stmt *st, const char *fmt, const char *what);

/* ".reg .TYPE a, b" of a block: declares its registers (in st->out). */
int ptx_declare(struct stmt *st, const char *text);

/* The register of a block that name is, or -1. */
int ptx_reg(const struct stmt *st, const char *name);

/* The C++ type of a PTX type suffix ("u32"); .b32/.b64 follow kind, the
 * register's constraint letter. NULL: none. */
const char *ptx_ctype(const char *t, char kind);

/* Appends the C++ of one instruction of the template to st->out (its
 * text: %N for operands, \x01 before a PTX register's name). */
void ptx_translate(struct stmt *st, const char *text);

#endif
