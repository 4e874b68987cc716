/*
 * The frames of a harness's report channel (common/channel.h) read into a
 * struct harness_report (harness_door.h), and what of them is believed:
 * the order the harness sends them in, and nothing written after a
 * process that did not end the harness's way began student code. The
 * door's runs use these; harness_split and harness_refuse_frames, which
 * the correctness step calls, are declared with the door's verbs.
 */
#ifndef GRADER_HARNESS_FRAMES_H
#define GRADER_HARNESS_FRAMES_H

#include <jansson.h>
#include <stddef.h>

#include "steps/harness_door.h"

/* The frames of data[0, len) into rep; a frame out of order, JSON that
 * does not parse or a broken header sets rep->corrupt. */
void harness_read_frames(struct harness_report *rep, const unsigned char *data, size_t len);

/* A process that did not end one of the harness's ways: drops what came
 * after its last MSG_BEGIN. */
void harness_drop_unended(struct harness_report *rep);

/* What a child says of its own hold of a batch's GPU (information for the
 * batch's account only): every MSG_TIMING of its channel into *timings (a
 * new array), and the last of them, else its last MSG_DONE, into *last (a
 * new reference, or NULL). Read whatever the frames' order: a run of
 * several sizes, and a timing after them, sends several of each. */
void harness_said_of_hold(const struct child_result *c, json_t **timings, json_t **last);

#endif
