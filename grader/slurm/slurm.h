/*
 * --slurm: a batch graded on a Slurm cluster, through Slurm's own commands
 * (sbatch, squeue, sacct, scontrol, srun), each run by the kit's process
 * runner with its argv: no shell line is ever built.
 *
 *   ./grade LAB --batch DIR --slurm [--partition P] [--gres G] [--time T]
 *               [--account A] [--max-tasks K] [--no-wait]
 *   ./grade LAB --batch DIR --collect
 *   ./grade LAB --slurm [...]            one grade on a node, through srun
 *
 * The submitting process (slurm_submit.c) lists DIR, keeps every student
 * whose summary holds the current resume key (batch_hash, with the GPU
 * model the summary was graded on), freezes the rest and the salt in
 * OUT/.slurm/ (0700; the salt in a file of its own, never on a command
 * line, in a job script or in the job's environment), and submits one job
 * array. Task i (slurm_task.c) grades roster entries i, i+T, i+2T, ... with
 * batch.c's workers, the per-student pipeline of a local batch: same
 * sandbox, verdicts, reports, each student's summary written last. The
 * submitting process then waits (slurm_wait.c) and merges every summary into
 * the gradebook, Gradescope files and charts with batch.c's writers.
 */
#ifndef GRADER_SLURM_H
#define GRADER_SLURM_H

#include <stddef.h>

#include "cli/options.h"
#include "labs/lab.h"
#include "steps/device.h"
#include "steps/rubric.h"
#include "sys/strvec.h"

struct batch;

/* The rules of the Slurm options (options.c calls it). Returns 0, or -1 with err. */
int slurm_check_options(const struct options *o, char *err, size_t len);

/* --batch DIR --slurm, or --batch DIR --collect. Exit status as batch_run's. */
int slurm_batch(const struct options *o, const struct lab *lab, const struct rubric *r);

/* --slurm-task STATE: the array task SLURM_ARRAY_TASK_ID grades its shard. */
int slurm_task(const struct options *o, const struct lab *lab, const struct rubric *r,
	       const struct device_info *dev);

/* --slurm without --batch: ./grade on a node through srun; its report on
 * our stdout, its exit status ours. */
int slurm_single(const struct options *o);

/* ---- slurm_command.c: Slurm's commands --------------------------------------- */

/* Runs argv (argv[0] looked up on PATH) with a deadline; its stdout and
 * stderr in *out (malloc'd, NUL-terminated; may be NULL). Returns its exit
 * status, or -1 with err when it could not run or was killed. */
int slurm_command(char *const argv[], double wall_s, char **out, char *err, size_t len);

/* Where a command is, or -1 with err ("sbatch is not on PATH: ..."). */
int slurm_find(const char *name, char *path, size_t pathlen, char *err, size_t len);

struct slurm_queue {
	int pending, running, other;	/* the job's tasks still in squeue */
};

/* squeue for job: how many of its tasks wait, run, or are in another state. */
int slurm_queue(const char *job, struct slurm_queue *q, char *err, size_t len);

/* How each of the job's tasks ended, states[i] for task i ("COMPLETED",
 * "CANCELLED", "TIMEOUT", "NODE_FAIL", ... or "" when unknown): from sacct,
 * or from scontrol where the cluster keeps no accounting. Returns where
 * it came from ("sacct", "scontrol"), or NULL when neither knows. */
const char *slurm_outcomes(const char *job, int n_tasks, char (*states)[32]);

/* ---- slurm_submit.c ------------------------------------------------------------ */

struct student;
struct summary;

/* 1 when the student's summary on disk holds its current resume key (the
 * GPU model it names stands for the node's); sum is what it says, hash
 * the key. */
int slurm_current_summary(const struct batch *b, const struct student *s, struct summary *sum,
			  char hash[65]);

/* ---- slurm_wait.c: while the array runs --------------------------------------- */

/* Polls squeue until the job has no task left, showing how many of the
 * todo students are graded. Returns 0, or -1 when squeue stopped answering. */
int slurm_wait(const struct batch *b, const char *job, const int *todo, int n_todo);

/* A row for each student who has none: not graded, and why (the job still
 * running, or how their task ended: sacct, else scontrol); and a line for
 * each task that did not complete, with its log. */
void slurm_mark_ungraded(struct batch *b, const char *state, const char *job, int running);

/* ---- slurm_state.c: OUT/.slurm/ ------------------------------------------------ */

#define SLURM_STATE_DIR ".slurm"

/* OUT/.slurm, created 0700 (an existing one is made 0700 again). */
int slurm_state_dir(const char *out_dir, char *buf, size_t len, char *err, size_t errlen);

/* The salt, in STATE/salt (0600). */
int slurm_salt_write(const char *state, const char *salt, char *err, size_t len);
int slurm_salt_read(const char *state, char *salt, size_t saltlen, char *err, size_t len);

/* roster.json: the students to grade (name, file), in order, and the
 * number of tasks. The roster read back is b->roster. */
int slurm_roster_write(const char *state, const struct batch *b, const int *todo, int n_todo,
		       int tasks, char *err, size_t len);
int slurm_roster_read(const char *state, struct batch *b, int *tasks, char *err, size_t len);

/* job.json: the submitted job's id, its number of tasks and students, and
 * the backend its tasks grade on (--collect needs it for the resume keys). */
int slurm_job_write(const char *state, const char *job, int tasks, int students,
		    enum backend backend, char *err, size_t len);
int slurm_job_read(const char *state, char *job, size_t joblen, int *tasks, int *students,
		   enum backend *backend);

/* ---- slurm_options.c: the options, and the command lines made from them -------- */

/* The options that a grade on a node takes (--backend, --rubric, --seed,
 * --plot, --no-isolation, --no-analysis, --jobs, and for one grade
 * --submission, --solution, --json, --quiet), none of --slurm's. */
void slurm_grade_options(const struct options *o, struct strvec *argv);

/* The sbatch/srun options: --partition, --gres, --time, --account, and
 * the job's name. */
void slurm_resource_options(const struct options *o, int emu, struct strvec *argv);

#endif
