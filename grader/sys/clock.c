/* The grader's clock (see clock.h). */
#include "sys/clock.h"

#include <time.h>

double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}
