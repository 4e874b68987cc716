/*
 * Waiting for a submitted array: the tasks still queued or running, from
 * squeue, and the students graded so far, from their summaries (each is
 * written last, whole, by its task). When the job has left the queue, how
 * each task ended comes from sacct, or from scontrol on a cluster without
 * accounting.
 */
#include "slurm/slurm.h"

#include <stdio.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "batch/batch.h"
#include "sys/clock.h"

#define POLL_S 2
#define SQUEUE_FAILURES_MAX 30	/* a minute of slurmctld not answering */

static volatile sig_atomic_t interrupted;

static void on_signal(int sig)
{
	interrupted = sig;
}

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
	/* Ctrl-C stops the waiting, not the job: the cluster goes on grading. */
	struct sigaction sa = { .sa_handler = on_signal }, old_int;
	sigaction(SIGINT, &sa, &old_int);
	interrupted = 0;
	for (;;) {
		if (interrupted) {
			fprintf(stderr, "%sgrade: stopped waiting; job %s goes on: merge its results with "
				"./grade %s --batch %s --out %s --collect\n", tty ? "\n" : "", job,
				b->c.lab->id, b->c.in_dir, b->c.out_dir);
			sigaction(SIGINT, &old_int, NULL);
			return -1;
		}
		struct slurm_queue q;
		if (slurm_queue(job, &q, err, sizeof(err)) < 0) {
			if (++failures >= SQUEUE_FAILURES_MAX) {
				fprintf(stderr, "%sgrade: squeue does not answer (%s): job %s goes on; "
					"merge its results later with --collect\n", tty ? "\n" : "", err, job);
				sigaction(SIGINT, &old_int, NULL);
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
	sigaction(SIGINT, &old_int, NULL);
	return 0;
}

/* One line for each task that did not complete, and where its log is. */
static void report_tasks(const char *state, const char *job, int tasks, char (*states)[32],
			 const char *from)
{
	if (!from) {
		fprintf(stderr, "job %s: how its tasks ended is not known (no accounting, and the job "
			"has left scontrol's memory); their logs: %s/task-%s_*.log\n", job, state, job);
		return;
	}
	for (int i = 0; i < tasks; i++)
		if (states[i][0] && strcmp(states[i], "COMPLETED") != 0)
			fprintf(stderr, "job %s task %d: %s (from %s); its log: %s/task-%s_%d.log\n", job, i,
				states[i], from, state, job, i);
}

/* Which task of the frozen roster graded the student: i % tasks. */
static int task_of_student(const struct roster *frozen, int tasks, const char *name)
{
	for (int i = 0; i < frozen->n; i++)
		if (strcmp(frozen->students[i].name, name) == 0)
			return i % tasks;
	return -1;
}

void slurm_mark_ungraded(struct batch *b, const char *state, const char *job, int running)
{
	struct batch frozen;
	char err[512], why[512];
	int tasks = 0;
	memset(&frozen, 0, sizeof(frozen));
	if (slurm_roster_read(state, &frozen, &tasks, err, sizeof(err)) < 0)
		tasks = 0;
	char (*states)[32] = tasks > 0 ? calloc((size_t)tasks, sizeof(*states)) : NULL;
	const char *from = states && !running ? slurm_outcomes(job, tasks, states) : NULL;
	if (states && !running)
		report_tasks(state, job, tasks, states, from);
	for (int i = 0; i < b->roster.n; i++) {
		const char *name = b->roster.students[i].name;
		if (b->rows[i].student[0])
			continue;
		int task = states ? task_of_student(&frozen.roster, tasks, name) : -1;
		if (running)
			snprintf(why, sizeof(why), "not graded yet: job %s is still running", job);
		else if (task >= 0 && from && strcmp(states[task], "COMPLETED") == 0)
			snprintf(why, sizeof(why), "not graded: Slurm task %s_%d ended without a current "
				 "grade for it (the kit, rubric or file changed while the job ran?); run the same "
				 "command again", job, task);
		else if (task >= 0 && from && states[task][0])
			snprintf(why, sizeof(why), "not graded: Slurm task %s_%d ended %s (run the same "
				 "command again)", job, task, states[task]);
		else
			snprintf(why, sizeof(why), "not graded: its Slurm task did not finish (run the same "
				 "command again)");
		batch_problem(&b->c, name, "", why, &b->rows[i]);
	}
	free(states);
	roster_free(&frozen.roster);
}
