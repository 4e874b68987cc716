/*
 * Lab 4 asks the student to write the occupancy calculator: the toolkit's
 * (cuda_occupancy.h) answers part 1 outright, and it is all inline
 * functions, so the symbol check (integrity.h) never sees a call to it.
 * Here the file is refused when what its compiler compiled holds the
 * header or any of its names: on CUDA, nvcc's two preprocessed passes
 * (macros expanded, tokens pasted, every #include followed); in the
 * emulator, the object itself, whose debug information (cuemu-cc compiles
 * with -g) names every function, type and file that code came from. A
 * copied header keeps its names, so it is refused too. Other labs may
 * include cuda_occupancy.h for their launch configuration.
 */
#ifndef GRADER_OWN_CALCULATOR_H
#define GRADER_OWN_CALCULATOR_H

#include <stddef.h>

#include "steps/device.h"
#include "steps/grade.h"

struct isolation_policy;

/* The first name of the toolkit's calculator in text[0, len) (the header's
 * file name, cudaOcc + a capital, CUDA_OCC_, __occ + a capital; never the
 * runtime's cudaOccupancy* API, which asks about a compiled kernel), copied
 * into name; 1 when found, else 0. */
int own_calculator_find(const char *text, size_t len, char *name, size_t name_len);

/* For a lab with a calculator (lab->has_calculator), fails t (the symbols
 * test) when the build of submission for backend uses the toolkit's;
 * student_obj is that build's object, work_dir where the preprocessed
 * passes go. Returns 1 when the file may run, else 0. */
int own_calculator_check(const struct lab *lab, enum backend backend, const char *submission,
			 const char *student_obj, const char *work_dir, const struct device_info *dev,
			 const struct isolation_policy *tools, double timeout_s, struct test_result *t);

#endif
