/*
 * Is the traced sample representative? A traced launch runs a few sampled
 * blocks in warp lockstep and the others plainly; a program that could tell
 * the two apart (lockstep changes the order in which lanes see each other's
 * stores) could take a good path in traced blocks only, and the analysis
 * would describe a program that does not run. So every block, traced or
 * not, notes the call sites of its memory accesses (the hooks fire anyway),
 * and the launch's JSON says whether the traced blocks executed the call
 * sites the others did ("sampling", docs/emu-metrics.md).
 *
 * Block 0 and the blocks on the last index of a grid dimension (the grid's
 * tail) may honestly run code that no other block runs (a first block's
 * set-up, a partial tile's bounds): a site that only they execute is no
 * sign of a second path.
 *
 * The cost in a block that is not traced: one look-up in a small
 * direct-mapped cache per access; only a site's first access in a block
 * reaches the table.
 */
#include <stdlib.h>

#include "internal.h"
#include "metrics.h"
#include "sb.h"

struct cov_site_cache cov_cache[COV_CACHE];

enum { ORDINARY_TRACED = 1, EDGE_TRACED = 2, ORDINARY_UNTRACED = 4, EDGE_UNTRACED = 8 };

struct cov_entry {
	uintptr_t site;		/* 0: an empty slot */
	unsigned classes;	/* which kinds of block executed it */
};

struct coverage {
	struct cov_entry *t;
	int n, cap;		/* cap a power of two */
	unsigned cls;		/* the running block's class */
	uint64_t untraced_blocks, ordinary_untraced;
};

struct coverage *coverage_begin(void)
{
	return calloc(1, sizeof(struct coverage));
}

void coverage_free(struct coverage *c)
{
	if (c)
		free(c->t);
	free(c);
}

static int on_edge(const struct launch *L)
{
	const unsigned idx[3] = { cuemu_blockIdx.x, cuemu_blockIdx.y, cuemu_blockIdx.z };
	const unsigned dim[3] = { L->grid.x, L->grid.y, L->grid.z };
	if (L->block_linear == 0)
		return 1;
	for (int i = 0; i < 3; i++)
		if (dim[i] > 1 && idx[i] == dim[i] - 1)
			return 1;
	return 0;
}

void coverage_block(const struct launch *L, int traced)
{
	struct coverage *c = L->rec ? L->rec->cov : NULL;
	rt.cov = c;
	if (!c)
		return;
	rt.cov_stamp++;
	int edge = on_edge(L);
	c->cls = traced ? (edge ? EDGE_TRACED : ORDINARY_TRACED) : (edge ? EDGE_UNTRACED : ORDINARY_UNTRACED);
	if (!traced) {
		c->untraced_blocks++;
		c->ordinary_untraced += !edge;
	}
}

static size_t hash(uintptr_t site)
{
	return (size_t)((site * 0x9e3779b97f4a7c15ull) >> 20);
}

static int grow(struct coverage *c)
{
	int cap = c->cap ? 2 * c->cap : 64;
	struct cov_entry *t = calloc((size_t)cap, sizeof *t);
	if (!t)
		return -1;
	for (int i = 0; i < c->cap; i++) {
		if (!c->t[i].site)
			continue;
		size_t j = hash(c->t[i].site) & (size_t)(cap - 1);
		while (t[j].site)
			j = (j + 1) & (size_t)(cap - 1);
		t[j] = c->t[i];
	}
	free(c->t);
	c->t = t;
	c->cap = cap;
	return 0;
}

void coverage_add(uintptr_t site)
{
	struct coverage *c = rt.cov;
	struct cov_site_cache *k = &cov_cache[COV_SLOT(site)];
	k->site = site;
	k->stamp = rt.cov_stamp;
	if ((c->n + 1) * 2 > c->cap && grow(c) < 0)
		return;
	size_t mask = (size_t)c->cap - 1, j = hash(site) & mask;
	while (c->t[j].site && c->t[j].site != site)
		j = (j + 1) & mask;
	if (!c->t[j].site) {
		c->t[j].site = site;
		c->n++;
	}
	c->t[j].classes |= c->cls;
}

/* The source lines of the sites whose classes hold a bit of has and none of
 * lacks, as a JSON array of {"file", "line"}, each line once. */
static void lines_where(struct sb *s, const struct coverage *c, unsigned has, unsigned lacks, int *count)
{
	struct { const char *file; unsigned line; } seen[64];
	int n = 0;
	sb_puts(s, "[");
	for (int i = 0; i < c->cap; i++) {
		const struct cov_entry *e = &c->t[i];
		const char *file = "?";
		unsigned line = 0;
		if (!e->site || !(e->classes & has) || (e->classes & lacks))
			continue;
		(*count)++;
		lines_lookup(e->site - 1, &file, &line);
		int dup = 0;
		for (int j = 0; j < n && !dup; j++)
			dup = seen[j].line == line && seen[j].file == file;
		if (dup || n == 64)
			continue;
		seen[n].file = file;
		seen[n].line = line;
		sb_printf(s, "%s{\"file\":", n ? "," : "");
		sb_json_string(s, file);
		sb_printf(s, ",\"line\":%u}", line);
		n++;
	}
	sb_puts(s, "]");
}

void coverage_json(struct sb *s, const struct coverage *c)
{
	int untraced_only = 0, traced_only = 0;
	struct coverage none = { 0 };
	if (!c)
		c = &none;
	sb_printf(s, "\"sampling\":{\"untraced_blocks\":%llu,\"untraced_only_lines\":",
		  (unsigned long long)c->untraced_blocks);
	lines_where(s, c, ORDINARY_UNTRACED, ORDINARY_TRACED | EDGE_TRACED, &untraced_only);
	sb_puts(s, ",\"traced_only_lines\":");
	/* Without an ordinary untraced block there is nothing to compare with. */
	lines_where(s, c, c->ordinary_untraced ? ORDINARY_TRACED : 0, ORDINARY_UNTRACED | EDGE_UNTRACED,
		    &traced_only);
	sb_printf(s, ",\"same_call_sites\":%s}", untraced_only || traced_only ? "false" : "true");
}
