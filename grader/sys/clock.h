/* The grader's one clock: monotonic seconds, for deadlines and durations. */
#ifndef GRADER_CLOCK_H
#define GRADER_CLOCK_H

/* Seconds on CLOCK_MONOTONIC: only differences mean anything. */
double now_s(void);

#endif
