/* Summary statistics of timing samples. */
#ifndef COMMON_STATS_H
#define COMMON_STATS_H

#include <stddef.h>

struct stats {
	size_t n;
	double min, max, median, mean;
	double q1, q3;		/* quartiles (linear interpolation) */
	double spread;		/* (q3 - q1) / median: relative noise */
};

/* Sorts a copy of x; leaves x alone. n may be 0 (all fields 0). */
struct stats stats_of(const double *x, size_t n);

/* The median of x (sorts a copy). */
double stats_median(const double *x, size_t n);

#endif
