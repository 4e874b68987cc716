/* Order statistics of timing samples. */
#include "stats.h"

#include <stdlib.h>
#include <string.h>

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* Quantile q of sorted s by linear interpolation between neighbours. */
static double quantile(const double *s, size_t n, double q)
{
	double pos = q * (double)(n - 1);
	size_t lo = (size_t)pos;
	if (lo + 1 >= n)
		return s[n - 1];
	double frac = pos - (double)lo;
	return s[lo] + (s[lo + 1] - s[lo]) * frac;
}

struct stats stats_of(const double *x, size_t n)
{
	struct stats st;
	memset(&st, 0, sizeof(st));
	if (n == 0)
		return st;
	double *s = malloc(n * sizeof(*s));
	if (!s)
		return st;
	memcpy(s, x, n * sizeof(*s));
	qsort(s, n, sizeof(*s), cmp_double);
	double sum = 0;
	for (size_t i = 0; i < n; i++)
		sum += s[i];
	st.n = n;
	st.min = s[0];
	st.max = s[n - 1];
	st.mean = sum / (double)n;
	st.median = quantile(s, n, 0.5);
	st.q1 = quantile(s, n, 0.25);
	st.q3 = quantile(s, n, 0.75);
	st.spread = st.median > 0 ? (st.q3 - st.q1) / st.median : 0;
	free(s);
	return st;
}

double stats_median(const double *x, size_t n)
{
	return stats_of(x, n).median;
}
