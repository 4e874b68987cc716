/*
 * The harness's report channel to the grader.
 *
 * The grader opens an anonymous memory file (memfd) and hands it to the
 * harness as file descriptor CHANNEL_FD before any student code runs. The
 * harness appends frames to it; the grader reads them after the child has
 * ended, whatever way it ended. Student code writing to stdout or stderr
 * never lands here, and anything that does land here by accident or malice
 * breaks the framing and is reported as such, never believed.
 *
 * A frame: struct frame_header, then `length` bytes of payload.
 * Small payloads are JSON text; MSG_OUTPUT carries raw 32-bit words,
 * MSG_OUTPUT_DIGEST a raw struct output_digest.
 */
#ifndef COMMON_CHANNEL_H
#define COMMON_CHANNEL_H

#include <stddef.h>
#include <stdint.h>

#define CHANNEL_FD 3
#define CHANNEL_MAGIC 0x4b4c4843u	/* "CHLK" little-endian */

enum channel_msg {
	MSG_DEVICE = 1,		/* JSON: the device the harness runs on */
	MSG_BEGIN = 2,		/* JSON: the entry point is about to be called:
				 * {"shape","seed"} (seed as a string), or lab 4's
				 * calculator {"questions"} */
	MSG_OUTPUT = 3,		/* raw words: guard, output, guard */
	MSG_DONE = 4,		/* JSON: the entry point returned: {"cuda_error": null,
				 * "elapsed_ms", "input_changed"}, or on a CUDA error
				 * {"cuda_error", "cuda_error_text", "detail",
				 * "elapsed_ms"}; lab 4's calculator: {"cuda_error": null} */
	MSG_TIMING = 5,		/* JSON: samples of one timed size, and the hashes
				 * of its checked runs (common/bench_plan.h) */
	MSG_METRICS = 6,	/* JSON: the emulator's analysis metrics */
	MSG_ERROR = 7,		/* JSON: the harness failed {"where","error"} */
	MSG_END = 8,		/* empty: the harness finished normally */
	MSG_STOPPED = 9,	/* JSON: the emulator is ending the process on a fault it
				 * cannot return from (cuemu_set_stop_hook): {"kind":
				 * "kernel_timeout" | "stack_overflow" | "kernel_crash" |
				 * "fatal", "kernel", "where" (FILE:LINE), "message"}; or
				 * the emulated harness, a size's run past its CPU time
				 * (grader/harness/predict.c): "kind": "call_timeout" */
	MSG_STUDENT_EXIT = 10,	/* JSON: in a correctness run, the entry point called
				 * exit() and the harness went on with the next size
				 * (grader/harness/student_exit.h): {"status"} */
	MSG_OUTPUT_DIGEST = 11,	/* raw: struct output_digest (common/output_digest.h), in
				 * place of MSG_OUTPUT for a large output on a GPU */
};

struct frame_header {
	uint32_t magic;
	uint32_t type;
	uint64_t length;
};

/* Writer side (harness). Each returns 0, or -1 on a write error. */
int channel_send(int fd, enum channel_msg type, const void *payload, uint64_t length);
/* One frame whose payload is written in pieces, as it becomes available (a
 * gigabyte of output through a small buffer): channel_begin_frame with the
 * whole length, then channel_write_all of the pieces, exactly `length`
 * bytes in all and nothing else in between. The bytes on the channel are
 * those of channel_send with the whole payload (tests/test_channel.c). */
int channel_begin_frame(int fd, enum channel_msg type, uint64_t length);
int channel_write_all(int fd, const void *data, size_t length);

/* Reader side (grader): walks frames in a buffer read back from the memfd. */
struct channel_reader {
	const unsigned char *data;
	size_t size;
	size_t pos;
};

/* Returns 1 and fills *type, *payload, *length for the next frame; 0 at a
 * clean end of data; -1 if the data is not a well-formed frame (a short or
 * corrupt header, or a length past the end). */
int channel_next(struct channel_reader *r, uint32_t *type, const unsigned char **payload,
		 uint64_t *length);

#endif
