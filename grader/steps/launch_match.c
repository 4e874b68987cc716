/* The emulator's launches against the GPU's (see launch_match.h). */
#include "steps/launch_match.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

/* Drops what lies between balanced open and close characters (template
 * arguments, parameters), the brackets included. */
static void drop_nested(const char *in, char *out, size_t len, char open, char close)
{
	size_t o = 0;
	int depth = 0;
	for (; *in && o + 1 < len; in++) {
		if (*in == open)
			depth++;
		else if (*in == close && depth > 0)
			depth--;
		else if (depth == 0)
			out[o++] = *in;
	}
	out[o] = '\0';
}

void launch_base_name(const char *in, char *out, size_t len)
{
	char a[256], b[256];
	drop_nested(in, a, sizeof a, '<', '>');
	drop_nested(a, b, sizeof b, '(', ')');
	/* The last identifier: after any return type ("void k") and any scope ("ns::k"). */
	size_t end = strlen(b);
	while (end > 0 && !(isalnum((unsigned char)b[end - 1]) || b[end - 1] == '_'))
		end--;
	size_t start = end;
	while (start > 0 && (isalnum((unsigned char)b[start - 1]) || b[start - 1] == '_'))
		start--;
	snprintf(out, len, "%.*s", (int)(end - start), b + start);
}

/* A name neither side could tell (a runtime without cudaFuncGetName) is
 * no difference: the configuration still is compared. */
static int same_config(const struct launch_entry *a, const struct launch_entry *b)
{
	return (!a->name[0] || !b->name[0] || strcmp(a->name, b->name) == 0) && memcmp(a->grid, b->grid, sizeof a->grid) == 0 &&
	       memcmp(a->block, b->block, sizeof a->block) == 0 && a->dynamic_shared == b->dynamic_shared;
}

void launch_list_add(struct launch_list *l, const char *name, const unsigned grid[3],
		     const unsigned block[3], size_t dynamic_shared, long count)
{
	struct launch_entry e = { .dynamic_shared = dynamic_shared, .count = count };
	launch_base_name(name, e.name, sizeof e.name);
	memcpy(e.grid, grid, sizeof e.grid);
	memcpy(e.block, block, sizeof e.block);
	for (int i = 0; i < l->n; i++)
		if (same_config(&l->e[i], &e)) {
			l->e[i].count += count;
			return;
		}
	if (l->n == LAUNCH_MATCH_MAX) {
		l->overflow = 1;
		return;
	}
	l->e[l->n++] = e;
}

/* A [x, y, z] array, or a plain number (x, 1, 1). */
static int dims(const json_t *v, unsigned out[3])
{
	out[0] = out[1] = out[2] = 1;
	if (json_is_integer(v)) {
		out[0] = (unsigned)json_integer_value(v);
		return 0;
	}
	if (!json_is_array(v) || json_array_size(v) != 3)
		return -1;
	for (int i = 0; i < 3; i++) {
		if (!json_is_integer(json_array_get(v, (size_t)i)))
			return -1;
		out[i] = (unsigned)json_integer_value(json_array_get(v, (size_t)i));
	}
	return 0;
}

int launch_list_from_metrics(const json_t *metrics, struct launch_list *l)
{
	memset(l, 0, sizeof *l);
	const json_t *launches = json_object_get(metrics, "launches"), *one;
	size_t i;
	if (!json_is_array(launches))
		return -1;
	json_array_foreach(launches, i, one) {
		unsigned grid[3], block[3];
		const char *name = json_string_value(json_object_get(one, "kernel"));
		const json_t *shared = json_object_get(one, "dynamic_shared_bytes");
		if (!name || dims(json_object_get(one, "grid"), grid) < 0 ||
		    dims(json_object_get(one, "block"), block) < 0 || !json_is_integer(shared))
			return -1;
		launch_list_add(l, name, grid, block, (size_t)json_integer_value(shared), 1);
	}
	return 0;
}

int launch_list_from_log(const json_t *launches, int overflow, struct launch_list *l)
{
	memset(l, 0, sizeof *l);
	l->overflow = overflow;
	const json_t *one;
	size_t i;
	if (!json_is_array(launches))
		return -1;
	json_array_foreach(launches, i, one) {
		unsigned grid[3], block[3];
		const char *name = json_string_value(json_object_get(one, "name"));
		const json_t *shared = json_object_get(one, "dynamic_shared"), *count = json_object_get(one, "count");
		if (!name)
			name = json_string_value(json_object_get(one, "kernel"));
		if (!name || dims(json_object_get(one, "grid_dims"), grid) < 0 ||
		    dims(json_object_get(one, "block_dims"), block) < 0 || !json_is_integer(shared) ||
		    !json_is_integer(count))
			return -1;
		launch_list_add(l, name, grid, block, (size_t)json_integer_value(shared), json_integer_value(count));
	}
	return 0;
}

static const char *describe(const struct launch_entry *e, char *buf, size_t len)
{
	snprintf(buf, len, "%s<<<(%u, %u, %u), (%u, %u, %u), %zu>>>", e->name, e->grid[0], e->grid[1],
		 e->grid[2], e->block[0], e->block[1], e->block[2], e->dynamic_shared);
	return buf;
}

static const struct launch_entry *find(const struct launch_list *l, const struct launch_entry *e)
{
	for (int i = 0; i < l->n; i++)
		if (same_config(&l->e[i], e))
			return &l->e[i];
	return NULL;
}

/* The first launch of a that b lacks or has a different number of times. */
static int one_way(const struct launch_list *a, const char *a_name, const struct launch_list *b,
		   const char *b_name, char *why, size_t len)
{
	char d[256];
	for (int i = 0; i < a->n; i++) {
		const struct launch_entry *other = find(b, &a->e[i]);
		if (!other) {
			snprintf(why, len, "%s launched %s (%ld time%s), which %s never launched", a_name,
				 describe(&a->e[i], d, sizeof d), a->e[i].count, a->e[i].count == 1 ? "" : "s",
				 b_name);
			return 1;
		}
		if (other->count != a->e[i].count) {
			snprintf(why, len, "%s launched %s %ld time%s, %s %ld", a_name, describe(&a->e[i], d, sizeof d),
				 a->e[i].count, a->e[i].count == 1 ? "" : "s", b_name, other->count);
			return 1;
		}
	}
	return 0;
}

int launch_lists_other(const struct launch_list *a, const char *a_name, const struct launch_list *b,
		       const char *b_name, char *why, size_t len)
{
	if (a->overflow || b->overflow) {
		snprintf(why, len, "%s made more than %d different launch configurations, too many to compare",
			 a->overflow ? a_name : b_name, LAUNCH_MATCH_MAX);
		return 1;
	}
	return one_way(a, a_name, b, b_name, why, len) || one_way(b, b_name, a, a_name, why, len);
}

int launch_lists_differ(const struct launch_list *emu, const struct launch_list *gpu, char *why, size_t len)
{
	return launch_lists_other(emu, "the emulator", gpu, "the GPU", why, len);
}

int launch_list_within(const struct launch_list *emu, const struct launch_list *gpu)
{
	int within = emu->n > 0 && !emu->overflow && !gpu->overflow;
	for (int i = 0; within && i < emu->n; i++) {
		const struct launch_entry *other = find(gpu, &emu->e[i]);
		within = other && other->count >= emu->e[i].count;
	}
	return within;
}
