/*
 * The monotonic clock the GPU scripts' timing programs read
 * (breakdown_ctx.cu, driver_contention.cu, first_launch.cu).
 */
#ifndef TESTS_GPU_WALL_CLOCK_H
#define TESTS_GPU_WALL_CLOCK_H

#include <time.h>

/* Milliseconds on CLOCK_MONOTONIC: only differences mean anything. */
static inline double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

#endif
