/*
 * Where the CUDA toolkit is: the one answer the compile step, the symbol
 * check and the sandbox's view of the file system all use, so that they
 * never disagree. Searched in the Makefile's order: nvcc on PATH, else
 * CUDA_HOME, else /usr/local/cuda.
 */
#ifndef GRADER_CUDA_TOOLKIT_H
#define GRADER_CUDA_TOOLKIT_H

#include <stddef.h>

/* The toolkit's root folder (above bin/nvcc) into buf; "" when there is
 * none. Returns buf. */
const char *cuda_toolkit_root(char *buf, size_t len);

/* ROOT/rel into buf, or "" when there is no toolkit. Returns buf. */
const char *cuda_toolkit_path(const char *rel, char *buf, size_t len);

#endif
