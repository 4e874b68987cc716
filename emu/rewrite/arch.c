/*
 * nvcc's two passes in one file (see arch.h).
 *
 * Both preprocessed texts are cut into top-level items: a declaration up
 * to its ';', a function definition up to its body's '}', or the opening
 * or closing line of a namespace, class or extern "C" block (whose members
 * are items of their own, so that a member function is one too). An item's
 * key is its text, or for a function the text of its head (so that the two
 * versions of a function whose body differs are one item). The item lists
 * are aligned by key; the host text is then copied with these changes:
 *
 *   - a function whose body differs between the passes gets the device
 *     pass's body if it is device code only (__global__, or __device__
 *     without __host__), and for __host__ __device__ a body that chooses:
 *     { if (cuemu_in_device_code()) DEVICE-BODY else HOST-BODY }
 *     A host function keeps its body.
 *   - an item only in the device pass that is device code (a __device__
 *     function or variable, a kernel) is put where the device pass has it.
 *
 * Line markers around every piece taken from the device pass keep the
 * student's files and lines, for messages and for the per-line figures.
 */
#include "arch.h"

#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../runtime/sb.h"
#include "lex.h"

enum { Q_GLOBAL = 1, Q_DEVICE = 2, Q_HOST = 4, Q_DEVICE_DATA = 8 };

struct item {
	size_t first, last;	/* tokens, inclusive */
	size_t open, close;	/* a function's body braces (open == 0: no function) */
	uint64_t key, body;	/* hashes of the key text and of the body */
	int quals;
	long match;		/* the other pass's item, or -1 */
};

struct pass {
	const char *src;
	size_t len;
	struct tokens tk;
	struct item *items;
	size_t n, cap;
	int *line;		/* per token: its line in its file */
	size_t *marker;		/* per token: the line marker in force (a token index), or SIZE_MAX */
};

static int tis(const struct pass *p, size_t i, const char *text)
{
	return i < p->tk.n && tk_is(p->src, &p->tk.v[i], text);
}

static enum tk kind(const struct pass *p, size_t i)
{
	return p->tk.v[i < p->tk.n ? i : p->tk.n - 1].kind;
}

/* The line and file of every token, from the line markers. */
static int locate(struct pass *p)
{
	p->line = malloc(p->tk.n * sizeof *p->line);
	p->marker = malloc(p->tk.n * sizeof *p->marker);
	if (!p->line || !p->marker)
		return -1;
	int delta = 0;
	size_t marker = SIZE_MAX;
	for (size_t i = 0; i < p->tk.n; i++) {
		const struct token *t = &p->tk.v[i];
		p->line[i] = t->line + delta;
		p->marker[i] = marker;
		if (t->kind != TK_DIRECTIVE)
			continue;
		const char *s = p->src + t->start + 1, *end = p->src + t->end;
		while (s < end && (*s == ' ' || *s == '\t'))
			s++;
		if (end - s > 4 && strncmp(s, "line", 4) == 0)
			s += 4;
		while (s < end && (*s == ' ' || *s == '\t'))
			s++;
		if (s < end && isdigit((unsigned char)*s)) {
			delta = (int)strtol(s, NULL, 10) - (t->line + 1);
			marker = i;
		}
	}
	return 0;
}

/* The token after the bracket group opening at i. */
static size_t skip_group(const struct pass *p, size_t i)
{
	int depth = 0;
	for (; kind(p, i) != TK_END; i++) {
		if (tis(p, i, "(") || tis(p, i, "[") || tis(p, i, "{"))
			depth++;
		else if ((tis(p, i, ")") || tis(p, i, "]") || tis(p, i, "}")) && --depth == 0)
			return i + 1;
	}
	return i;
}

enum { OPAQUE, TRANSPARENT, FUNCTION };

/* What the '{' at token i opens, for the item that started at token a. */
static int classify(const struct pass *p, size_t a, size_t i, int *quals)
{
	int parens = 0, equals = 0, type = 0, ns = 0, en = 0;
	*quals = 0;
	for (size_t k = a; k < i; k++) {
		if (tis(p, k, "(") || tis(p, k, "[")) {
			parens += tis(p, k, "(");
			k = skip_group(p, k) - 1;
		} else if (tis(p, k, "template") && tis(p, k + 1, "<")) {
			int depth = 0;	/* template <class T>: its class is no class */
			for (k++; kind(p, k) != TK_END; k++) {
				if (tis(p, k, "("))
					k = skip_group(p, k) - 1;
				else if (tis(p, k, "<"))
					depth++;
				else if (tis(p, k, ">") && --depth == 0)
					break;
			}
		} else if (tis(p, k, "=")) {
			equals = 1;
		} else if (tis(p, k, "namespace")) {
			ns = 1;
		} else if (tis(p, k, "enum")) {
			en = 1;
		} else if (!parens && (tis(p, k, "struct") || tis(p, k, "class") || tis(p, k, "union"))) {
			type = 1;
		} else if (tis(p, k, "__global__")) {
			*quals |= Q_GLOBAL;
		} else if (tis(p, k, "__device__")) {
			*quals |= Q_DEVICE;
		} else if (tis(p, k, "__host__")) {
			*quals |= Q_HOST;
		}
	}
	/* extern "C" { ... }, not extern "C" void f() { ... } */
	if (ns || (tis(p, a, "extern") && kind(p, a + 1) == TK_STRING && i == a + 2))
		return TRANSPARENT;
	if (en || equals)
		return OPAQUE;
	if (type)
		return TRANSPARENT;
	return parens ? FUNCTION : OPAQUE;
}

static uint64_t hash_tokens(const struct pass *p, size_t a, size_t b)
{
	uint64_t h = 1469598103934665603ull;
	for (size_t k = a; k <= b && k < p->tk.n; k++) {
		const struct token *t = &p->tk.v[k];
		if (t->kind == TK_DIRECTIVE)
			continue;
		for (size_t c = t->start; c < t->end; c++)
			h = (h ^ (unsigned char)p->src[c]) * 1099511628211ull;
		h = (h ^ 0x1f) * 1099511628211ull;
	}
	return h;
}

/* The device qualifiers among tokens [a, b] (an item that is no function). */
static int data_quals(const struct pass *p, size_t a, size_t b)
{
	int q = 0;
	for (size_t k = a; k <= b; k++) {
		if (tis(p, k, "__device__") || tis(p, k, "__constant__") || tis(p, k, "__managed__") ||
		    tis(p, k, "__global__"))
			q |= Q_DEVICE_DATA;
		else if (tis(p, k, "__host__"))
			q |= Q_HOST;
	}
	return q;
}

static int add_item(struct pass *p, size_t first, size_t last, size_t open, size_t close, int quals)
{
	if (p->n == p->cap) {
		size_t cap = p->cap ? 2 * p->cap : 1024;
		struct item *v = realloc(p->items, cap * sizeof *v);
		if (!v)
			return -1;
		p->items = v;
		p->cap = cap;
	}
	struct item *it = &p->items[p->n++];
	*it = (struct item){ first, last, open, close, 0, 0, quals, -1 };
	if (open) {
		it->key = hash_tokens(p, first, open - 1);
		it->body = hash_tokens(p, open, close);
	} else {
		it->key = hash_tokens(p, first, last);
		it->quals = data_quals(p, first, last);
	}
	return 0;
}

static int segment(struct pass *p)
{
	const size_t none = SIZE_MAX;
	size_t start = none, i = 0;
	while (kind(p, i) != TK_END) {
		if (kind(p, i) == TK_DIRECTIVE) {
			i++;
			continue;
		}
		if (start == none)
			start = i;
		int q, rc = 0;
		if (tis(p, i, "(") || tis(p, i, "[")) {
			i = skip_group(p, i);
			continue;
		}
		if (tis(p, i, "{")) {
			int k = classify(p, start, i, &q);
			if (k == TRANSPARENT) {
				rc = add_item(p, start, i, 0, 0, 0);
				i++;
			} else {
				size_t close = skip_group(p, i) - 1;
				if (k == FUNCTION)
					rc = add_item(p, start, close, i, close, q);
				i = close + 1;
				if (k != FUNCTION)
					continue;
			}
			start = none;
		} else if (tis(p, i, "}") || tis(p, i, ";")) {
			rc = add_item(p, start, i, 0, 0, 0);
			start = none;
			i++;
		} else {
			i++;
		}
		if (rc < 0)
			return -1;
	}
	if (start != none && add_item(p, start, i - 1, 0, 0, 0) < 0)
		return -1;
	return 0;
}

/* Items i of h and j of d agree, and so do the next ones (a lone "}" or
 * ";" would agree anywhere). */
static int agree(const struct pass *h, size_t i, const struct pass *d, size_t j)
{
	for (size_t k = 0; k < 8 && i + k < h->n && j + k < d->n; k++)
		if (h->items[i + k].key != d->items[j + k].key)
			return 0;
	return 1;
}

/* Pairs the items of both passes that have the same key, in order. After
 * a difference, the nearest pair that agrees again, where one side may have
 * many items of its own (a header included in one pass only) and the other
 * a few. */
static void align(struct pass *h, struct pass *d)
{
	const size_t few = 64;
	size_t i = 0, j = 0;
	while (i < h->n && j < d->n) {
		if (h->items[i].key == d->items[j].key) {
			h->items[i].match = (long)j;
			d->items[j++].match = (long)i++;
			continue;
		}
		int found = 0;
		for (size_t dist = 1; !found && (i + dist < h->n || j + dist < d->n); dist++)
			for (size_t other = 0; other <= dist && other <= few && !found; other++) {
				if (i + dist < h->n && j + other < d->n && agree(h, i + dist, d, j + other)) {
					i += dist;
					j += other;
					found = 1;
				} else if (j + dist < d->n && i + other < h->n && agree(h, i + other, d, j + dist)) {
					j += dist;
					i += other;
					found = 1;
				}
			}
		if (!found)
			return;
	}
}

/* "\n# LINE "FILE"\n": the text after it is token i's line of its file. */
static void put_marker(struct sb *s, const struct pass *p, size_t i)
{
	size_t m = p->marker[i];
	sb_puts(s, "\n");
	if (m == SIZE_MAX)
		return;
	const struct token *t = &p->tk.v[m];
	const char *q = memchr(p->src + t->start, '"', t->end - t->start);
	const char *e = q ? memchr(q + 1, '"', (size_t)(p->src + t->end - q - 1)) : NULL;
	while (e && e[-1] == '\\')
		e = memchr(e + 1, '"', (size_t)(p->src + t->end - e - 1));
	if (!q || !e)
		return;
	sb_printf(s, "# %d %.*s\n", p->line[i], (int)(e - q + 1), q);
}

static void put_text(struct sb *s, const struct pass *p, size_t a, size_t b)
{
	size_t from = p->tk.v[a].start, to = p->tk.v[b].end;
	sb_printf(s, "%.*s", (int)(to - from), p->src + from);
}

/* The device pass's items before its item j that only it has and that are
 * device code, each where it stands; `before`: the host token they precede. */
static void put_device_only(struct sb *s, const struct pass *d, size_t from, size_t j,
			    const struct pass *h, size_t before)
{
	int any = 0;
	for (size_t k = from; k < j; k++) {
		const struct item *it = &d->items[k];
		int dev = it->open ? (it->quals & (Q_GLOBAL | Q_DEVICE)) && !(it->quals & Q_HOST)
				   : (it->quals & Q_DEVICE_DATA) && !(it->quals & Q_HOST);
		if (it->match >= 0 || !dev)
			continue;
		put_marker(s, d, it->first);
		put_text(s, d, it->first, it->last);
		any = 1;
	}
	if (any && before < h->tk.n)
		put_marker(s, h, before);
}

static void pass_free(struct pass *p)
{
	free(p->tk.v);
	free(p->items);
	free(p->line);
	free(p->marker);
}

char *arch_merge(const char *host, size_t host_len, const char *device, size_t device_len)
{
	struct pass h = { .src = host, .len = host_len }, d = { .src = device, .len = device_len };
	struct sb s = { 0 };
	char *out;
	if (lex(host, host_len, &h.tk) < 0 || lex(device, device_len, &d.tk) < 0 || locate(&h) < 0 ||
	    locate(&d) < 0 || segment(&h) < 0 || segment(&d) < 0) {
		s.oom = 1;
		goto err;
	}
	align(&h, &d);
	/* Host text copied up to `at`; the items after the last pair. Device
	 * items are put in only where the host has none of its own between
	 * the same pairs: a declaration that differs (a kernel whose
	 * __launch_bounds__ do) stays the host pass's, defined once. */
	size_t at = 0, next_dev = 0, next_host = 0;
	for (size_t i = 0; i < h.n; i++) {
		const struct item *it = &h.items[i];
		if (it->match < 0)
			continue;
		const struct item *dv = &d.items[it->match];
		size_t first = h.tk.v[it->first].start;
		sb_printf(&s, "%.*s", (int)(first - at), host + at);
		at = first;
		if (next_host == i)
			put_device_only(&s, &d, next_dev, (size_t)it->match, &h, it->first);
		next_dev = (size_t)it->match + 1;
		next_host = i + 1;
		if (!it->open || !dv->open || it->body == dv->body)
			continue;
		int device_only = (it->quals & (Q_GLOBAL | Q_DEVICE)) && !(it->quals & Q_HOST);
		int both = (it->quals & Q_DEVICE) && (it->quals & Q_HOST);
		if (!device_only && !both)
			continue;	/* host code: the host pass's body */
		size_t open = h.tk.v[it->open].start, close = h.tk.v[it->close].end;
		sb_printf(&s, "%.*s", (int)(open - at), host + at);
		if (both)
			sb_puts(&s, "{ if (cuemu_in_device_code()) ");
		put_marker(&s, &d, dv->open);
		put_text(&s, &d, dv->open, dv->close);
		if (both) {
			put_marker(&s, &h, it->open);
			sb_puts(&s, "else ");
			put_text(&s, &h, it->open, it->close);
			sb_puts(&s, " }");
		} else {
			put_marker(&s, &h, it->close);
		}
		at = close;
	}
	if (at < host_len)
		sb_printf(&s, "%.*s", (int)(host_len - at), host + at);
	if (next_host == h.n)
		put_device_only(&s, &d, next_dev, d.n, &h, h.tk.n);
err:
	out = sb_take(&s);	/* NULL when out of memory */
	pass_free(&h);
	pass_free(&d);
	return out;
}
