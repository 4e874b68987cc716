/*
 * What the student's object file defines and calls. A submission may call
 * only what the rubric allows (the CUDA runtime, basic C library calls) and
 * may define only its own symbols: defining a library function (say
 * cudaEventElapsedTime, to fake a timing) is refused like calling CUB.
 */
#ifndef GRADER_INTEGRITY_H
#define GRADER_INTEGRITY_H

#include "steps/grade.h"
#include "steps/rubric.h"

/* Adds the integrity test to g. Returns 1 if the submission may run. */
int integrity_check(const struct rubric *r, enum backend backend, const char *student_obj,
		    struct grade *g);

/* For tests: the verdict on one symbol. defined: the object defines it.
 * Returns NULL when allowed, else a reason ("calls a forbidden function"). */
const char *integrity_judge(const struct rubric *r, enum backend backend, const char *symbol,
			    int defined);

#endif
