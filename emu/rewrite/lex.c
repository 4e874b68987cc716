/* Tokens of a CUDA C++ source (see lex.h). */
#include "lex.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

struct scan {
	const char *s;
	size_t len, i;
	int line;
};

static int push(struct tokens *out, enum tk kind, size_t start, size_t end, int line)
{
	if (out->n == out->cap) {
		size_t cap = out->cap ? 2 * out->cap : 1024;
		struct token *v = realloc(out->v, cap * sizeof *v);
		if (!v)
			return -1;
		out->v = v;
		out->cap = cap;
	}
	out->v[out->n++] = (struct token){ kind, start, end, line };
	return 0;
}

static int at(const struct scan *c, size_t k)
{
	return c->i + k < c->len ? (unsigned char)c->s[c->i + k] : 0;
}

static void advance(struct scan *c)
{
	if (c->i < c->len && c->s[c->i] == '\n')
		c->line++;
	c->i++;
}

/* A backslash-newline joins lines anywhere; step over it. */
static void skip_splices(struct scan *c)
{
	while (at(c, 0) == '\\' && (at(c, 1) == '\n' || (at(c, 1) == '\r' && at(c, 2) == '\n'))) {
		advance(c);
		if (at(c, 0) == '\r')
			advance(c);
		advance(c);
	}
}

static void skip_comment(struct scan *c)
{
	if (at(c, 1) == '/') {
		while (c->i < c->len && at(c, 0) != '\n') {
			if (at(c, 0) == '\\' && at(c, 1) == '\n')
				advance(c);
			advance(c);
		}
		return;
	}
	advance(c);
	advance(c);
	while (c->i < c->len && !(at(c, 0) == '*' && at(c, 1) == '/'))
		advance(c);
	advance(c);
	advance(c);
}

static void skip_quoted(struct scan *c, int quote)
{
	advance(c);
	while (c->i < c->len && at(c, 0) != quote && at(c, 0) != '\n') {
		if (at(c, 0) == '\\')
			advance(c);
		advance(c);
	}
	advance(c);
}

/* R"delim( ... )delim" */
static void skip_raw_string(struct scan *c)
{
	char delim[20];
	size_t n = 0;
	advance(c);	/* R */
	advance(c);	/* " */
	while (c->i < c->len && at(c, 0) != '(' && n < sizeof delim - 1)
		delim[n++] = (char)at(c, 0), advance(c);
	delim[n] = 0;
	while (c->i < c->len) {
		if (at(c, 0) == ')' && strncmp(c->s + c->i + 1, delim, n) == 0 && at(c, n + 1) == '"') {
			for (size_t k = 0; k < n + 2; k++)
				advance(c);
			return;
		}
		advance(c);
	}
}

static void skip_directive(struct scan *c)
{
	while (c->i < c->len && at(c, 0) != '\n') {
		if (at(c, 0) == '/' && (at(c, 1) == '*' || at(c, 1) == '/')) {
			skip_comment(c);
			continue;
		}
		if (at(c, 0) == '\\' && (at(c, 1) == '\n' || at(c, 1) == '\r'))
			advance(c);
		advance(c);
	}
}

static int ident_char(int ch)
{
	return isalnum(ch) || ch == '_' || ch == '$';
}

int lex(const char *src, size_t len, struct tokens *out)
{
	struct scan c = { src, len, 0, 1 };
	int line_start = 1;	/* only blanks since the last newline: a # starts a directive */
	while (c.i < c.len) {
		skip_splices(&c);
		int ch = at(&c, 0), line = c.line;
		size_t start = c.i;
		if (ch == '\n') {
			line_start = 1;
			advance(&c);
			continue;
		}
		if (isspace(ch)) {
			advance(&c);
			continue;
		}
		if (ch == '/' && (at(&c, 1) == '/' || at(&c, 1) == '*')) {
			skip_comment(&c);
			continue;
		}
		enum tk kind;
		if (ch == '#' && line_start) {
			skip_directive(&c);
			kind = TK_DIRECTIVE;
		} else if (ch == 'R' && at(&c, 1) == '"') {
			skip_raw_string(&c);
			kind = TK_STRING;
		} else if (ident_char(ch) && !isdigit(ch)) {
			while (ident_char(at(&c, 0)))
				advance(&c);
			/* u8"..", L'x' and friends: a prefix glued to a literal */
			if (at(&c, 0) == '"' || at(&c, 0) == '\'') {
				int q = at(&c, 0);
				skip_quoted(&c, q);
				kind = q == '"' ? TK_STRING : TK_CHAR;
			} else {
				kind = TK_IDENT;
			}
		} else if (isdigit(ch) || (ch == '.' && isdigit(at(&c, 1)))) {
			while (ident_char(at(&c, 0)) || at(&c, 0) == '.' || at(&c, 0) == '\'' ||
			       ((at(&c, 0) == '+' || at(&c, 0) == '-') &&
				strchr("eEpP", c.s[c.i - 1])))
				advance(&c);
			kind = TK_NUMBER;
		} else if (ch == '"' || ch == '\'') {
			skip_quoted(&c, ch);
			kind = ch == '"' ? TK_STRING : TK_CHAR;
		} else {
			advance(&c);
			kind = TK_PUNCT;
		}
		line_start = 0;
		if (push(out, kind, start, c.i < c.len ? c.i : c.len, line) < 0)
			return -1;
	}
	return push(out, TK_END, len, len, c.line);
}

int tk_is(const char *src, const struct token *t, const char *text)
{
	size_t n = strlen(text);
	return t->end - t->start == n && memcmp(src + t->start, text, n) == 0;
}
