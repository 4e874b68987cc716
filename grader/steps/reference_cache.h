/*
 * The reference solution's CUDA harness, kept between grades under
 * build/reference-harness/. nvcc takes about a second and a half, which a
 * GPU grade that times the reference beside the student (one that draws
 * charts) and every batch's start paid again for the same file
 * (docs/results/gpu-2026-11-28-reference-cache/). An entry is named for a hash
 * of what it was built from: the lab, the GPU's architecture, the grader,
 * nvcc, the solution and the kit's headers, the harness's objects and the
 * kit library. A rebuilt kit or toolkit, or an edited solution, finds no
 * entry, and the harness is built as before.
 */
#ifndef GRADER_REFERENCE_CACHE_H
#define GRADER_REFERENCE_CACHE_H

#include <stddef.h>

#include "steps/device.h"
#include "labs/lab.h"

/* Where the harness of lab's solution (the file at solution) for dev's
 * architecture is kept, into kept. */
void reference_cache_path(const struct lab *lab, const struct device_info *dev, const char *solution,
			  char *kept, size_t len);

/* Copies the kept harness to harness (a new file). Returns 0, or -1 where
 * none is kept or the copy failed. */
int reference_cache_take(const char *kept, const char *harness);

/* Keeps harness as kept, whole or not at all, and removes the entries of
 * the same lab and architecture that it replaces. A kit folder that cannot
 * be written keeps nothing: the next grade builds again. */
void reference_cache_keep(const char *harness, const char *kept);

#endif
