/*
 * The harness's frames on its report channel (CHANNEL_FD, common/channel.h):
 * what grader/harness/ sends besides raw output words.
 */
#ifndef COMMON_HARNESS_REPORT_H
#define COMMON_HARNESS_REPORT_H

#include <stddef.h>
#include <stdint.h>

#include "channel.h"

/* The harness ends with status 0 after MSG_END or after MSG_DONE with a
 * CUDA error, and with 1 after MSG_ERROR; an exit() from the student's
 * code that it does not catch (grader/harness/student_exit.h) ends it with
 * HARNESS_STUDENT_EXIT. Frames after the last MSG_BEGIN of a process that
 * did not end one of the harness's ways were written while student code
 * ran: not believed. */
#define HARNESS_STUDENT_EXIT 87

/* One JSON frame (at most 4 KiB). */
void send_json(enum channel_msg type, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* s as the body of a JSON string, into out (len bytes). */
void json_escape(const char *s, char *out, size_t len);
/* The run's last frame (MSG_END, MSG_ERROR, or MSG_DONE after a CUDA
 * error), then _exit(status): stdout and stderr flushed first, and no
 * destructor or atexit handler runs after it. */
void harness_last_frame(enum channel_msg type, const void *payload, uint64_t length, int status)
	__attribute__((noreturn));
/* A failure of the harness itself (not of the student's kernel): MSG_ERROR, then _exit(1). */
void kit_fail(const char *where, const char *what) __attribute__((noreturn));

#endif
