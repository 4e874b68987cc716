/*
 * One student, in a worker process of its own (batch.c forks it).
 *
 * The student's file is copied into a fresh folder under the batch's work
 * folder, in a subfolder the sandbox user cannot write (so that code run
 * later cannot swap the source a later build reads). Every child of the
 * grade -- compilers, nm, the harness -- then runs isolated with that
 * folder as the only writable place, the batch's input and output hidden.
 * The results go to OUT/students/NAME/, each file whole or not at all, the
 * summary last: a summary on disk means the rest is there too.
 */
#include "batch/batch.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "sys/atomic_file.h"
#include "chart/chart.h"
#include "steps/grade_run.h"
#include "steps/scale.h"
#include "sys/isolation.h"
#include "sys/uid_lease.h"
#include "sys/kit_paths.h"
#include "report/report_html.h"
#include "report/report_json.h"
#include "report/report_text.h"
#include "sys/clock.h"

void batch_student_dir(const struct batch_config *c, const char *name, char *buf, size_t len)
{
	snprintf(buf, len, "%.3000s/students/%.255s", c->out_dir, name);
}

/* WORK (the sandbox user's) and WORK/src/FILE (root's, read-only to it). */
static int make_work(const struct batch_config *c, const struct student *s, long uid, char *work,
		     char *file, char *why, size_t len)
{
	char src[PATH_MAX];
	snprintf(work, PATH_MAX, "%.3000s/XXXXXX", c->work_root);
	if (!mkdtemp(work)) {
		snprintf(why, len, "cannot create a folder in %.300s: %s", c->work_root, strerror(errno));
		return -1;
	}
	snprintf(src, sizeof(src), "%.3000s/src", work);
	snprintf(file, PATH_MAX, "%.3000s/%.200s", src, c->lab->file);
	if (mkdir(src, 0755) < 0 || batch_copy_source(s->source, file, why, len) < 0)
		return -1;
	if (uid >= 0 && (chown(work, (uid_t)uid, (gid_t)uid) < 0 || chmod(work, 0700) < 0)) {
		snprintf(why, len, "cannot hand %.300s to uid %ld: %s", work, uid, strerror(errno));
		return -1;
	}
	return 0;
}

static void grade_in_sandbox(const struct batch_config *c, const struct student *s, int slot,
			     struct grade *g)
{
	char work[PATH_MAX], file[PATH_MAX], why[512];
	long uid = c->isolate ? uid_lease() : -1;
	struct gpu_slot *gpu = c->n_gpus ? (struct gpu_slot *)&c->gpus[slot % c->n_gpus] : NULL;
	if (make_work(c, s, uid, work, file, why, sizeof(why)) < 0) {
		g->internal_error = 1;
		snprintf(g->internal_message, sizeof(g->internal_message), "%.500s", why);
		return;
	}
	/* Every child, the compilers' too, as the leased uid, seeing only its
	 * own folder: not the class's submissions, not the gradebook. */
	struct isolation_policy isolated = { .force = 1, .writable = work,
					     .hide = { c->in_dir, c->out_dir }, .n_hide = 2 };
	struct grade_request req = {
		.lab = c->lab,
		.rubric = c->r,
		.submission = file,
		.backend = c->backend,
		.seed = c->seed,
		.seed_hashes = &c->hashes,
		.salt = c->salt,
		.work_dir = work,
		.time_reference = 0,	/* never built next to student code: see below */
		.isolation = c->isolate ? &isolated : NULL,
		.gpu = batch_worker_gpu(gpu),
		.analysis = !c->o->no_analysis,
		.in_batch = 1,
		.share = gpu ? (struct gpu_share){ .phase = batch_gpu_phase, .lend = batch_gpu_lend, .arg = gpu }
			     : (struct gpu_share){ 0 },
		/* Built once by the batch, out of every sandbox's sight. */
		.reference_harness = gpu && gpu->reference_harness[0] ? gpu->reference_harness : NULL,
		.reference_timing = gpu ? gpu->reference_timing : NULL,
		.occupancy_table = gpu && gpu->occupancy_table[0] ? gpu->occupancy_table : NULL,
	};
	grade_submission(&req, gpu ? &gpu->dev : c->dev, g);
	/* Messages and compiler output name the student's file, never the
	 * grader's copy or its work folder; the report names the file graded. */
	char work_slash[PATH_MAX + 1];
	snprintf(work_slash, sizeof(work_slash), "%.4000s/", work);
	grade_replace_path(g, file, c->lab->file);
	grade_replace_path(g, work_slash, "");
	snprintf(g->submission, sizeof(g->submission), "%.500s", s->source);
	remove_tree(work);
}

static int write_text_report(const struct grade *g, const char *path, char *err, size_t len)
{
	char *text = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&text, &n);
	if (!f) {
		snprintf(err, len, "out of memory");
		return -1;
	}
	report_text(f, g, 0);
	fclose(f);
	int rc = atomic_write(path, text, n, err, len);
	free(text);
	return rc;
}

static int write_gradescope(const struct grade *g, const char *verdict, double wall_s,
			    const char *path, char *err, size_t len)
{
	json_t *j = gradescope_json(g, verdict, wall_s);
	char *text = j ? json_dumps(j, JSON_INDENT(2) | JSON_REAL_PRECISION(10)) : NULL;
	json_decref(j);
	if (!text) {
		snprintf(err, len, "%.300s: out of memory", path);
		return -1;
	}
	int rc = atomic_write(path, text, strlen(text), err, len);
	free(text);
	return rc;
}

/* report.html, its charts drawn as SVG into the student's charts/ (none
 * with --plot none, or without gnuplot). */
static int write_html_report(const struct batch_config *c, const struct grade *g, const char *dir,
			     const char *path, char *err, size_t len)
{
	char charts[PATH_MAX + 16];
	glob_t svgs = { 0 };
	int globbed = 0;
	snprintf(charts, sizeof(charts), "%s/charts", dir);
	if (c->o->plot != PLOT_NONE && make_dirs(charts) == 0)
		globbed = chart_grade_svg(g, charts, &svgs) == 0;
	int rc = report_html_write(g, (const char *const *)svgs.gl_pathv, globbed ? (int)svgs.gl_pathc : 0,
				   path, err, len);
	if (globbed)
		globfree(&svgs);
	return rc;
}

/* The student's folder: reports first, the summary last. */
static int write_results(const struct batch_config *c, const struct student *s,
			 const struct grade *g, double wall_s)
{
	char dir[PATH_MAX], path[PATH_MAX + 32], err[1024], msg[512];
	struct summary sum;
	batch_student_dir(c, s->name, dir, sizeof(dir));
	summary_from_grade(g, s->name, s->hash, wall_s, &sum);
	int rc = make_dirs(dir);
	if (rc < 0)
		snprintf(err, sizeof(err), "cannot create %.300s: %s", dir, strerror(errno));
	if (rc == 0) {
		snprintf(path, sizeof(path), "%s/report.txt", dir);
		rc = write_text_report(g, path, err, sizeof(err));
	}
	if (rc == 0) {
		snprintf(path, sizeof(path), "%s/report.json", dir);
		rc = report_json_write(g, path, err, sizeof(err));
	}
	if (rc == 0) {
		snprintf(path, sizeof(path), "%s/results.json", dir);
		rc = write_gradescope(g, sum.verdict, wall_s, path, err, sizeof(err));
	}
	if (rc == 0 && g->n_bench > 0 && c->o->plot != PLOT_NONE)
		chart_bandwidth(g, c->o->plot == PLOT_SVG ? PLOT_SVG : PLOT_PNG, dir, msg, sizeof(msg));
	if (rc == 0) {
		snprintf(path, sizeof(path), "%s/report.html", dir);
		rc = write_html_report(c, g, dir, path, err, sizeof(err));
	}
	if (rc == 0) {
		snprintf(path, sizeof(path), "%s/summary.json", dir);
		rc = summary_write(path, &sum, err, sizeof(err));
	}
	if (rc != 0)
		fprintf(stderr, "grade: %s: %s\n", s->name, err);
	return rc == 0 ? 0 : 1;
}

int batch_problem(const struct batch_config *c, const char *name, const char *hash, const char *why,
		  struct summary *row)
{
	char dir[PATH_MAX], path[PATH_MAX + 32], err[1024];
	struct grade g;
	summary_problem(name, hash, why, rubric_max_score(c->r), row);
	grade_init(&g, c->lab);
	g.backend = c->backend;
	scale_settle(c->r, why, &g);
	batch_student_dir(c, name, dir, sizeof(dir));
	snprintf(path, sizeof(path), "%s/results.json", dir);
	int rc = make_dirs(dir);
	if (rc < 0)
		snprintf(err, sizeof(err), "cannot create %.300s: %s", dir, strerror(errno));
	else
		rc = write_gradescope(&g, why, 0, path, err, sizeof(err));
	if (rc < 0)
		fprintf(stderr, "grade: %s: %s\n", name, err);
	grade_free(&g);
	return rc < 0 ? -1 : 0;
}

int batch_grade_student(const struct batch_config *c, const struct student *s, int slot)
{
	double start = now_s();
	struct gpu_account account;
	batch_gpu_account(&account);
	struct grade g;
	grade_init(&g, c->lab);
	grade_in_sandbox(c, s, slot, &g);
	/* Before the results: the summary stays the last file written. */
	char dir[PATH_MAX];
	batch_student_dir(c, s->name, dir, sizeof(dir));
	if (make_dirs(dir) == 0)
		batch_write_gpu_waits(dir, c->n_gpus ? c->gpus[slot % c->n_gpus].visible : NULL,
				      now_s() - start, g.correctness_processes, &account);
	int rc = write_results(c, s, &g, now_s() - start);
	grade_free(&g);
	return rc;
}
