/*
 * A child's progress read from its report channel while it runs: each
 * MSG_BEGIN frame (channel.h) starts a stage, and each stage has its own
 * deadline. A run of several sizes (a correctness run) is then stopped as
 * soon as one size takes longer than that size may take, rather than at
 * the end of a limit meant for the whole run; and the stages' durations,
 * read the same way, are what a reference run measures.
 *
 * Stage 0 is the time before the first MSG_BEGIN; stage k (k >= 1) runs
 * from the k-th MSG_BEGIN to the next, or to the child's end. The sandbox
 * (sandbox.h) asks for the deadline at each of its polls.
 *
 * A size's own time ends at the first frame that says its work is over:
 * MSG_DONE or MSG_STUDENT_EXIT. What follows, up to the next MSG_BEGIN or
 * the child's end, is the kit's: the size's memory
 * freed, the next one's set up, a wait for a batch's GPU while other
 * students are timed, the process's end with its CUDA context's teardown.
 * All of these are slower the more processes share the host, and none is
 * the student's code, so they are no size's time: they have stage 0's
 * limit, the one a process's start has, which makes a context and waits
 * for the GPU too. A size's limit can then be the same on a GPU a batch
 * shares as on a grade's own. A student's code could forge such a frame,
 * as it could MSG_BEGIN: it buys at most that limit, within the whole
 * run's, and the frames that follow are checked (harness_frames.c).
 */
#ifndef GRADER_CHANNEL_WATCH_H
#define GRADER_CHANNEL_WATCH_H

#include <stddef.h>

#define WATCH_MAX_STAGES 258

struct channel_watch {
	/* Set by the caller: stage k's limit is limit_s[k], or the last one's
	 * past n_limits; n_limits 0: no stage has a limit of its own. */
	const double *limit_s;
	int n_limits;

	/* Filled as the child runs (seconds from the child's start). */
	int stages;			/* MSG_BEGIN frames seen */
	double began_at[WATCH_MAX_STAGES];	/* began_at[k]: when stage k began (k >= 1) */
	double ended_at;		/* when the child ended or was stopped */
	unsigned char own_ended[WATCH_MAX_STAGES];	/* 1: stage k's own time is over (above) */
	double own_end[WATCH_MAX_STAGES];	/* when */
	int stopped;			/* 1: the child was stopped for one stage's limit */
	int stopped_stage;		/* which stage, if stopped */
	double stopped_after_s;		/* how long that stage had run (its own time) */

	/* The reader's place in the channel; broken: a frame that does not
	 * parse, after which only the whole run's limit applies (the grader
	 * judges such a channel once the child has ended). */
	size_t next_header;
	int broken;
};

/* Before the child starts: clears what the last run filled. */
void channel_watch_reset(struct channel_watch *w);

/* Reads the frames written to fd since the last call; returns the
 * deadline of the stage now running, in seconds from the child's start
 * (a large number when it has none). now_s: seconds from the start. */
double channel_watch_poll(struct channel_watch *w, int fd, double now_s);

/* Stage k's own time: to the frame that ended it, or to the next stage
 * (the last: to the child's end); < 0 when it did not begin. */
double channel_watch_stage_s(const struct channel_watch *w, int k);

#endif
