/*
 * --batch DIR --slurm: the submitting process (see slurm.h).
 *
 *   prepare   OUT, the roster of DIR, who is graded already (their
 *             summaries hold the current resume key); the rest and the
 *             salt frozen in OUT/.slurm/
 *   submit    one sbatch --array=0-(T-1)%K; task i grades roster entries
 *             i, i+T, ... (slurm_task.c)
 *   wait      squeue until the job is gone (slurm_wait.c); --no-wait returns
 *   merge     every summary into the gradebook, Gradescope files and charts,
 *             with the local batch's writers (batch_finish); --collect
 *             does this alone, later
 *
 * Running the same command again submits only the students still missing;
 * a job still in the queue is never submitted twice.
 */
#include "slurm/slurm.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "batch/batch.h"
#include "sys/clock.h"
#include "sys/kit_paths.h"
#include "sys/utf8.h"

#define STUDENTS_PER_TASK 4	/* a task's setup (the reference timed) is paid per task */
#define MAX_ARRAY 1000		/* below Slurm's default MaxArraySize (1001) */

/* The resume key a student's summary must hold: the target it names is
 * the GPU model its task was given (the login node has none to probe). */
static void expected_hash(const struct batch *b, const struct student *s, const char *device,
			  struct batch_config *scratch, char out[65])
{
	char target[256];
	*scratch = b->c;
	scratch->n_gpus = 1;
	snprintf(scratch->gpus[0].dev.name, sizeof(scratch->gpus[0].dev.name), "%s", device);
	batch_target(scratch, target, sizeof(target));
	if (batch_hash(b->c.lab->id, b->c.r->path, b->salt, target, s->source, out) < 0)
		out[0] = '\0';
}

int slurm_current_summary(const struct batch *b, const struct student *s, struct summary *sum,
			  char hash[65])
{
	char dir[PATH_MAX], path[PATH_MAX + 16];
	struct batch_config *scratch = malloc(sizeof(*scratch));	/* large: the GPU slots */
	batch_student_dir(&b->c, s->name, dir, sizeof(dir));
	snprintf(path, sizeof(path), "%s/summary.json", dir);
	int current = scratch && summary_read(path, sum) == 0;
	if (current) {
		expected_hash(b, s, sum->device, scratch, hash);
		current = hash[0] && strcmp(sum->hash, hash) == 0;
	}
	free(scratch);
	return current;
}

static int valid_utf8(const char *s)
{
	for (size_t n; *s; s += n)
		if (!(n = utf8_len((const unsigned char *)s)))
			return 0;
	return 1;
}

/* Rows for what is on disk: problems, and each summary that holds its
 * student's current key (graded, or a grader error). Returns the indices
 * of the students that are not graded to the end (malloc'd). */
static int *plan(struct batch *b, int *n_todo)
{
	int *todo = malloc(sizeof(int) * (size_t)(b->roster.n + 1));
	free(b->rows);
	b->rows = calloc((size_t)b->roster.n + 1, sizeof(*b->rows));
	b->resumed = b->errors = 0;
	*n_todo = 0;
	if (!todo || !b->rows) {
		free(todo);
		return NULL;
	}
	for (int i = 0; i < b->roster.n; i++) {
		struct student *s = &b->roster.students[i];
		struct summary old;
		if (!s->problem[0] && (!valid_utf8(s->name) || !valid_utf8(s->source)))
			snprintf(s->problem, sizeof(s->problem), "not graded: the name is not UTF-8, which "
				 "the Slurm roster (JSON) cannot carry: rename it, or grade it locally");
		if (s->problem[0]) {
			batch_problem(&b->c, s->name, "", s->problem, &b->rows[i]);
			continue;
		}
		if (slurm_current_summary(b, s, &old, s->hash)) {
			b->rows[i] = old;
			snprintf(b->rows[i].student, sizeof(b->rows[i].student), "%s", s->name);
			b->resumed += old.complete;
			b->errors += !old.complete;
			if (old.complete)
				continue;
		}
		todo[(*n_todo)++] = i;
	}
	return todo;
}

/* The kit's parts every task needs, built before anything is submitted:
 * a missing one would fail every task of the array. */
static int kit_built(enum backend backend)
{
	const char *parts[] = { "build/libkit.a", "build/emu/cuemu-cc",
				backend == BACKEND_CUDA ? "build/harness/cuda/harness_main.o"
							: "build/harness/emu/harness_main.o" };
	char path[PATH_MAX];
	for (size_t i = 0; i < sizeof(parts) / sizeof(parts[0]); i++)
		if (!file_exists(kit_path(path, sizeof(path), parts[i]))) {
			fprintf(stderr, "grade: the kit is not built (%s is missing): run make before "
				"--slurm\n", path);
			return 0;
		}
	return 1;
}

/* OUT, the roster and the salt, as a local batch has them; no GPU here. */
static int prepare(struct batch *b, const struct options *o, const struct lab *lab,
		   const struct rubric *r, char *state, size_t len)
{
	char err[512];
	memset(b, 0, sizeof(*b));
	b->c.salt = batch_take_salt(o, b->salt, sizeof(b->salt));
	b->c.o = o;
	b->c.lab = lab;
	b->c.r = r;
	b->c.backend = o->backend == BACKEND_EMU ? BACKEND_EMU : BACKEND_CUDA;
	b->c.isolate = !o->no_isolation;
	if (!kit_built(b->c.backend))
		return 4;
	int rc = batch_setup_dirs(o, &b->c);
	if (rc != 0)
		return rc;
	if (slurm_state_dir(b->c.out_dir, state, len, err, sizeof(err)) < 0) {
		fprintf(stderr, "grade: %s\n", err);
		return 4;
	}
	/* --collect, or a rerun without --salt: the salt the job was given. */
	if (!o->salt && slurm_salt_read(state, b->salt, sizeof(b->salt), err, sizeof(err)) == 0)
		fprintf(stderr, "using the salt kept in %s\n", state);
	if (batch_scan(b->c.in_dir, lab, b->c.out_dir, &b->roster, err, sizeof(err)) < 0) {
		fprintf(stderr, "grade: %s\n", err);
		return 2;
	}
	batch_write_skipped(b);
	return 0;
}

/* The job still queued from an earlier submission, if any. */
static int job_in_queue(const char *state, char *job, size_t len)
{
	int tasks, students;
	enum backend backend;
	struct slurm_queue q;
	char err[512];
	if (slurm_job_read(state, job, len, &tasks, &students, &backend) < 0)
		return 0;
	return slurm_queue(job, &q, err, sizeof(err)) < 0 || q.pending + q.running + q.other > 0;
}

static int submit(const struct batch *b, const struct options *o, const char *state, int tasks,
		  char *job, size_t joblen)
{
	char arg[PATH_MAX + 64], self[PATH_MAX], script[PATH_MAX], err[512];
	struct strvec a = { 0 };
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	self[n > 0 ? n : 0] = '\0';
	strvec_push(&a, "sbatch");
	strvec_push(&a, "--parsable");
	snprintf(arg, sizeof(arg), "--array=0-%d", tasks - 1);
	if (o->slurm.max_tasks)
		snprintf(arg + strlen(arg), sizeof(arg) - strlen(arg), "%%%d", o->slurm.max_tasks);
	strvec_push(&a, arg);
	snprintf(arg, sizeof(arg), "--output=%s/task-%%A_%%a.log", state);
	strvec_push(&a, arg);
	slurm_resource_options(o, b->c.backend == BACKEND_EMU, &a);
	strvec_push(&a, kit_path(script, sizeof(script), "grader/slurm/task.sh"));
	/* The task's command: paths and options only, never a name or the salt. */
	strvec_push(&a, self);
	strvec_push(&a, o->lab_id);
	strvec_push(&a, "--batch");
	strvec_push(&a, b->c.in_dir);
	strvec_push(&a, "--out");
	strvec_push(&a, b->c.out_dir);
	strvec_push(&a, "--slurm-task");
	strvec_push(&a, state);
	slurm_grade_options(o, &a);
	char *out = NULL;
	int rc = a.failed ? -1 : slurm_command(a.v, 120, &out, err, sizeof(err));
	strvec_free(a.v);
	/* --parsable: "JOBID" or "JOBID;CLUSTER", after any warning lines. */
	char *line = out ? strrchr(out, '\n') : NULL;
	while (line && line > out && line[1] == '\0') {
		*line = '\0';
		line = strrchr(out, '\n');
	}
	line = line ? line + 1 : out;
	if (rc != 0 || !line || *line < '0' || *line > '9') {
		fprintf(stderr, "grade: sbatch failed: %s\n", rc < 0 ? err : out ? out : "no output");
		free(out);
		return -1;
	}
	snprintf(job, joblen, "%.*s", (int)strcspn(line, ";\n"), line);
	free(out);
	return 0;
}

/* Everything on disk into the gradebook, and a row saying why for each
 * student that is not graded; returns the exit status. */
static int merge(struct batch *b, const char *state, const char *job, int running, int tasks,
		 double start)
{
	int n_todo, resumed_before = b->resumed;
	int *todo = plan(b, &n_todo);
	if (!todo) {
		fprintf(stderr, "grade: out of memory\n");
		return 4;
	}
	b->graded = b->resumed - resumed_before + b->errors;
	if (job[0])
		slurm_mark_ungraded(b, state, job, running);
	b->resumed = resumed_before;
	batch_finish(b, tasks, start);
	int missing = n_todo - b->errors;
	if (missing > 0)
		fprintf(stderr, "grade: %d student%s not graded (see the gradebook): run the same command "
			"again to submit them\n", missing, missing == 1 ? "" : "s");
	if (b->errors > 0)
		fprintf(stderr, "grade: %d student%s hit a grader error (see the gradebook); run the same "
			"command again to retry them\n", b->errors, b->errors == 1 ? "" : "s");
	free(todo);
	return n_todo > 0 ? 4 : 0;
}

static int collect(struct batch *b, const char *state, double start)
{
	char job[64] = "";
	int tasks = 1, students = 0;
	enum backend backend;
	if (slurm_job_read(state, job, sizeof(job), &tasks, &students, &backend) < 0) {
		fprintf(stderr, "grade: %s has no submitted job: nothing to collect (submit with "
			"--slurm)\n", state);
		return 2;
	}
	if (b->c.o->backend == BACKEND_AUTO)
		b->c.backend = backend;	/* the resume keys name the backend the job graded on */
	int running = job_in_queue(state, job, sizeof(job));
	if (running)
		fprintf(stderr, "job %s is still running: merging what is finished so far\n", job);
	return merge(b, state, job, running, tasks, start);
}

int slurm_batch(const struct options *o, const struct lab *lab, const struct rubric *r)
{
	double start = now_s();
	char state[PATH_MAX], job[64] = "", err[512];
	struct batch b;
	int n_todo = 0, *todo = NULL, rc = prepare(&b, o, lab, r, state, sizeof(state));
	if (rc == 0 && o->slurm.collect) {
		rc = collect(&b, state, start);
	} else if (rc == 0 && job_in_queue(state, job, sizeof(job))) {
		fprintf(stderr, "grade: job %s of this batch is still in the queue: wait for it (--collect "
			"merges its results), or scancel %s first\n", job, job);
		rc = 4;
	} else if (rc == 0 && !(todo = plan(&b, &n_todo))) {
		fprintf(stderr, "grade: out of memory\n");
		rc = 4;
	} else if (rc == 0 && n_todo == 0) {
		job[0] = '\0';
		rc = merge(&b, state, job, 0, 1, start);
	} else if (rc == 0) {
		int tasks = (n_todo + STUDENTS_PER_TASK - 1) / STUDENTS_PER_TASK;
		if (tasks > MAX_ARRAY)
			tasks = MAX_ARRAY;
		if ((o->salt && slurm_salt_write(state, b.salt, err, sizeof(err)) < 0) ||
		    slurm_roster_write(state, &b, todo, n_todo, tasks, err, sizeof(err)) < 0) {
			fprintf(stderr, "grade: %s\n", err);
			rc = 4;
		} else if (submit(&b, o, state, tasks, job, sizeof(job)) < 0) {
			rc = 4;
		} else {
			if (slurm_job_write(state, job, tasks, n_todo, b.c.backend, err, sizeof(err)) < 0)
				fprintf(stderr, "grade: %s (--collect will not find the job)\n", err);
			fprintf(stderr, "Submitted job %s: %d of %d students in %d task%s (%s; %d unchanged "
				"since the last run)\n", job, n_todo, b.roster.n, tasks, tasks == 1 ? "" : "s",
				backend_name(b.c.backend), b.resumed);
			if (o->slurm.no_wait)
				fprintf(stderr, "When it ends: ./grade %s --batch %s --out %s --collect\n",
					lab->id, b.c.in_dir, b.c.out_dir);
			else if (slurm_wait(&b, job, todo, n_todo) < 0)
				rc = 4;
			else
				rc = merge(&b, state, job, 0, tasks, start);
		}
	}
	free(todo);
	batch_cleanup(&b);
	return rc;
}
