/* CPU references. */
#include "reference.h"

void ref_scan_inclusive(const uint32_t *in, uint32_t *out, size_t n)
{
	uint32_t sum = 0;
	for (size_t i = 0; i < n; i++) {
		sum += in[i];
		out[i] = sum;
	}
}

void ref_scan_exclusive(const uint32_t *in, uint32_t *out, size_t n)
{
	uint32_t sum = 0;
	for (size_t i = 0; i < n; i++) {
		out[i] = sum;
		sum += in[i];
	}
}

/* 64x64 blocks keep both the rows read and the rows written in cache. */
#define TILE 64

void ref_transpose(const float *in, float *out, size_t rows, size_t cols)
{
	for (size_t r0 = 0; r0 < rows; r0 += TILE)
		for (size_t c0 = 0; c0 < cols; c0 += TILE) {
			size_t r1 = r0 + TILE < rows ? r0 + TILE : rows;
			size_t c1 = c0 + TILE < cols ? c0 + TILE : cols;
			for (size_t r = r0; r < r1; r++)
				for (size_t c = c0; c < c1; c++)
					out[c * rows + r] = in[r * cols + c];
		}
}
