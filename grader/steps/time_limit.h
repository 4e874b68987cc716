/*
 * How long one size of a correctness run may take: a generous multiple of
 * what the lab's reference solution takes for the same size on the same
 * GPU (or in the emulator), never under a floor and never over the
 * rubric's limit. A kernel that never finishes is then stopped in about a
 * second at a small size, and a slow but finishing one (a few times the
 * reference) is never taken for a hung one.
 */
#ifndef GRADER_TIME_LIMIT_H
#define GRADER_TIME_LIMIT_H

#include <stddef.h>

struct time_rule {
	double factor;		/* times the reference's time */
	double floor_s;		/* the least a size gets */
	double cap_s;		/* the most: the rubric's limit */
};

/* Which of the rule's parts set a limit. */
enum time_limit_kind {
	LIMIT_UNKNOWN_REFERENCE,	/* no reference time here: the cap */
	LIMIT_SCALED,			/* factor times the reference's time */
	LIMIT_FLOOR,			/* the scaled time was under the floor */
	LIMIT_CAP,			/* the scaled time was over the cap */
};

struct time_limit {
	double limit_s;
	double reference_s;		/* <= 0: not known */
	enum time_limit_kind kind;
	double whole_output_s;		/* of limit_s: for sending the output whole (below) */
};

/* The limit for a size the reference took reference_s seconds on (<= 0:
 * not measured here). Pure: the same answer for the same numbers. */
struct time_limit time_limit_derive(const struct time_rule *rule, double reference_s);

/* A GPU's correctness size that runs first in its process sends its
 * output whole, copied off the GPU and into the channel; after another
 * size it sends only its digest, made on the GPU (output_digest.h). The
 * reference's times are of a digest for every large size (all sizes in one
 * process, the smallest first), so a large size run alone, as a size
 * brought forward is, gets the time to send its bytes besides, at
 * WHOLE_OUTPUT_BYTES_PER_S: 2 s a GiB, several times what a copy off the
 * GPU and a write into memory take on a busy host. The cap still holds. */
#define WHOLE_OUTPUT_BYTES_PER_S 0.5e9
struct time_limit time_limit_with_whole_output(const struct time_rule *rule, struct time_limit l,
					       double out_bytes);

/* Why the limit is what it is, for a report: "20x the reference's 0.10 s
 * on this GPU", "the 1 s floor (20x the reference's 0.002 s is less)",
 * "the rubric's 30 s (the reference has not been timed here)", with "and
 * 2.1 s to send the output whole" where that was added. where says
 * where the reference ran ("on this GPU", "in the emulator, on one core"). */
const char *time_limit_explain(const struct time_rule *rule, const struct time_limit *l,
			       const char *where, char *buf, size_t len);

#endif
