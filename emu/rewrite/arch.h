/*
 * nvcc compiles a .cu file twice: for the GPU with __CUDA_ARCH__ defined,
 * for the host without. cuemu-cc preprocesses it both ways too; where the
 * two texts differ, arch_merge makes one of them in which each function
 * has the body of its own pass (arch.c says how), so that device code runs
 * its __CUDA_ARCH__ branch and host code the other.
 */
#ifndef CUEMU_ARCH_H
#define CUEMU_ARCH_H

#include <stddef.h>

/* The merged text (malloc'd), or NULL when out of memory. host and device
 * are the preprocessor's outputs, with their line markers. */
char *arch_merge(const char *host, size_t host_len, const char *device, size_t device_len);

#endif
