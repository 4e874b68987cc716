/*
 * The instructions of inline PTX the emulator runs, each as the C++ that
 * does what it does (ptx.c says how a statement becomes a block).
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ptx.h"

/* ---- operands in the template ------------------------------------------------------------------ */

/* The operand that "%2" or "%[x]" names (the output an input is tied to),
 * or -1. */
static int operand_index(const struct stmt *st, const char *text)
{
	int n = -1;
	if (text[0] != '%')
		return -1;
	if (text[1] == '[') {
		for (int k = 0; k < st->n; k++) {
			size_t len = strlen(st->op[k].name);
			if (len && strncmp(st->op[k].name, text + 2, len) == 0 && text[2 + len] == ']')
				n = k;
		}
	} else if (isdigit((unsigned char)text[1])) {
		n = atoi(text + 1);
	}
	if (n >= 0 && n < st->n && isdigit((unsigned char)st->op[n].kind))
		n = st->op[n].kind - '0';	/* an input tied to an output */
	return n >= 0 && n < st->n ? n : -1;
}

/* The C++ expression of a register operand's text ("%2", "%[x]", a special
 * register, a number) appended to s. */
static int put_value(struct stmt *st, struct sb *s, const char *text)
{
	static const char *const specials[][2] = {
		{ "laneid", "cuemu_ptx_laneid_()" }, { "warpid", "cuemu_ptx_warpid_()" },
		{ "nwarpid", "cuemu_ptx_nwarpid_()" }, { "smid", "cuemu_ptx_smid_()" },
		{ "nsmid", "cuemu_ptx_nsmid_()" }, { "lanemask_eq", "cuemu_ptx_lanemask_eq_()" },
		{ "lanemask_lt", "cuemu_ptx_lanemask_lt_()" }, { "lanemask_le", "cuemu_ptx_lanemask_le_()" },
		{ "lanemask_gt", "cuemu_ptx_lanemask_gt_()" }, { "lanemask_ge", "cuemu_ptx_lanemask_ge_()" },
		{ "tid.x", "threadIdx.x" }, { "tid.y", "threadIdx.y" }, { "tid.z", "threadIdx.z" },
		{ "ntid.x", "blockDim.x" }, { "ntid.y", "blockDim.y" }, { "ntid.z", "blockDim.z" },
		{ "ctaid.x", "blockIdx.x" }, { "ctaid.y", "blockIdx.y" }, { "ctaid.z", "blockIdx.z" },
		{ "nctaid.x", "gridDim.x" }, { "nctaid.y", "gridDim.y" }, { "nctaid.z", "gridDim.z" },
	};
	if (text[0] == '\x01') {	/* %% in an extended asm, % in a basic one: a PTX register */
		for (size_t k = 0; k < sizeof specials / sizeof specials[0]; k++)
			if (strcmp(text + 1, specials[k][0]) == 0) {
				sb_puts(s, specials[k][1]);
				return 0;
			}
		return ptx_fail(st, "the PTX register %%%s cannot be read in the CPU emulator", text + 1);
	}
	if (text[0] == '%' && st->extended) {
		int n = operand_index(st, text);
		if (n < 0)
			return ptx_fail(st, "the asm operand %s does not exist", text);
		sb_printf(s, "cuemu_p%d_", n);
		return 0;
	}
	if (ptx_reg(st, text) >= 0) {
		sb_printf(s, "cuemu_r_%s_", text);
		return 0;
	}
	if (isdigit((unsigned char)text[0]) || (text[0] == '-' && isdigit((unsigned char)text[1]))) {
		for (const char *p = text + 1; *p; p++)
			if (!isxdigit((unsigned char)*p) && *p != 'x' && *p != 'X')
				return ptx_fail(st, "the PTX operand %s cannot be read in the CPU emulator", text);
		sb_puts(s, text);
		return 0;
	}
	return ptx_fail(st, "the PTX operand %s cannot be read in the CPU emulator", text);
}

/* The constraint of the operand that text names ('r' when it is none). */
static char kind_of(const struct stmt *st, const char *text)
{
	int n = st->extended ? operand_index(st, text) : -1, r = ptx_reg(st, text);
	return r >= 0 ? st->reg[r].kind : n < 0 ? 'r' : st->op[n].kind;
}

/* The C++ type of a PTX type suffix; .b32/.b64 follow the register's kind. */
const char *ptx_ctype(const char *t, char kind)
{
	static const char *const types[][2] = {
		{ "u8", "unsigned char" }, { "s8", "signed char" }, { "b8", "unsigned char" },
		{ "u16", "unsigned short" }, { "s16", "short" }, { "b16", "unsigned short" },
		{ "u32", "unsigned int" }, { "s32", "int" }, { "u64", "unsigned long long" },
		{ "s64", "long long" }, { "f32", "float" }, { "f64", "double" },
	};
	if (strcmp(t, "b32") == 0)
		return kind == 'f' ? "float" : "unsigned int";
	if (strcmp(t, "b64") == 0)
		return kind == 'd' ? "double" : "unsigned long long";
	for (size_t k = 0; k < sizeof types / sizeof types[0]; k++)
		if (strcmp(t, types[k][0]) == 0)
			return types[k][1];
	return NULL;
}

/* The address of "[%1]", "[%1+8]", as a const char *. */
static int put_address(struct stmt *st, struct sb *s, const char *text)
{
	size_t n = strlen(text);
	if (n < 3 || text[0] != '[' || text[n - 1] != ']')
		return ptx_fail(st, "the PTX operand %s is no address the CPU emulator can read", text);
	char base[64], *plus;
	snprintf(base, sizeof base, "%.*s", (int)(n - 2), text + 1);
	long offset = 0;
	if ((plus = strchr(base, '+')) != NULL) {
		char *end;
		offset = strtol(plus + 1, &end, 0);
		if (*end)
			return ptx_fail(st, "the PTX address %s cannot be read in the CPU emulator", text);
		*plus = 0;
	}
	if (base[0] != '%')
		return ptx_fail(st, "the PTX address %s cannot be read in the CPU emulator: give the address "
			    "as an operand", text);
	/* A 32-bit address (a shared window offset from __cvta_generic_to_shared)
	 * is no pointer here. */
	if (kind_of(st, base) != 'l')
		return ptx_fail(st, "the PTX address %s cannot be read in the CPU emulator: pass the "
			    "pointer itself as a 64-bit operand (\"l\")", text);
	sb_puts(s, "((const char *)(uintptr_t)(");
	if (put_value(st, s, base) < 0)
		return -1;
	sb_printf(s, ") + %ld)", offset);
	return 0;
}

/* " D = cuemu_ptx_as_<D's type>(": the assignment of a result to its
 * output operand, in the student's function (an output may be memory: the
 * store is then traced like any other). */
static int put_assign(struct stmt *st, const char *reg)
{
	struct sb r = { 0 };
	if (put_value(st, &r, reg) < 0) {
		free(sb_take(&r));
		return -1;
	}
	char *d = sb_take(&r);
	if (!d)
		return -1;
	sb_printf(&st->out, " %s = cuemu_ptx_as_<std::remove_reference_t<decltype(%s)>>(", d, d);
	free(d);
	return 0;
}

/* ---- instructions ------------------------------------------------------------------------------ */

struct insn {
	char text[256];		/* for messages */
	char opcode[64];	/* the instruction's name, as written */
	char *part[12];		/* the opcode's dotted parts */
	int n_parts;
	char *arg[8];		/* operands */
	int n_args;
	char buf[512];
};

static int has_part(const struct insn *in, const char *p)
{
	for (int k = 1; k < in->n_parts; k++)
		if (strcmp(in->part[k], p) == 0)
			return 1;
	return 0;
}

/* Parts other than those in `allowed` (and cache hints "L1::...") refuse the instruction. */
static int only_parts(struct stmt *st, const struct insn *in, const char *const *allowed)
{
	for (int k = 1; k < in->n_parts; k++) {
		int ok = strstr(in->part[k], "::") != NULL;
		for (int a = 0; !ok && allowed[a]; a++)
			ok = strcmp(in->part[k], allowed[a]) == 0;
		if (!ok)
			return ptx_fail(st, "the PTX instruction '%s' cannot run in the CPU emulator", in->opcode);
	}
	return 0;
}

static const char *type_part(const struct insn *in)
{
	return in->n_parts > 1 ? in->part[in->n_parts - 1] : "";
}

/* The registers of "{%0, %1}" (or of one "%0") into regs; returns their count. */
static int vector_regs(char *text, char **regs, int max)
{
	int n = 0;
	if (text[0] != '{') {
		regs[0] = text;
		return 1;
	}
	text[strlen(text) - 1] = 0;
	for (char *p = strtok(text + 1, ","); p && n < max; p = strtok(NULL, ",")) {
		while (isspace((unsigned char)*p))
			p++;
		char *e = p + strlen(p);
		while (e > p && isspace((unsigned char)e[-1]))
			*--e = 0;
		regs[n++] = p;
	}
	return n;
}

static int load_store(struct stmt *st, struct insn *in, int store)
{
	static const char *const load_parts[] = { "global", "shared", "ca", "cg", "cs", "lu", "cv", "nc",
						  "volatile", "v2", "v4", "u8", "s8", "b8", "u16",
						  "s16", "b16", "u32", "s32", "b32", "u64", "s64",
						  "b64", "f32", "f64", NULL };
	static const char *const store_parts[] = { "global", "shared", "wb", "cg", "cs", "wt", "volatile",
						   "v2", "v4", "u8", "s8", "b8", "u16", "s16", "b16",
						   "u32", "s32", "b32", "u64", "s64", "b64", "f32",
						   "f64", NULL };
	if (only_parts(st, in, store ? store_parts : load_parts) < 0)
		return -1;
	if (in->n_args != 2)
		return ptx_fail(st, "the PTX instruction '%s' has operands the CPU emulator cannot read", in->text);
	char *regs[4] = { NULL, NULL, NULL, NULL };
	int n = vector_regs(in->arg[store ? 1 : 0], regs, 4);
	int want = has_part(in, "v4") ? 4 : has_part(in, "v2") ? 2 : 1;
	const char *t = ptx_ctype(type_part(in), kind_of(st, regs[0]));
	if (!t || n != want)
		return ptx_fail(st, "the PTX instruction '%s' has operands the CPU emulator cannot read", in->text);
	struct sb *s = &st->out;
	sb_printf(s, " { typedef cuemu_ptx_vec_<%s, %d> cuemu_v_t_; %scuemu_v_t_ *cuemu_a_ = (%scuemu_v_t_ *)", t, n,
		  store ? "" : "const ", store ? "" : "const ");
	if (put_address(st, s, in->arg[store ? 0 : 1]) < 0)
		return -1;
	sb_puts(s, ";");
	if (store) {
		sb_puts(s, " cuemu_v_t_ cuemu_v_ = {{");
		for (int k = 0; k < n; k++) {
			sb_printf(s, "%s(%s)(", k ? ", " : "", t);
			if (put_value(st, s, regs[k]) < 0)
				return -1;
			sb_puts(s, ")");
		}
		sb_puts(s, "}}; *cuemu_a_ = cuemu_v_; }");
		return 0;
	}
	sb_puts(s, " cuemu_v_t_ cuemu_v_ = *cuemu_a_;");
	for (int k = 0; k < n; k++) {
		if (put_assign(st, regs[k]) < 0)
			return -1;
		sb_printf(s, "cuemu_v_.v[%d]);", k);
	}
	sb_puts(s, " }");
	return 0;
}

/* "op d, a, b..." as d = cuemu_ptx_as_<...>(EXPR) where fmt holds EXPR with
 * %1.. standing for the instruction's operands after d, each cast to cast. */
static int put_result(struct stmt *st, struct insn *in, int args, const char *fmt, const char *cast)
{
	if (in->n_args != args)
		return ptx_fail(st, "the PTX instruction '%s' has operands the CPU emulator cannot read", in->text);
	struct sb *s = &st->out;
	if (put_assign(st, in->arg[0]) < 0)
		return -1;
	for (const char *p = fmt; *p; p++) {
		if (*p != '%' || !isdigit((unsigned char)p[1])) {
			sb_printf(s, "%c", *p);
			continue;
		}
		int k = *++p - '0';
		if (cast && *cast)
			sb_printf(s, "(%s)(", cast);
		else
			sb_puts(s, "(");
		if (put_value(st, s, in->arg[k]) < 0)
			return -1;
		sb_puts(s, ")");
	}
	sb_puts(s, ");");
	return 0;
}

static int translate(struct stmt *st, struct insn *in)
{
	const char *op = in->part[0], *t = type_part(in);
	int is64 = strcmp(t, "b64") == 0 || strcmp(t, "u64") == 0 || strcmp(t, "s64") == 0;
	const char *word = is64 ? "unsigned long long" : "unsigned int";
	if (strcmp(op, "ld") == 0)
		return load_store(st, in, 0);
	if (strcmp(op, "st") == 0)
		return load_store(st, in, 1);
	if (strcmp(op, "prefetch") == 0 || strcmp(op, "prefetchu") == 0) {
		static const char *const parts[] = { "global", "L1", "L2", NULL };
		if (only_parts(st, in, parts) < 0 || in->n_args != 1)
			return -1;
		sb_puts(&st->out, " (void)");
		return put_address(st, &st->out, in->arg[0]) < 0 ? -1 : (sb_puts(&st->out, ";"), 0);
	}
	if (strcmp(op, "shfl") == 0) {
		static const char *const parts[] = { "sync", "up", "down", "bfly", "idx", "b32", NULL };
		static const char *const modes[][2] = { { "up", "__shfl_up_sync" }, { "down", "__shfl_down_sync" },
							{ "bfly", "__shfl_xor_sync" }, { "idx", "__shfl_sync" } };
		if (only_parts(st, in, parts) < 0)
			return -1;
		char *pred = in->n_args ? strchr(in->arg[0], '|') : NULL;
		if (pred)
			*pred++ = 0;	/* d|p: p says whether the source lane was in range */
		if (!has_part(in, "sync") || (pred && kind_of(st, pred) != 'p'))
			return ptx_fail(st, "the PTX instruction '%s' cannot run in the CPU emulator: write "
				    "shfl.sync.MODE.b32 d[|p], a, b, c, mask (p a .reg .pred)", in->text);
		for (size_t k = 0; k < 4; k++)
			if (has_part(in, modes[k][0])) {
				char fmt[128];
				snprintf(fmt, sizeof fmt, "%s((unsigned int)%%4, %%1, (unsigned int)%%2, "
					 "32 - (int)(((unsigned int)%%3 >> 8) & 31))", modes[k][1]);
				if (put_result(st, in, 5, fmt, NULL) < 0)
					return -1;
				if (!pred)
					return 0;
				snprintf(fmt, sizeof fmt, "cuemu_ptx_shfl_in_range_(%d, %%2, %%3)", (int)k);
				in->arg[0] = pred;
				return put_result(st, in, 5, fmt, "unsigned int");
			}
	}
	if (strcmp(op, "bar") == 0 || strcmp(op, "barrier") == 0) {
		static const char *const parts[] = { "sync", "aligned", "cta", "warp", NULL };
		if (only_parts(st, in, parts) < 0)
			return -1;
		if (has_part(in, "warp") && in->n_args == 1) {
			sb_puts(&st->out, " __syncwarp((unsigned int)(");
			return put_value(st, &st->out, in->arg[0]) < 0 ? -1 : (sb_puts(&st->out, "));"), 0);
		}
		if (has_part(in, "sync") && in->n_args == 1 && strcmp(in->arg[0], "0") == 0) {
			sb_puts(&st->out, " __syncthreads();");
			return 0;
		}
		return ptx_fail(st, "the PTX instruction '%s' cannot run in the CPU emulator: named barriers "
			    "and thread counts are not supported; bar.sync 0 is __syncthreads()", in->text);
	}
	if (strcmp(op, "membar") == 0 || strcmp(op, "fence") == 0) {
		sb_puts(&st->out, " __threadfence();");
		return 0;
	}
	if (strcmp(op, "activemask") == 0)
		return only_parts(st, in, (const char *const[]){ "b32", NULL }) < 0
			       ? -1 : put_result(st, in, 1, "__activemask()", NULL);
	if (strcmp(op, "mov") == 0) {
		static const char *const parts[] = { "u16", "s16", "b16", "u32", "s32", "b32", "u64", "s64",
						     "b64", "f32", "f64", NULL };
		if (only_parts(st, in, parts) < 0 || in->n_args != 2 || in->arg[1][0] == '{' ||
		    in->arg[0][0] == '{')
			return in->n_args != 2 ? ptx_fail(st, "the PTX instruction '%s' has operands the CPU "
						      "emulator cannot read", in->text) : -1;
		return put_result(st, in, 2, "%1", ptx_ctype(t, kind_of(st, in->arg[1])));
	}
	if (strcmp(op, "brev") == 0 || strcmp(op, "popc") == 0 || strcmp(op, "clz") == 0) {
		static const char *const parts[] = { "b32", "b64", NULL };
		char fmt[64];
		if (only_parts(st, in, parts) < 0 || in->n_parts != 2)
			return -1;
		snprintf(fmt, sizeof fmt, "__%s%s(%%1)", op, is64 ? "ll" : "");
		return put_result(st, in, 2, fmt, is64 && strcmp(op, "clz") == 0 ? "long long" : word);
	}
	if (strcmp(op, "bfe") == 0) {
		static const char *const parts[] = { "u32", "s32", "u64", "s64", NULL };
		char fmt[128];
		if (only_parts(st, in, parts) < 0 || in->n_parts != 2)
			return -1;
		snprintf(fmt, sizeof fmt, "cuemu_ptx_bfe_<%s>((%s)%%1, (unsigned int)%%2, (unsigned int)%%3)",
			 ptx_ctype(t, 'r'), ptx_ctype(t, 'r'));
		return put_result(st, in, 4, fmt, NULL);
	}
	if (strcmp(op, "bfi") == 0) {
		static const char *const parts[] = { "b32", "b64", NULL };
		char fmt[160];
		if (only_parts(st, in, parts) < 0 || in->n_parts != 2)
			return -1;
		snprintf(fmt, sizeof fmt, "cuemu_ptx_bfi_<%s>((%s)%%1, (%s)%%2, (unsigned int)%%3, "
			 "(unsigned int)%%4)", word, word, word);
		return put_result(st, in, 5, fmt, NULL);
	}
	if (strcmp(op, "add") == 0 || strcmp(op, "sub") == 0 || strcmp(op, "min") == 0 ||
	    strcmp(op, "max") == 0 || strcmp(op, "and") == 0 || strcmp(op, "or") == 0 ||
	    strcmp(op, "xor") == 0 || strcmp(op, "mul") == 0) {
		static const char *const parts[] = { "lo", "u32", "s32", "b32", "u64", "s64", "b64", "f32",
						     "f64", "pred", NULL };
		static const char *const forms[][2] = { { "add", "%1 + %2" }, { "sub", "%1 - %2" },
							{ "min", "%1 < %2 ? %1 : %2" },
							{ "max", "%1 > %2 ? %1 : %2" }, { "and", "%1 & %2" },
							{ "or", "%1 | %2" }, { "xor", "%1 ^ %2" },
							{ "mul", "%1 * %2" } };
		const char *ct = ptx_ctype(t, t[0] == 'f' ? (strcmp(t, "f64") ? 'f' : 'd') : 'r');
		if (only_parts(st, in, parts) < 0)
			return -1;
		if (strcmp(t, "pred") == 0)
			ct = "bool";
		if (!ct || (strcmp(op, "mul") == 0 && t[0] != 'f' && !has_part(in, "lo")))
			return ptx_fail(st, "the PTX instruction '%s' cannot run in the CPU emulator", in->opcode);
		for (size_t k = 0; k < sizeof forms / sizeof forms[0]; k++)
			if (strcmp(op, forms[k][0]) == 0) {
				char fmt[64];
				snprintf(fmt, sizeof fmt, "(%s)(%s)", ct, forms[k][1]);
				return put_result(st, in, 3, fmt, ct);
			}
	}
	if (strcmp(op, "prmt") == 0)
		return only_parts(st, in, (const char *const[]){ "b32", NULL }) < 0
			       ? -1 : put_result(st, in, 4, "__byte_perm(%1, %2, %3)", "unsigned int");
	if (strcmp(op, "lop3") == 0)
		return only_parts(st, in, (const char *const[]){ "b32", NULL }) < 0
			       ? -1 : put_result(st, in, 5, "cuemu_ptx_lop3_(%1, %2, %3, %4)", "unsigned int");
	return ptx_fail(st, "the PTX instruction '%s' cannot run in the CPU emulator: it runs ld, st, "
		    "prefetch, shfl.sync, bar.sync, activemask, brev, bfe, bfi, prmt, lop3, popc, clz, "
		    "membar, mov, add, sub, mul.lo, min, max, and, or, xor", in->opcode);
}

/* Splits one instruction's text into its opcode's parts and operands. */
static int split(struct insn *in, const char *text)
{
	memset(in, 0, sizeof *in);
	snprintf(in->text, sizeof in->text, "%s", text);
	for (char *p = in->text; *p; p++)
		if (*p == '\x01')
			*p = '%';
	snprintf(in->buf, sizeof in->buf, "%s", text);
	char *p = in->buf;
	char *args = p + strcspn(p, " \t");
	if (*args)
		*args++ = 0;
	snprintf(in->opcode, sizeof in->opcode, "%.63s", p);
	for (char *q = strtok(p, "."); q && in->n_parts < 12; q = strtok(NULL, "."))
		in->part[in->n_parts++] = q;
	/* Operands: commas outside {} and [] */
	int depth = 0;
	char *start = args;
	for (char *q = args;; q++) {
		if (*q == '{' || *q == '[')
			depth++;
		else if (*q == '}' || *q == ']')
			depth--;
		if ((*q == ',' && depth == 0) || !*q) {
			int end = !*q;
			*q = 0;
			while (isspace((unsigned char)*start))
				start++;
			char *e = start + strlen(start);
			while (e > start && isspace((unsigned char)e[-1]))
				*--e = 0;
			if (*start && in->n_args < 8)
				in->arg[in->n_args++] = start;
			start = q + 1;
			if (end)
				break;
		}
	}
	return in->n_parts ? 0 : -1;
}

void ptx_translate(struct stmt *st, const char *text)
{
	struct insn in;
	if (split(&in, text) == 0)
		translate(st, &in);
}
