/* The CPU references every result is compared against. Large inputs are
 * split over the machine's cores (parallel.h); the results are the same. */
#ifndef COMMON_REFERENCE_H
#define COMMON_REFERENCE_H

#include <stddef.h>
#include <stdint.h>

/* out[i] = in[0] + ... + in[i] (mod 2^32) */
void ref_scan_inclusive(const uint32_t *in, uint32_t *out, size_t n);

/* out[0] = 0, out[i] = in[0] + ... + in[i-1] (mod 2^32) */
void ref_scan_exclusive(const uint32_t *in, uint32_t *out, size_t n);

/* in is rows x cols row-major; out is cols x rows row-major. Blocked, so
 * that the CPU check of a 16384 x 16384 matrix takes seconds, not minutes. */
void ref_transpose(const float *in, float *out, size_t rows, size_t cols);

#endif
