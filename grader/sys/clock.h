/* The grader's one clock: monotonic seconds, for deadlines and durations. */
#ifndef GRADER_CLOCK_H
#define GRADER_CLOCK_H

/* Seconds on CLOCK_MONOTONIC: only differences mean anything. */
double now_s(void);

/* CPU seconds (user and system) this process and the children it has
 * reaped have used: only differences mean anything. */
double cpu_seconds_used(void);

#endif
