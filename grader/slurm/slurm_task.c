/*
 * --slurm-task STATE: one task of the array (sbatch runs it on a node).
 * It prepares the batch as a local one does on this node (its GPU, from
 * the CUDA_VISIBLE_DEVICES Slurm set; the reference built and timed once),
 * takes its shard of the frozen roster -- entries i, i+T, i+2T, ... for
 * task i of T -- and grades it with batch.c's workers: each student in a
 * sandbox, its folder written whole, summary last. The gradebook is the
 * submitting process's to write. Killed (scancel, time limit, node
 * failure), it leaves the students it had not finished without a summary:
 * ungraded, and graded again by the next submission.
 */
#include "slurm/slurm.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "batch/batch.h"

/* Slurm's SLURM_ARRAY_TASK_ID: which task this is. */
static int task_index(int tasks)
{
	const char *id = getenv("SLURM_ARRAY_TASK_ID");
	char *end;
	long i = id ? strtol(id, &end, 10) : -1;
	if (!id || end == id || *end || i < 0 || i >= tasks)
		return -1;
	return (int)i;
}

/* The task's students: entries task, task + tasks, ... of the roster. */
static int take_shard(struct batch *b, const struct roster *all, int task, int tasks)
{
	b->roster.students = calloc((size_t)all->n / (size_t)tasks + 2, sizeof(*b->roster.students));
	if (!b->roster.students)
		return -1;
	for (int i = task; i < all->n; i += tasks)
		b->roster.students[b->roster.n++] = all->students[i];
	return 0;
}

int slurm_task(const struct options *o, const struct lab *lab, const struct rubric *r,
	       const struct device_info *dev)
{
	const char *state = o->slurm.task_state;
	char salt[1024], err[512];
	struct batch all, b;
	int tasks, task;
	memset(&all, 0, sizeof(all));
	if (slurm_roster_read(state, &all, &tasks, err, sizeof(err)) < 0 ||
	    (task = task_index(tasks)) < 0) {
		fprintf(stderr, "grade: --slurm-task: %s\n", all.roster.students ? "SLURM_ARRAY_TASK_ID is "
			"not one of this array's tasks (sbatch runs this)" : err);
		roster_free(&all.roster);
		return 2;
	}
	struct options task_options = *o;
	task_options.salt = NULL;
	if (slurm_salt_read(state, salt, sizeof(salt), err, sizeof(err)) == 0)
		task_options.salt = salt;	/* batch_setup wipes it after use */
	int rc = batch_setup(&b, &task_options, lab, r, dev);
	b.shard = 1;
	if (rc == 0 && take_shard(&b, &all.roster, task, tasks) < 0)
		rc = 4;
	roster_free(&all.roster);
	int n_todo = 0, *todo = rc == 0 ? batch_plan(&b, &n_todo) : NULL;
	if (rc == 0 && !todo)
		rc = 4;
	if (rc == 0) {
		int jobs = o->jobs > 0 ? o->jobs : 1;
		fprintf(stderr, "task %d of %d: grading %d of its %d students (%s, %d at a time)\n", task,
			tasks, n_todo, b.roster.n, backend_name(b.c.backend), jobs);
		if (batch_run_workers(&b, todo, n_todo, jobs) < 0)
			rc = 4;
		else
			rc = b.errors ? 4 : 0;
		fprintf(stderr, "task %d: %s: %d graded, %d grader error%s\n", task,
			rc == 4 && !b.errors ? "stopped" : "done", b.graded, b.errors,
			b.errors == 1 ? "" : "s");
	}
	free(todo);
	batch_cleanup(&b);
	return rc;
}
