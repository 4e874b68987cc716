/*
 * Running the harness in a child and reading back what it reported. The
 * frames are checked for shape here; what they say is checked by the caller.
 */
#ifndef GRADER_HARNESS_RUN_H
#define GRADER_HARNESS_RUN_H

#include <jansson.h>
#include <stdint.h>

#include "steps/rubric.h"
#include "sys/sandbox.h"

struct harness_report {
	struct child_result child;
	int corrupt;			/* the channel did not hold well-formed frames */
	int began;			/* MSG_BEGIN: the entry point was about to be called */
	int ended;			/* MSG_END: the harness finished normally */
	json_t *done;			/* MSG_DONE, or NULL */
	json_t *error;			/* MSG_ERROR, or NULL */
	json_t *metrics;		/* MSG_METRICS, or NULL */
	json_t *timings;		/* array of MSG_TIMING objects */
	const uint32_t *output;		/* MSG_OUTPUT words (inside child.channel) */
	size_t output_words;
	int outputs;			/* how many MSG_OUTPUT frames came */
};

/* Runs `harness ARGS...` with the rubric's limits; channel_bytes is the most
 * it may legitimately write to its channel. Returns 0 when the child ran
 * (whatever happened to it), -1 with err when it could not be started. */
int harness_run(char *const argv[], const struct rubric *r, double wall_s, size_t channel_bytes,
		int isolate, const char *work_dir, struct harness_report *rep, char *err, size_t errlen);

void harness_report_free(struct harness_report *rep);

/*
 * A run of `harness correct` over several sizes, cut into one report per
 * size: each MSG_BEGIN starts one. The parts point into whole's channel and
 * share its child's fate (which matters only to the last, if it did not
 * finish). Returns how many sizes began, or -1 if the channel is corrupt or
 * holds more than max. Free each part with harness_part_free, then whole.
 */
#define HARNESS_MAX_PARTS 256
int harness_split(const struct harness_report *whole, struct harness_report *parts, int max);
void harness_part_free(struct harness_report *part);

/* One sentence on why a run that sent no MSG_DONE ended: a crash, a hang,
 * an early exit, a failure inside the harness; with the program's last lines. */
void harness_explain_abort(const struct harness_report *rep, const char *entry, const char *where,
			   char *buf, size_t len);

#endif
