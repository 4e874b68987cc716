/*
 * What correctness.c and correctness_child.c share: one correctness step's
 * sizes, and the start of a child that runs some of them in order.
 */
#ifndef GRADER_CORRECTNESS_SIZES_H
#define GRADER_CORRECTNESS_SIZES_H

#include "steps/correctness.h"
#include "steps/correctness_judge.h"
#include "sys/channel_watch.h"

/* One correctness step: its sizes, their tests, and each size's expected
 * output, computed by a thread of the grader while a child runs (the child
 * mostly waits on the GPU, and a gigabyte's input and reference take a
 * fifth of a second), kept until the size is settled. */
struct sizes {
	const struct run_context *ctx;
	const struct reference_times *times;
	const struct shape *shapes;
	uint64_t seeds[RUBRIC_MAX_SHAPES];
	struct test_result *tests[RUBRIC_MAX_SHAPES];
	int settled[RUBRIC_MAX_SHAPES];	/* the size has its verdict */
	struct expected e[RUBRIC_MAX_SHAPES];
	int first, count;		/* what the thread computes */
	int n;				/* the sizes */
	struct traced_runs *traced;	/* the emulator's: the prediction's sizes' traces */
	const struct bench_order *bench;	/* a GPU's timing, after the first run of every size */
	struct early_bench *early;	/* where that timing's report is kept */
	struct gpu_launches *analysis_run;	/* a GPU's run at the analysis shape, after the
						 * first run of every size, read there */
	struct shape analysis_shape;
	struct bounds_fault *bounds;	/* the first size that showed an access outside a buffer */
	/* A size's ending of a process where it ran after another size, which
	 * is no verdict (it runs again first in a new process); kind
	 * FAILURE_NONE where it had none. correctness.c's first_call_only. */
	struct failure after_other[RUBRIC_MAX_SHAPES];
	char after_other_msg[RUBRIC_MAX_SHAPES][TEST_MESSAGE_LEN];
	int again;			/* such a size's run once more: no analysis nor timing after it */
};


/* Each size's limit within the rubric's, for a run of sizes [first, first+n):
 * stage 0 (before the first MSG_BEGIN: the process's start, its CUDA
 * context, the kit's own set-up) has the rubric's whole limit, stage k
 * (the k-th size, from its MSG_BEGIN to the next) its own. */
struct size_watch {
	struct channel_watch watch;
	double limit_s[RUBRIC_MAX_SHAPES + 3];
};

/* The watch of a run of sizes [first, first + n); NULL without memory. */
struct size_watch *watch_sizes(const struct sizes *z, int first, int n);

/* Whether the run of [first, first + count) also times after its sizes
 * (with_bench), or runs the analysis shape between them and the timing
 * (with_analysis): the first run of every size, together, on a GPU. */
int with_bench(const struct sizes *z, int first, int count);
int with_analysis(const struct sizes *z, int first, int count);

/* Why a run that was stopped was stopped, after msg: how long its size
 * ran, and which limit applied. size: its index in the rubric's list;
 * first: it ran first in its process. */
void explain_stop(const struct sizes *z, const struct harness_report *rep, const struct channel_watch *w,
		  int size, int first, char *msg, size_t len);

/* Whether size k runs traced (in the emulator): one the prediction traces,
 * or the analysis shape, whose launches the launch check compares with the
 * analysis run's (launch_match_later_call). */
int size_traced(const struct sizes *z, int k);

/* Starts sizes [first, first + count) in one child, under w, and reads its
 * whole report into whole; their expected outputs are computed meanwhile.
 * -1 with err where the child could not be started. */
int sizes_start(struct sizes *z, int first, int count, struct channel_watch *w, struct harness_report *whole,
		char *err, size_t len);

#endif
