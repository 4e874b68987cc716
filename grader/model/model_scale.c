/* From the traced correctness sizes to the graded size (model_scale.h). */
#include "model_scale.h"

#include <math.h>
#include <string.h>

/* The largest grid a kernel of this name had among n launches, or 0. */
static double largest_grid(const struct model_launch *l, int n, const char *kernel)
{
	double g = 0;
	for (int i = 0; l && i < n; i++)
		if (strcmp(l[i].kernel, kernel) == 0 && l[i].grid_blocks > g)
			g = l[i].grid_blocks;
	return g;
}

/* Each block does factor times the work of its traced self. */
static void more_work_per_block(struct model_launch *l, double factor)
{
	double *work[] = { &l->load_requests, &l->load_sectors, &l->load_lines, &l->load_block_sectors,
			   &l->store_requests, &l->store_sectors, &l->store_lines, &l->store_block_sectors,
			   &l->store_bytes, &l->shared_requests, &l->shared_wavefronts, &l->load_runs };
	for (size_t i = 0; i < sizeof(work) / sizeof(work[0]); i++)
		*work[i] *= factor;
	/* A block's barriers grow with its work; the one interval each block
	 * has without any does not. */
	double blocks = l->sampled_blocks > 0 ? l->sampled_blocks : 1;
	if (l->intervals > blocks)
		l->intervals = blocks + (l->intervals - blocks) * factor;
}

void model_scale_to_grid(struct model_launch *l, int n)
{
	for (int i = 0; i < n; i++) {
		double sampled = l[i].sampled_blocks, blocks = l[i].grid_blocks;
		if (l[i].traced_bytes <= 0 || l[i].grid_bytes <= 0 || sampled <= 0 || blocks <= sampled)
			continue;
		double factor = (l[i].grid_bytes / blocks) / (l[i].traced_bytes / sampled);
		if (isfinite(factor) && factor > 0)
			more_work_per_block(&l[i], factor);
	}
}

void model_scale_to_graded(struct model_launch *big, int n_big, const struct model_launch *small,
			   int n_small, double factor)
{
	for (int i = 0; i < n_big; i++) {
		double before = largest_grid(small, n_small, big[i].kernel);
		if (before == 0 || largest_grid(big, n_big, big[i].kernel) > before)
			big[i].grid_blocks *= factor;
		else
			more_work_per_block(&big[i], factor);
	}
}
