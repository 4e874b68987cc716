/*
 * --batch: the whole run (see batch.h for the files it writes).
 *
 *   setup     folders, backend, the sandbox user can read the kit, GPUs,
 *             the reference solution built once per GPU
 *   scan      the students; the resume key of each; who is done already
 *   run       up to --jobs workers, one student each; after each, the
 *             gradebook again, from every finished student
 *   finish    the class charts, batch.json, the work folder removed
 */
#include "batch/batch.h"

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "sys/atomic_file.h"
#include "steps/build.h"
#include "steps/grade_run.h"
#include "sys/isolation.h"
#include "sys/uid_lease.h"
#include "sys/kit_paths.h"
#include "steps/occupancy_check.h"
#include "sys/clock.h"
#include "rng.h"

struct worker {
	pid_t pid;		/* 0: the slot is free */
	int student;		/* index in the roster */
	double started;
};

static volatile sig_atomic_t stop_requested;

static void on_signal(int sig)
{
	stop_requested = sig;
}

/* ---- setup ------------------------------------------------------------------ */

uint64_t batch_take_salt(const struct options *o, char *text, size_t len)
{
	uint64_t salt = options_salt(o);	/* before the wipe: after it, every salt is "" */
	text[0] = '\0';
	if (o->salt) {
		snprintf(text, len, "%s", o->salt);
		memset((char *)o->salt, 0, strlen(o->salt));
	}
	return salt;
}

static int check_kit(struct batch_config *c)
{
	char cc[PATH_MAX], why[512];
	if (backend_resolve(c->o->backend, c->dev, &c->backend, why, sizeof(why)) < 0) {
		fprintf(stderr, "grade: %s\n", why);
		return 4;
	}
	if (c->backend == BACKEND_EMU && !file_exists(kit_path(cc, sizeof(cc), "build/emu/cuemu-cc"))) {
		fprintf(stderr, "grade: the emulator is not built (%s is missing): run make\n", cc);
		return 4;
	}
	static const struct isolation_policy batch_policy = { .force = 1 };
	if (isolation_ready(c->isolate ? &batch_policy : NULL, NULL, why, sizeof(why)) < 0) {
		fprintf(stderr, "grade: %s\n", why);
		return 4;
	}
	return 0;
}

static void warn_readable(const struct batch_config *c)
{
	char sol[PATH_MAX];
	const char *dirs[] = { kit_path(sol, sizeof(sol), "solutions"), c->in_dir, c->out_dir };
	for (int i = 0; i < 3; i++) {
		struct stat st;
		if (stat(dirs[i], &st) == 0 && (st.st_mode & 0005))
			fprintf(stderr, "warning: without bubblewrap, a submission could read %s (other users "
				"may): chmod -R o-rwx %s\n", dirs[i], dirs[i]);
	}
}

static void describe_isolation(const struct batch_config *c)
{
	if (!c->isolate) {
		fprintf(stderr, "isolation: off (--no-isolation): submissions run as %s\n",
			geteuid() == 0 ? "root" : "you");
		return;
	}
	if (bwrap_available())
		fprintf(stderr, "isolation: bubblewrap (no network; only the system, the compilers and "
			"each student's own folder visible)");
	else
		fprintf(stderr, "isolation: no bubblewrap (%s)", bwrap_unavailable_reason());
	fprintf(stderr, "%s\n", geteuid() == 0 ? "; each worker runs submissions as an unprivileged uid "
						   "of its own, with a process limit" : "");
	if (!bwrap_available())
		warn_readable(c);
}

/* The batch's expected hashes, made beside the reference's build and
 * timing, while the host's cores have little else to do. */
static void *compute_hashes(void *arg)
{
	struct batch_config *c = arg;
	seed_hashes_compute(&c->hashes, c->lab, c->r, c->backend, c->seed, c->salt);
	return NULL;
}

int batch_setup(struct batch *b, const struct options *o, const struct lab *lab,
		 const struct rubric *r, const struct device_info *dev)
{
	struct batch_config *c = &b->c;
	memset(b, 0, sizeof(*b));
	c->salt = batch_take_salt(o, b->salt, sizeof(b->salt));
	c->o = o;
	c->lab = lab;
	c->r = r;
	c->dev = dev;
	c->isolate = !o->no_isolation;
	int rc = batch_setup_dirs(o, c);
	if (rc == 0)
		rc = check_kit(c);
	if (rc != 0)
		return rc;
	char locks[PATH_MAX];
	batch_lock_dir(locks, sizeof(locks));
	c->n_gpus = c->backend == BACKEND_CUDA ? batch_gpus(dev, locks, c->gpus, BATCH_MAX_GPUS) : 0;
	c->seed = o->seed_given ? o->seed : rng_fresh_seed();
	/* The emulator's outputs come back whole: it has nothing to hash. */
	int hashes = c->backend == BACKEND_CUDA;
	pthread_t hashing;
	int beside = hashes && pthread_create(&hashing, NULL, compute_hashes, c) == 0;
	batch_prepare_gpus(c);
	if (beside)
		pthread_join(hashing, NULL);
	else if (hashes)
		compute_hashes(c);
	describe_isolation(c);
	return 0;
}

/* ---- the roster and what is done already ---------------------------------------- */

/* Fills rows with what is final already: problems, and students graded
 * from the same file, rubric and salt (their summary's hash). Returns the
 * indices still to grade. */
int *batch_plan(struct batch *b, int *n_todo)
{
	char target[256], dir[PATH_MAX], path[PATH_MAX + 16];
	int *todo = malloc(sizeof(int) * (size_t)(b->roster.n + 1));
	double *guess_s = calloc((size_t)b->roster.n + 1, sizeof(double));
	b->rows = calloc((size_t)b->roster.n + 1, sizeof(*b->rows));
	*n_todo = 0;
	if (!todo || !guess_s || !b->rows) {
		free(todo);
		todo = NULL;
		goto out;
	}
	batch_target(&b->c, target, sizeof(target));
	for (int i = 0; i < b->roster.n; i++) {
		struct student *s = &b->roster.students[i];
		if (s->problem[0]) {
			batch_problem(&b->c, s->name, "", s->problem, &b->rows[i]);
			continue;
		}
		if (batch_hash(b->c.lab->id, b->c.r->path, b->salt, target, s->source, s->hash) < 0) {
			batch_problem(&b->c, s->name, "", "not graded: the file cannot be read", &b->rows[i]);
			continue;
		}
		struct summary old;
		batch_student_dir(&b->c, s->name, dir, sizeof(dir));
		snprintf(path, sizeof(path), "%s/summary.json", dir);
		int had = summary_read(path, &old) == 0;
		if (had && old.complete && strcmp(old.hash, s->hash) == 0) {
			b->rows[i] = old;
			snprintf(b->rows[i].student, sizeof(b->rows[i].student), "%s", s->name);
			b->resumed++;
			continue;
		}
		guess_s[i] = batch_guess_seconds(s->source, had ? old.wall_s : 0);
		todo[(*n_todo)++] = i;
	}
	batch_order_longest_first(todo, guess_s, *n_todo);	/* out of memory: the roster's order */
out:
	free(guess_s);
	return todo;
}

/* ---- running the workers -------------------------------------------------------- */

static void start_worker(struct batch *b, struct worker *w, int slot, int student)
{
	fflush(NULL);
	pid_t parent = getpid(), pid = fork();
	if (pid == 0) {
		/* A batch killed outright takes its workers along; what they had
		 * finished is on disk, what they had not is graded by the rerun. */
		prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
		if (getppid() != parent)
			_exit(1);
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		signal(SIGHUP, SIG_DFL);
		int rc = batch_grade_student(&b->c, &b->roster.students[student], slot);
		fflush(NULL);
		_exit(rc);
	}
	if (pid < 0) {
		batch_problem(&b->c, b->roster.students[student].name, "", "grader error: fork failed",
			      &b->rows[student]);
		b->errors++;
		return;
	}
	w->pid = pid;
	w->student = student;
	w->started = now_s();
}

/* A worker ended: its summary is the row, or the row says why there is none. */
static void collect(struct batch *b, struct worker *w, int status, int timed_out, struct progress *p)
{
	struct student *s = &b->roster.students[w->student];
	struct summary *row = &b->rows[w->student];
	char dir[PATH_MAX], path[PATH_MAX + 16], why[256], err[512];
	batch_student_dir(&b->c, s->name, dir, sizeof(dir));
	snprintf(path, sizeof(path), "%s/summary.json", dir);
	if (!timed_out && WIFEXITED(status) && WEXITSTATUS(status) == 0 && summary_read(path, row) == 0 &&
	    strcmp(row->hash, s->hash) == 0) {
		snprintf(row->student, sizeof(row->student), "%s", s->name);
	} else {
		if (timed_out)
			snprintf(why, sizeof(why), "grader error: grading took longer than %.0f s and was "
				 "stopped", b->deadline_s);
		else if (WIFSIGNALED(status))
			snprintf(why, sizeof(why), "grader error: the grading process was killed by signal %d",
				 WTERMSIG(status));
		else
			snprintf(why, sizeof(why), "grader error: the grading process wrote no results "
				 "(exit %d)", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
		batch_problem(&b->c, s->name, s->hash, why, row);
		/* The GPU model of its resume key, as a graded row says it (grader/slurm/ reads it). */
		batch_target_device(&b->c, row->device, sizeof(row->device));
		row->wall_s = now_s() - w->started;
		if (summary_write(path, row, err, sizeof(err)) < 0)
			fprintf(stderr, "grade: %s\n", err);
	}
	if (!row->complete)
		b->errors++;
	b->graded++;
	w->pid = 0;
	progress_finished(p, row);
	batch_write_gradebook(b);
}

/* Generous: every step at its limit, and (on a GPU) the wait for the
 * timing lock behind every other worker's timing. */
static double student_deadline(const struct batch_config *c, int jobs)
{
	const struct rubric *r = c->r;
	double t = 3 * r->build_timeout_s + (r->n_shapes + 2) * r->test_timeout_s +
		   r->analysis_timeout_s + 120;
	if (c->backend == BACKEND_CUDA)
		t += 2 * r->bench_timeout_s * (jobs + 1);
	return t;
}

static void stop_all(struct worker *w, int jobs)
{
	for (int i = 0; i < jobs; i++)
		if (w[i].pid > 0) {
			kill(w[i].pid, SIGKILL);
			waitpid(w[i].pid, NULL, 0);
			w[i].pid = 0;
		}
}

static void draw(struct progress *p, const struct batch *b, const struct worker *w, int jobs)
{
	const char *names[64];
	int n = 0;
	for (int i = 0; i < jobs && n < 64; i++)
		if (w[i].pid > 0)
			names[n++] = b->roster.students[w[i].student].name;
	progress_draw(p, names, n);
}

int batch_run_workers(struct batch *b, const int *todo, int n_todo, int jobs)
{
	struct worker *w = calloc((size_t)jobs, sizeof(*w));
	struct progress p;
	int next = 0, running = 0;
	if (!w)
		return -1;
	struct sigaction sa = { .sa_handler = on_signal }, old_int, old_term, old_hup;
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);
	sigaction(SIGHUP, &sa, &old_hup);
	progress_init(&p, n_todo, isatty(STDERR_FILENO));
	b->deadline_s = student_deadline(&b->c, jobs);
	while ((next < n_todo || running > 0) && !stop_requested) {
		for (int i = 0; i < jobs && next < n_todo; i++)
			if (w[i].pid == 0) {
				start_worker(b, &w[i], i, todo[next++]);
				running += w[i].pid > 0;
			}
		draw(&p, b, w, jobs);
		int status;
		pid_t pid = waitpid(-1, &status, WNOHANG);
		for (int i = 0; i < jobs; i++) {
			int late = w[i].pid > 0 && w[i].pid != pid && now_s() - w[i].started > b->deadline_s;
			int st = status;
			if (late) {
				kill(w[i].pid, SIGKILL);
				waitpid(w[i].pid, &st, 0);
			}
			if (w[i].pid > 0 && (late || w[i].pid == pid)) {
				/* One that the stop signal ended (Ctrl-C, Slurm's
				 * scancel) leaves its student ungraded, not in error. */
				if (stop_requested)
					w[i].pid = 0;
				else
					collect(b, &w[i], st, late, &p);
				running--;
			}
		}
		if (pid <= 0) {
			struct timespec ts = { 0, 100 * 1000 * 1000 };
			nanosleep(&ts, NULL);
		}
	}
	progress_clear(&p);
	stop_all(w, jobs);
	free(w);
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	sigaction(SIGHUP, &old_hup, NULL);
	return stop_requested ? -1 : 0;
}

/* ---- the end ----------------------------------------------------------------------- */

void batch_finish(struct batch *b, int jobs, double start)
{
	int passed = 0, rows = 0;
	struct summary *done = malloc(sizeof(*done) * (size_t)(b->roster.n + 1));
	for (int i = 0; done && i < b->roster.n; i++)
		if (b->rows[i].student[0]) {
			done[rows++] = b->rows[i];
			passed += strcmp(b->rows[i].verdict, "passed") == 0;
		}
	batch_write_gradebook(b);
	if (done)
		batch_charts(&b->c, done, rows, stderr);
	free(done);
	batch_write_json(b, jobs, now_s() - start);
	batch_write_times(b, now_s() - start);
	char took[32];
	fprintf(stderr, "gradebook: %s/gradebook.csv: %d student%s, %d passed, %d graded now, %d "
		"unchanged since the last run (%s)\n", b->c.out_dir, rows, rows == 1 ? "" : "s", passed,
		b->graded, b->resumed, progress_duration(now_s() - start, took, sizeof(took)));
	batch_pace_line(b, start, now_s(), stderr);
}

void batch_cleanup(struct batch *b)
{
	if (b->c.work_root[0])
		remove_tree(b->c.work_root);
	free(b->rows);
	roster_free(&b->roster);
}

/*
 * One worker a core, and on GPUs at most WORKERS_ON_GPUS for the host,
 * however many GPUs it has: past that the workers queue for the GPU's
 * turns and the host's driver, so a class goes no faster and each student
 * takes longer. Measured with the lab 3 class of 65 on H200s
 * (docs/results/gpu-2026-11-27/), when a size's time floor still grew
 * with the workers: 16 workers on one GPU graded 3,606 an hour and an
 * endless loop in 14.0 s; 32 on one GPU, 2,957 an hour and 40.4 s. A
 * second GPU does not double the bound: the
 * host makes its CUDA contexts one at a time for all its GPUs together,
 * and its cores do each student's builds and checks. On two H200s of 32
 * cores, with one work queue a context, 32 workers graded 7,114 an hour
 * and 16 graded 6,538, but each student took 11.8 s against 6.0 and an
 * endless loop 15.3 s against 8.3 (docs/results/gpu-2026-11-27-contexts/,
 * call 20); on one GPU 24 workers were slower than 16. Measured again on
 * two H200s with the kit of 2026-11-28, 24 and 32 workers graded the class
 * no faster than 16 (docs/results/gpu-2026-11-28-workers/), and again with
 * one CUDA context a student (docs/results/gpu-2026-11-28-class-now/). With
 * one floor for every GPU, two GPUs are bound by the host's driver
 * (docs/results/gpu-2026-11-28-size-time/).
 */
#define WORKERS_ON_GPUS 16

int batch_default_jobs(int asked, long cores, enum backend backend, int n_gpus)
{
	int jobs = cores > 0 ? (int)cores : 1;
	if (asked > 0)
		return asked;
	if (backend == BACKEND_CUDA && n_gpus > 0 && jobs > WORKERS_ON_GPUS)
		jobs = WORKERS_ON_GPUS;
	return jobs;
}

int batch_run(const struct options *o, const struct lab *lab, const struct rubric *r,
	      const struct device_info *dev)
{
	double start = now_s();
	struct batch b;
	char err[512];
	int rc = batch_setup(&b, o, lab, r, dev);
	if (rc != 0) {
		batch_cleanup(&b);
		return rc;
	}
	if (batch_scan(b.c.in_dir, lab, b.c.out_dir, &b.roster, err, sizeof(err)) < 0) {
		fprintf(stderr, "grade: %s\n", err);
		batch_cleanup(&b);
		return 2;
	}
	batch_write_skipped(&b);
	int n_todo, jobs = batch_default_jobs(o->jobs, sysconf(_SC_NPROCESSORS_ONLN), b.c.backend, b.c.n_gpus);
	int *todo = batch_plan(&b, &n_todo);
	if (!todo) {
		fprintf(stderr, "grade: out of memory\n");
		batch_cleanup(&b);
		return 4;
	}
	if (jobs > n_todo)
		jobs = n_todo > 0 ? n_todo : 1;
	fprintf(stderr, "Grading %d of %d students in %s (%s%s, %d at a time; %d unchanged since the last "
		"run)...\n", n_todo, b.roster.n, b.c.in_dir, backend_name(b.c.backend),
		b.c.n_gpus > 1 ? ", each worker on its own share of the GPUs" : "", jobs, b.resumed);
	batch_write_gradebook(&b);
	b.c.jobs = jobs;

	int stopped = batch_run_workers(&b, todo, n_todo, jobs) < 0;
	free(todo);

	batch_finish(&b, jobs, start);
	if (stopped)
		fprintf(stderr, "grade: stopped: every finished student is in the gradebook; run the same "
			"command again to grade the rest\n");
	else if (b.errors)
		fprintf(stderr, "grade: %d student%s hit a grader error (see the gradebook); run the same "
			"command again to retry them\n", b.errors, b.errors == 1 ? "" : "s");
	batch_cleanup(&b);
	return stopped || b.errors ? 4 : 0;
}
