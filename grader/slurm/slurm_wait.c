/*
 * Waiting for a submitted array: the tasks still queued or running, from
 * squeue, and the students graded so far, from their summaries (each is
 * written last, whole, by its task). When the job has left the queue, how
 * each task ended comes from sacct, or from scontrol on a cluster without
 * accounting.
 */
#include "slurm/slurm.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "batch/batch.h"
#include "sys/clock.h"

#define POLL_S 2
#define SQUEUE_FAILURES_MAX 30	/* a minute of slurmctld not answering */

static int graded_so_far(const struct batch *b, const int *todo, int n_todo)
{
	int n = 0;
	for (int i = 0; i < n_todo; i++) {
		struct summary sum;
		char hash[65];
		n += slurm_current_summary(b, &b->roster.students[todo[i]], &sum, hash);
	}
	return n;
}

int slurm_wait(const struct batch *b, const char *job, const int *todo, int n_todo)
{
	int tty = isatty(STDERR_FILENO), failures = 0, last_done = -1, last_tasks = -1;
	double start = now_s();
	char err[512], took[32];
	for (;;) {
		struct slurm_queue q;
		if (slurm_queue(job, &q, err, sizeof(err)) < 0) {
			if (++failures >= SQUEUE_FAILURES_MAX) {
				fprintf(stderr, "%sgrade: squeue does not answer (%s): job %s goes on; "
					"merge its results later with --collect\n", tty ? "\n" : "", err, job);
				return -1;
			}
		} else {
			failures = 0;
			int left = q.pending + q.running + q.other;
			int done = graded_so_far(b, todo, n_todo);
			if (tty || done != last_done || left != last_tasks)
				fprintf(stderr, "%s%d of %d students graded; job %s: %d task%s running, %d "
					"waiting (%s)%s", tty ? "\r\033[K" : "", done, n_todo, job, q.running,
					q.running == 1 ? "" : "s", q.pending,
					progress_duration(now_s() - start, took, sizeof(took)), tty ? "" : "\n");
			last_done = done;
			last_tasks = left;
			if (left == 0)
				break;
		}
		sleep(POLL_S);
	}
	if (tty)
		fputc('\n', stderr);
	return 0;
}

void slurm_report_tasks(const char *state, const char *job, int n_tasks)
{
	char (*states)[32] = calloc((size_t)n_tasks, sizeof(*states));
	if (!states)
		return;
	const char *from = slurm_outcomes(job, n_tasks, states);
	if (!from) {
		fprintf(stderr, "job %s: how its tasks ended is not known (no accounting, and the job "
			"has left scontrol's memory); their logs: %s/task-%s_*.log\n", job, state, job);
	} else {
		for (int i = 0; i < n_tasks; i++)
			if (states[i][0] && strcmp(states[i], "COMPLETED") != 0)
				fprintf(stderr, "job %s task %d: %s (from %s); its log: %s/task-%s_%d.log\n", job,
					i, states[i], from, state, job, i);
	}
	free(states);
}
