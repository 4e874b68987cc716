/*
 * The hash (bench_output_hash, common/bench_plan.h) of a lab's reference
 * output for the input a seed makes, computed without the output where
 * the lab only rearranges its input (lab.h's out_position: lab 3): each
 * input word is made from the seed and its term added at the position it
 * moves to, in one pass, with no gigabyte of input or output in memory.
 * Used by the checks of timed runs (bench_check.c) and of outputs sent as
 * digests (correctness_judge.c).
 */
#ifndef GRADER_OUTPUT_HASH_H
#define GRADER_OUTPUT_HASH_H

#include <stdint.h>

#include "../labs/lab.h"

/* Where a rearranging lab moves input word i. */
size_t output_position(const struct lab *lab, const struct shape *s, size_t i);

/* The hash of lab's reference output for the input of shape s that seed
 * makes (lab_fill_input): made in place where the lab rearranges, else
 * through the input and the reference in buffers of its own. Returns 0,
 * or -1 when out of memory. */
int output_hash_of_seed(const struct lab *lab, const struct shape *s, uint64_t seed, uint64_t *hash);

#endif
