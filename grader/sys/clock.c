/* The grader's clock (see clock.h). */
#include "sys/clock.h"

#include <sys/resource.h>
#include <time.h>

double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double rusage_s(int who)
{
	struct rusage ru;
	if (getrusage(who, &ru) < 0)
		return 0;
	return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 + (double)ru.ru_stime.tv_sec +
	       (double)ru.ru_stime.tv_usec / 1e6;
}

double cpu_seconds_used(void)
{
	return rusage_s(RUSAGE_SELF) + rusage_s(RUSAGE_CHILDREN);
}
