/*
 * The hash (bench_output_hash, common/bench_plan.h) of a lab's reference
 * output for an input, and the same made without the output where the lab
 * only rearranges its input (lab.h's out_position: lab 3): each input
 * word's term at the position it moves to, in the input's order. A
 * transpose of a gigabyte and a pass over its output become one pass over
 * the input, and no second gigabyte is allocated. Used by the checks of
 * timed runs (bench_check.c) and of outputs sent as digests
 * (correctness_judge.c).
 */
#ifndef GRADER_OUTPUT_HASH_H
#define GRADER_OUTPUT_HASH_H

#include <stdint.h>

#include "../labs/lab.h"

/* The hash of a rearranging lab's output for input in (lab->out_position set). */
uint64_t output_hash_placed(const struct lab *lab, const uint32_t *in, const struct shape *s);

/* Where a rearranging lab moves input word i. */
size_t output_position(const struct lab *lab, const struct shape *s, size_t i);

/* The hash of lab's reference output for in: placed where the lab
 * rearranges, else through the reference into a buffer of its own.
 * Returns 0, or -1 when out of memory. */
int output_hash_of_input(const struct lab *lab, const uint32_t *in, const struct shape *s, uint64_t *hash);

#endif
