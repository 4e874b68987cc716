/* What every step of a grade runs with: the lab, its rubric, the built
 * harness, where to work, the seed, and how children are isolated. */
#ifndef GRADER_RUN_CONTEXT_H
#define GRADER_RUN_CONTEXT_H

#include <stdint.h>

#include "labs/lab.h"
#include "steps/rubric.h"

struct run_context {
	const struct lab *lab;
	const struct rubric *rubric;
	const char *harness;	/* the linked harness to run */
	const char *work_dir;
	uint64_t seed, salt;
	int isolate;
};

#endif
