/*
 * The grader's one door to the harness (grader/harness/harness_main.c):
 * one function per verb of its command line (docs/architecture.md), each
 * with its arguments, its time limit and the most bytes it may write to its
 * channel. Each runs the harness in a child and reads back the frames it
 * sent: their shape is checked here, what they say by the caller.
 *
 * Each returns 0 when the child ran (whatever happened to it) and fills
 * rep (harness_report_free), or -1 with err when it could not be started.
 * What a report says went wrong, in words or as data (the functions after
 * harness_report_free), is harness_abort.c's.
 */
#ifndef GRADER_HARNESS_DOOR_H
#define GRADER_HARNESS_DOOR_H

#include <jansson.h>
#include <stdint.h>

#include "channel.h"
#include "output_digest.h"
#include "steps/run_context.h"
#include "sys/channel_watch.h"
#include "sys/sandbox.h"

struct harness_report {
	struct child_result child;
	int corrupt;			/* the channel did not hold well-formed frames */
	int began;			/* MSG_BEGIN: the entry point was about to be called */
	int ended;			/* MSG_END: the harness finished normally */
	json_t *device;			/* MSG_DEVICE, or NULL */
	json_t *done;			/* MSG_DONE, or NULL */
	json_t *error;			/* MSG_ERROR, or NULL */
	json_t *metrics;		/* MSG_METRICS, or NULL */
	json_t *stopped;		/* MSG_STOPPED: the emulator ended the process, or NULL */
	int exit_called;		/* MSG_STUDENT_EXIT: the entry point called exit(), and
					 * the harness went on with the next size */
	int exit_status;		/* the status it asked for */
	json_t *timings;		/* array of MSG_TIMING objects */
	const uint32_t *output;		/* MSG_OUTPUT words (inside child.channel) */
	size_t output_words;
	const struct output_digest *digest;	/* MSG_OUTPUT_DIGEST (inside child.channel), or NULL */
	int outputs;			/* how many MSG_OUTPUT and MSG_OUTPUT_DIGEST frames came */
	unsigned kinds;			/* a bit (1 << type) for each type of frame that came */
};

/* device: the GPU the program sees (MSG_DEVICE) with gpu as its
 * CUDA_VISIBLE_DEVICES (NULL: the grader's own); program is the device
 * probe, the harness linked with no lab. */
int harness_device(const char *program, const char *gpu, struct harness_report *rep, char *err,
		   size_t errlen);

/* correct: one call of the entry point on shape s with the inputs of seed.
 * kernel_timeout_s (> 0; an emulator build only): the emulator's watchdog
 * stops a kernel after this much CPU time, naming it and its line. watch
 * (NULL: none): the run's stages, each with its own limit within the
 * rubric's (sys/channel_watch.h), filled in as it runs. */
int harness_correct(const struct run_context *ctx, const struct shape *s, uint64_t seed,
		    double kernel_timeout_s, struct channel_watch *watch, struct harness_report *rep,
		    char *err, size_t errlen);

/* What a timing child times (harness_bench): shapes[0..n), and lab 4's
 * sweep after them. */
struct bench_order {
	const struct shape *shapes;
	int n;
	int sweep;
};

/* correct, several sizes in one process: shapes[i] with the inputs of
 * seeds[i], n at most HARNESS_MAX_PARTS; cut the report with harness_split.
 * bench (NULL: none): then, in the same process and CUDA context, the
 * timing harness_bench would run, as one more part of the report (its own
 * MSG_BEGIN, a stage of its own in watch, at the rubric's bench limit). */
#define HARNESS_MAX_PARTS 256
int harness_correct_many(const struct run_context *ctx, const struct shape *shapes,
			 const uint64_t *seeds, int n, const struct bench_order *bench,
			 struct channel_watch *watch, struct harness_report *rep, char *err, size_t errlen);

/* A timing run after a correctness run's sizes: its part of that run's
 * report, kept with the whole report it points into. have 0: none, and
 * the performance step times in a child of its own. */
struct early_bench {
	int have;
	struct harness_report whole, part;
};
void early_bench_free(struct early_bench *e);

/* One size of an emulated correctness child (harness_correct_sizes). */
struct emu_size {
	struct shape shape;
	uint64_t seed;			/* its inputs */
	double kernel_timeout_s;	/* the emulator's watchdog: CPU seconds a kernel may run (> 0) */
	int traced;			/* as harness_predict's run: its trace follows its output */
};

/* sizes (an emulator build only): the n sizes in one process, each with the
 * emulator's watchdog at its own limit; a traced one sends its trace
 * (MSG_METRICS) after its output, as harness_predict does, so that its one
 * run is its correctness verdict and the prediction's trace. Cut the report
 * with harness_split. */
int harness_correct_sizes(const struct run_context *ctx, const struct emu_size *sizes, int n,
			  struct channel_watch *watch, struct harness_report *rep, char *err, size_t errlen);

/*
 * A run of harness_correct_many cut into one report per size: each
 * MSG_BEGIN starts one. The parts point into whole's channel and share its
 * child's fate (which matters only to the last, if it did not finish).
 * Returns how many sizes began, or -1 if the channel is corrupt or holds
 * more than max. Free each part with harness_part_free, then whole.
 */
int harness_split(const struct harness_report *whole, struct harness_report *parts, int max);
void harness_part_free(struct harness_report *part);

/* The frames the correct and sizes verbs send for one size (a traced
 * emulated size sends its trace, MSG_METRICS, besides). */
#define HARNESS_SIZE_FRAMES                                                                            \
	((1u << MSG_BEGIN) | (1u << MSG_OUTPUT) | (1u << MSG_OUTPUT_DIGEST) | (1u << MSG_DONE) |       \
	 (1u << MSG_ERROR) | (1u << MSG_END) | (1u << MSG_STOPPED) | (1u << MSG_STUDENT_EXIT))

/* Marks rep corrupt where it holds a type of frame outside may_send: its
 * verb never sends one, so the student's code wrote it into the channel. */
void harness_refuse_frames(struct harness_report *rep, unsigned may_send);

/* bench: harness (the submission's or the reference's) timed at each of
 * o->shapes[0..o->n), rubric->runs runs each, beside a copy of the same
 * bytes; ctx->seed chooses the inputs and the checked runs
 * (common/bench_plan.h). o->sweep: then, in the same process, lab 4's
 * kernel at the performance shape with more and more dynamic shared
 * memory, rubric->sweep_runs runs per point (one MSG_TIMING each, after
 * the shapes'). */
int harness_bench(const struct run_context *ctx, const char *harness, const struct bench_order *o,
		  struct harness_report *rep, char *err, size_t errlen);

/* analysis: harness (an emulator build) at shape s (analysis_shape.h) with
 * ctx->seed's inputs and traced blocks, sending the emulator's metrics;
 * after_a_call: of the second call of the process, the first untraced and
 * unreported (launch_match.h). */
int harness_analysis(const struct run_context *ctx, const char *harness, const struct shape *s,
		     int after_a_call, struct harness_report *rep, char *err, size_t errlen);

/* predict: harness (an emulator build) runs a correctness call at shape s
 * with seed's inputs, a seeded sample of each launch's blocks traced; sends
 * the output (to be judged) and the trace as MSG_METRICS (steps/prediction.c). */
int harness_predict(const struct run_context *ctx, const char *harness, const struct shape *s,
		    uint64_t seed, struct harness_report *rep, char *err, size_t errlen);

/* occupancy: lab 4's calculator asked the n questions in the file at path
 * (one struct occ_result back for each). */
int harness_occupancy(const struct run_context *ctx, const char *path, int n,
		      struct harness_report *rep, char *err, size_t errlen);

void harness_report_free(struct harness_report *rep);

/* harness_abort.c: what a run printed, and how one that sent no verdict
 * of its own ended. */

/* Appends to buf what rep's program printed (its last lines, capped), after
 * "Your program printed (last lines):"; nothing when it printed nothing. A
 * student's printf in a kernel or the entry point is shown this way. */
void harness_append_printed(const struct harness_report *rep, char *buf, size_t len);

/* Whether the run was stopped for taking too long: at the grader's time
 * limit, or by the emulator's kernel watchdog (MSG_STOPPED "kernel_timeout"). */
int harness_hung(const struct harness_report *rep);

/* One sentence on why a run that sent no MSG_DONE ended: a crash, a hang
 * (the emulator's names the kernel and the line), a stack overflow, an
 * early exit, a failure inside the harness; with the program's last lines. */
void harness_explain_abort(const struct harness_report *rep, const char *entry, const char *where,
			   char *buf, size_t len);

/* The same, as data: which way the run ended, and its signal. */
struct failure;
void harness_abort_failure(const struct harness_report *rep, struct failure *f);

#endif
