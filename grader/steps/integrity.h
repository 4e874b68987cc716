/*
 * What the student's object file defines and calls. A submission may call
 * what the rubric allows (stdio to stdout and stderr, memory and string
 * functions, the CUDA runtime), the math library and the ordinary pieces of
 * the C++ runtime, and nothing the rubric forbids (CUB, Thrust, files,
 * processes, sockets, dynamic loading). It may define any name of its own,
 * but none that a real library or the kit defines: a definition of
 * cudaEventElapsedTime, write or channel_send would stand in for the real
 * one. Names are never refused for their shape alone (a cudaCheck helper or
 * a namespace cuda is the student's own).
 */
#ifndef GRADER_INTEGRITY_H
#define GRADER_INTEGRITY_H

#include "steps/grade.h"
#include "steps/rubric.h"
#include "steps/symbol_set.h"

/* One symbol of the object, as nm lists it. */
struct object_symbol {
	const char *raw;	/* the linker's (mangled) name */
	const char *name;	/* demangled, what the rubric's patterns match */
	char type;		/* nm's letter: U and w are called, the rest defined */
};

struct isolation_policy;

/* Adds the integrity test to g; nm runs under tools (isolation_for_tools).
 * Returns 1 if the submission may run. */
int integrity_check(const struct rubric *r, enum backend backend, const char *student_obj,
		    const struct isolation_policy *tools, struct grade *g);

/* For tests: the verdict on one symbol, known being what the libraries and
 * the kit define (known_symbols_load). Returns NULL when allowed, else the
 * reason ("calls a forbidden function"). */
const char *integrity_judge(const struct rubric *r, enum backend backend, struct symbol_set *known,
			    const struct object_symbol *s);

#endif
