/* The sizes the prediction traces (see traced_sizes.h). */
#include "steps/traced_sizes.h"

#include <string.h>

int traced_sizes_pick(const struct rubric *r, const struct lab *lab, int pick[2])
{
	int big = -1, half = -1;
	for (int i = 0; i < r->n_emu_shapes; i++) {
		size_t n = lab->in_count(&r->emu_shapes[i]);
		if (n <= TRACED_MAX_ELEMENTS && (big < 0 || n > lab->in_count(&r->emu_shapes[big])))
			big = i;
	}
	for (int i = 0; big >= 0 && i < r->n_emu_shapes; i++) {
		size_t n = lab->in_count(&r->emu_shapes[i]);
		if (2 * n <= lab->in_count(&r->emu_shapes[big]) &&
		    (half < 0 || n > lab->in_count(&r->emu_shapes[half])))
			half = i;
	}
	int k = 0;
	if (half >= 0)
		pick[k++] = half;
	if (big >= 0)
		pick[k++] = big;
	return k;
}

/* Where size comes in traced_sizes_pick's order, or -1. */
static int place(const struct rubric *r, const struct lab *lab, int size)
{
	int pick[2], n = traced_sizes_pick(r, lab, pick);
	for (int k = 0; k < n; k++)
		if (pick[k] == size)
			return k;
	return -1;
}

int traced_sizes_has(const struct rubric *r, const struct lab *lab, int size)
{
	return place(r, lab, size) >= 0;
}

void traced_runs_keep(struct traced_runs *t, const struct rubric *r, const struct lab *lab, int size,
		      json_t *metrics)
{
	int k = place(r, lab, size);
	if (k < 0 || !metrics)
		return;
	json_decref(t->metrics[k]);
	t->metrics[k] = json_incref(metrics);
}

void traced_runs_free(struct traced_runs *t)
{
	for (int k = 0; k < 2; k++)
		json_decref(t->metrics[k]);
	json_decref(t->at_analysis_shape);
	memset(t, 0, sizeof(*t));
}
