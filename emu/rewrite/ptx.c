/*
 * Inline PTX: the common one-instruction idioms, translated at compile
 * time into the C++ that does the same (see rw.h). An asm statement
 *
 *   asm volatile("ld.global.nc.f32 %0, [%1];" : "=f"(x) : "l"(p));
 *
 * becomes one compound statement, on the asm's line:
 *
 *   { auto &cuemu_p0_ = (x); auto cuemu_p1_ = (p);
 *     ... const float *a = (const float *)((const char *)(uintptr_t)(cuemu_p1_) + 0);
 *     cuemu_p0_ = cuemu_ptx_as_<float>(*a); }
 *
 * so a load or store is the student's own access (traced, checked for
 * races, at the student's line), a shuffle or barrier is the intrinsic's
 * call from the student's function (its call site), and the rest are pure
 * helpers of cuemu_ptx.h. Operands are evaluated once, as asm's are.
 * Anything else is refused naming the instruction: the emulator never
 * runs machine code the student wrote, so asm cannot hide an access.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ptx.h"

int ptx_fail(struct stmt *st, const char *fmt, const char *what)
{
	char msg[512];
	snprintf(msg, sizeof msg, fmt, what);
	error_at(st->w, st->line, "%s", msg);
	st->failed = 1;
	return -1;
}

/* ---- parsing the statement ----------------------------------------------------------------- */

/* A string literal's characters, escapes decoded, appended to s. */
static void put_literal(struct sb *s, const struct rw *w, size_t i)
{
	const char *p = w->src + tok(w, i)->start, *end = w->src + tok(w, i)->end;
	p = memchr(p, '"', (size_t)(end - p));
	for (p = p ? p + 1 : end; p < end - 1; p++) {
		char c = *p;
		if (c == '\\' && p + 1 < end - 1) {
			c = *++p;
			c = c == 'n' ? '\n' : c == 't' ? '\t' : c == 'r' ? '\r' : c == '0' ? '\0' : c;
		}
		sb_printf(s, "%c", c ? c : ' ');
	}
}

static int parse_operand(struct stmt *st, size_t *k, size_t close, int output)
{
	struct rw *w = st->w;
	struct operand *o = &st->op[st->n];
	if (st->n == MAX_OPERANDS)
		return ptx_fail(st, "%s", "too many asm operands");
	memset(o, 0, sizeof *o);
	o->output = output;
	if (is(w, *k, "[")) {
		const struct token *t = tok(w, *k + 1);
		snprintf(o->name, sizeof o->name, "%.*s", (int)(t->end - t->start), w->src + t->start);
		*k += 3;
	}
	if (tok(w, *k)->kind != TK_STRING)
		return ptx_fail(st, "%s", "cannot read this asm operand: expected \"constraint\"(expression)");
	struct sb c = { 0 };
	put_literal(&c, w, *k);
	char *cs = sb_take(&c);
	for (const char *p = cs ? cs : ""; *p; p++) {
		if (*p == '=' || *p == '+' || *p == '&')
			o->output = o->output || *p == '+' || *p == '=';
		else if (strchr("rlfdhnc", *p) || (!output && isdigit((unsigned char)*p)))
			o->kind = *p;
		else {
			char what[8] = { *p, 0 };
			free(cs);
			return ptx_fail(st, "the asm operand constraint \"%s\" cannot run in the CPU emulator: "
				    "use registers (r, l, f, d, h) or immediates (n)", what);
		}
	}
	free(cs);
	if (!o->kind || !is(w, *k + 1, "("))
		return ptx_fail(st, "%s", "cannot read this asm operand: expected \"constraint\"(expression)");
	int depth = 0;
	size_t e = *k + 1;
	for (; e < close; e++)
		if (is(w, e, "(") || is(w, e, "[") || is(w, e, "{"))
			depth++;
		else if ((is(w, e, ")") || is(w, e, "]") || is(w, e, "}")) && --depth == 0)
			break;
	o->a = *k + 2;
	o->b = e - 1;
	if (o->b < o->a)
		return ptx_fail(st, "%s", "an asm operand without an expression");
	st->n++;
	*k = e + 1;
	if (is(w, *k, ","))
		(*k)++;
	return 0;
}

int ptx_reg(const struct stmt *st, const char *name)
{
	for (int k = 0; k < st->n_regs; k++)
		if (strcmp(st->reg[k].name, name) == 0)
			return k;
	return -1;
}

int ptx_declare(struct stmt *st, const char *text)
{
	char buf[256], type[16];
	snprintf(buf, sizeof buf, "%s", text);
	char *p = buf;
	while (isspace((unsigned char)*p))
		p++;
	size_t n = strcspn(p, " \t");
	if (*p != '.' || n < 2 || n > sizeof type)
		return ptx_fail(st, "cannot read the PTX register declaration .reg %s", text);
	snprintf(type, sizeof type, "%.*s", (int)(n - 1), p + 1);
	char kind = strcmp(type, "pred") == 0 ? 'p' : type[0] == 'f' ? (strcmp(type, "f64") ? 'f' : 'd')
			: strstr(type, "64") ? 'l' : 'r';
	const char *ct = kind == 'p' ? "bool" : ptx_ctype(type, kind);
	if (!ct || strchr(p + n, '<'))
		return ptx_fail(st, "the PTX register declaration .reg %s cannot run in the CPU emulator", text);
	for (char *q = strtok(p + n, ", \t"); q; q = strtok(NULL, ", \t")) {
		int plain = isalpha((unsigned char)*q) || *q == '_';
		for (const char *c = q; *c; c++)	/* it becomes a C++ name */
			plain = plain && (isalnum((unsigned char)*c) || *c == '_');
		if (st->n_regs == 16 || strlen(q) > 31 || !plain)
			return ptx_fail(st, "the PTX register %s cannot be declared in the CPU emulator", q);
		snprintf(st->reg[st->n_regs].name, sizeof st->reg[0].name, "%s", q);
		st->reg[st->n_regs++].kind = kind;
		sb_printf(&st->out, " %s cuemu_r_%s_ = %s;", ct, q, kind == 'p' ? "false" : "0");
	}
	return 0;
}

/* The template's instructions, one by one. */
static void translate_template(struct stmt *st, char *tmpl)
{
	/* %% (extended) or % (basic) before a register name: a PTX register. */
	struct sb clean = { 0 };
	for (char *p = tmpl; *p; p++) {
		if (*p == '/' && p[1] == '/') {
			while (*p && *p != '\n')
				p++;
			if (!*p)
				break;
		}
		if (*p == '%' && ((st->extended && p[1] == '%') || (!st->extended && isalpha((unsigned char)p[1])))) {
			sb_puts(&clean, "\x01");
			p += st->extended;
			continue;
		}
		sb_printf(&clean, "%c", *p == '\n' || *p == '\t' ? ' ' : *p);
	}
	char *text = sb_take(&clean);
	if (!text)
		return;
	char *save = NULL;
	for (char *one = strtok_r(text, ";", &save); one && !st->failed; one = strtok_r(NULL, ";", &save)) {
		while (isspace((unsigned char)*one))
			one++;
		char *e = one + strlen(one);
		while (e > one && isspace((unsigned char)e[-1]))
			*--e = 0;
		/* A { ... } block's braces: the asm's C++ block scopes its registers. */
		while (*one == '{' || isspace((unsigned char)*one))
			one++;
		int open = 0;	/* a vector operand's braces stay */
		for (const char *c = one; *c; c++)
			open += (*c == '{') - (*c == '}');
		while (e > one && (isspace((unsigned char)e[-1]) || (e[-1] == '}' && open < 0))) {
			open += *--e == '}';
			*e = 0;
		}
		if (!*one)
			continue;
		if (strncmp(one, ".reg", 4) == 0 && isspace((unsigned char)one[4])) {
			ptx_declare(st, one + 5);
			continue;
		}
		if (*one == '.') {
			ptx_fail(st, "this inline PTX cannot run in the CPU emulator: '%s' (of the directives, "
				 "only .reg is supported)", one);
			break;
		}
		if (*one == '@') {	/* @p or @!p: a predicated instruction */
			int negate = one[1] == '!';
			char pred[32];
			size_t n = strcspn(one + 1 + negate, " \t");
			snprintf(pred, sizeof pred, "%.*s", (int)(n < 31 ? n : 31), one + 1 + negate);
			int r = ptx_reg(st, pred);
			if (r < 0 || st->reg[r].kind != 'p') {
				ptx_fail(st, "the PTX predicate %s is no .reg .pred of this asm", pred);
				break;
			}
			sb_printf(&st->out, " if (%scuemu_r_%s_) {", negate ? "!" : "", pred);
			ptx_translate(st, one + 1 + negate + n + strspn(one + 1 + negate + n, " \t"));
			sb_puts(&st->out, " }");
			continue;
		}
		ptx_translate(st, one);
	}
	free(text);
}

size_t ptx_rewrite(struct rw *w, size_t i, int in_block)
{
	struct stmt st = { .w = w, .line = tok(w, i)->line };
	size_t k = i + 1;
	char name[16];
	snprintf(name, sizeof name, "%.*s", (int)(tok(w, i)->end - tok(w, i)->start), w->src + tok(w, i)->start);
	int statement = in_block && i > 0 &&
			(is(w, i - 1, ";") || is(w, i - 1, "{") || is(w, i - 1, "}") || is(w, i - 1, ")") ||
			 is(w, i - 1, ":") || is(w, i - 1, "else") || is(w, i - 1, "do") ||
			 tok(w, i - 1)->kind == TK_DIRECTIVE);
	while (is(w, k, "volatile") || is(w, k, "__volatile__") || is(w, k, "__volatile") || is(w, k, "inline"))
		k++;
	if (!statement || !is(w, k, "(")) {
		ptx_fail(&st, "inline assembly (%s) cannot run in the CPU emulator here: only asm statements "
		     "of inline PTX in function bodies are run", name);
		return i;
	}
	int depth = 0;
	size_t close = k;
	for (; tok(w, close)->kind != TK_END; close++)
		if (is(w, close, "(") || is(w, close, "[") || is(w, close, "{"))
			depth++;
		else if ((is(w, close, ")") || is(w, close, "]") || is(w, close, "}")) && --depth == 0)
			break;
	struct sb tmpl = { 0 };
	for (k++; tok(w, k)->kind == TK_STRING && k < close; k++)
		put_literal(&tmpl, w, k);
	int section = 0;
	while (k < close && !st.failed) {
		if (is(w, k, ":")) {
			section++;
			st.extended = 1;
			k++;
		} else if (section == 1 || section == 2) {
			parse_operand(&st, &k, close, section == 1);
		} else if (section == 3 && (tok(w, k)->kind == TK_STRING || is(w, k, ","))) {
			k++;
		} else {
			ptx_fail(&st, "cannot read this %s statement: expected \"template\" : outputs : inputs "
			     ": clobbers", name);
		}
	}
	char *text = sb_take(&tmpl);
	if (!st.failed && !is(w, close + 1, ";"))
		ptx_fail(&st, "inline assembly (%s) cannot run in the CPU emulator here: only asm statements "
		     "of inline PTX in function bodies are run", name);
	if (!st.failed && text) {
		sb_puts(&st.out, "{");
		for (int n = 0; n < st.n; n++) {
			const struct operand *o = &st.op[n];
			if (isdigit((unsigned char)o->kind)) {
				sb_printf(&st.out, " cuemu_p%c_ = (", o->kind);
			} else {
				sb_printf(&st.out, " auto %scuemu_p%d_ = (", o->output ? "&" : "", n);
			}
			put_span(&st.out, w, o->a, o->b);
			sb_puts(&st.out, ");");
		}
		translate_template(&st, text);
		sb_puts(&st.out, " }");
	}
	free(text);
	char *code = sb_take(&st.out);
	if (st.failed || !code) {
		free(code);
		return close;
	}
	add_edit(w, tok(w, i)->start, tok(w, close + 1)->end, code);
	return close + 1;
}
