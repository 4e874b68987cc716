/*
 * A problem size: n elements for a scan (rank 1), rows x cols for a
 * transpose (rank 2). Rubrics and the command line write shapes as text:
 * "1025", "2^20+7", "2^24", "4097x1023", "1xN" is not accepted (numbers only).
 */
#ifndef COMMON_SHAPE_H
#define COMMON_SHAPE_H

#include <stddef.h>

struct shape {
	int rank;		/* 1 or 2 */
	size_t dim[2];		/* rank 1: dim[0] = n; rank 2: dim[0] = rows, dim[1] = cols */
};

/* Parses "N", "2^K", "2^K+C", "2^K-C" and "AxB" forms. Returns 0, or -1
 * with a reason in err. Every dimension must be at least 1. */
int shape_parse(const char *text, struct shape *s, char *err, size_t errlen);

/* "1025" or "4097x1023"; returns buf. */
const char *shape_format(const struct shape *s, char *buf, size_t len);

/* The same size: the same rank and dimensions (a rank-1 shape's dim[1] is
 * not one of them). Not memcmp: that compares the padding and dim[1]. */
int shape_equal(const struct shape *a, const struct shape *b);

/* Elements in a rank-1 shape, or rows*cols. */
size_t shape_elements(const struct shape *s);

#endif
