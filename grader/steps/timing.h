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

/* A bandwidth the GPU's memory cannot deliver is refused: a kernel reads
 * and writes at least the bytes a copy of the lab's data moves, and no
 * kernel moves them faster than the DRAM's peak (peak_gbps, from its
 * clock and bus width), or, where the peak is not known or is below the
 * copy, faster than COPY_MARGIN above the copy timed beside it. A kernel
 * may beat the copy itself: on an H100 a 16-byte-a-thread copy kernel ran
 * at 100.2-100.4% of it. Not a number, or no bandwidth at all, is refused
 * too. 1 when refused. */
#define COPY_MARGIN 0.10
int timing_above_ceiling(double gbps, double copy_gbps, double peak_gbps);

/* The ceiling timing_above_ceiling judges by, in GB/s. */
double timing_ceiling(double copy_gbps, double peak_gbps);

#endif
