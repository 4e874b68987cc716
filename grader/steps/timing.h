/*
 * Reading the harness's timings: the samples of one MSG_TIMING turned into
 * bandwidths, the launch log's highest occupancy, and the check that the
 * samples fit in the life of the child that sent them. Shared by the
 * performance test and lab 4's occupancy sweep.
 */
#ifndef GRADER_TIMING_H
#define GRADER_TIMING_H

#include <jansson.h>
#include <stddef.h>

#include "steps/harness_door.h"

/* Reads one MSG_TIMING of `runs` samples moving `bytes`: median GB/s of the
 * kernel and of the copy, the kernel's spread; adds the samples to *sum_ms.
 * Returns 0, or -1 when it is malformed. */
int timing_read(json_t *t, int runs, double bytes, double *gbps, double *copy_gbps, double *spread,
		double *sum_ms);

/* The launch of a launch log (a MSG_TIMING's "launches") with the highest
 * occupancy (0 to 1), described in desc ("stream_kernel: 132 blocks of 256
 * threads, 120000 B dynamic shared, 38 registers: 1 blocks/SM"). -1 when it
 * holds none. */
double launches_max_occupancy(json_t *launches, char *desc, size_t len);

/* Event times are a part of the child's life: samples adding up to more than
 * it lived were tampered with. 1 when sum_ms cannot be believed. */
int timings_outlast_child(double sum_ms, const struct harness_report *rep);

/* A bandwidth above the copy ceiling measured in the same run (over 100%
 * of copy, or not a number) is refused: a kernel reads and writes at least
 * the bytes a device-to-device copy moves, and no kernel of these labs
 * moves them faster than the copy engine's own copy. 1 when refused. */
int timing_above_ceiling(double percent_of_copy);

#endif
