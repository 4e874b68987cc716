/*
 * ./grade: grades a lab of the CUDA lab kit.
 *
 * The path of one grade: parse the options, find the lab and its rubric,
 * find the GPU (or fall back to the emulator), then grade_submission()
 * builds, checks, runs and times the student's file; the report goes to
 * stdout, the JSON and the charts to files. Messages go to stderr.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rng.h"
#include "batch/batch.h"
#include "steps/build.h"
#include "cli/calibrate.h"
#include "chart/chart.h"
#include "cli/run_program.h"
#include "steps/device.h"
#include "steps/grade_run.h"
#include "sys/isolation.h"
#include "sys/kit_paths.h"
#include "sys/text_replace.h"
#include "cli/options.h"
#include "cli/version.h"
#include "report/report_html.h"
#include "report/report_json.h"
#include "report/report_load.h"
#include "report/report_text.h"
#include "steps/rubric.h"
#include "slurm/slurm.h"

static void list_labs(void)
{
	printf("The labs (edit labs/<folder>/<file>, then: make labN && ./grade labN):\n\n");
	for (int i = 0; lab_table[i]; i++) {
		const struct lab *l = lab_table[i];
		printf("  %-5s %-38s labs/%s/%s\n        %s\n", l->id, l->title, l->dir, l->file, l->asks);
	}
}

/* A submission that is a symbolic link may point only inside its own
 * folder (a link to /etc/shadow would be read by the grader's user);
 * path becomes the file it names. Returns 0, or -1 after a message. */
static int follow_own_link(char *path, size_t len)
{
	struct stat st;
	char dir[PATH_MAX], real_dir[PATH_MAX], target[PATH_MAX];
	if (lstat(path, &st) < 0 || !S_ISLNK(st.st_mode))
		return 0;
	snprintf(dir, sizeof(dir), "%s", path);
	char *slash = strrchr(dir, '/');
	snprintf(slash ? slash + (slash == dir) : dir, sizeof(dir), "%s", slash ? "" : ".");
	if (!realpath(dir, real_dir) || !realpath(path, target) ||
	    strncmp(target, real_dir, strlen(real_dir)) != 0 || target[strlen(real_dir)] != '/') {
		fprintf(stderr, "grade: %s is a symbolic link to a file outside its folder: refused "
			"(copy the file itself there)\n", path);
		return -1;
	}
	snprintf(path, len, "%s", target);
	return 0;
}

/* --solution's file: the lab's answer key, the skeleton completed the way
 * the handout teaches (solutions/LAB/answer-key/FILE), where the lab has one
 * apart from its tuned reference (solutions/LAB/FILE, which the band is
 * calibrated on and a GPU grade times beside a submission); else that one
 * file, which is both. */
static int answer_key(const struct lab *lab, char *out, size_t len)
{
	char rel[512];
	snprintf(rel, sizeof(rel), "solutions/%s/answer-key/%s", lab->dir, lab->file);
	if (file_exists(kit_path(out, len, rel)))
		return 0;
	snprintf(rel, sizeof(rel), "solutions/%s/%s", lab->dir, lab->file);
	if (file_exists(kit_path(out, len, rel)))
		return 0;
	char dir[PATH_MAX];
	struct stat st;
	if (stat(kit_path(dir, sizeof(dir), "solutions"), &st) < 0) {
		fprintf(stderr, "grade: --solution: this copy of the kit has no solutions/ (the students' "
			"copy, make student-kit, leaves them out); grade your own file: ./grade %s\n",
			lab->id);
		return -1;
	}
	return 0;	/* the caller says which file is missing */
}

/* The file to grade: --submission (a file, or a folder holding the lab's
 * file), --solution, or the student's copy under labs/. */
static int find_submission(const struct options *o, const struct lab *lab, char *out, size_t len)
{
	struct stat st;
	if (o->submission) {
		if (stat(o->submission, &st) < 0) {
			fprintf(stderr, "grade: --submission %s: %s\n", o->submission, strerror(errno));
			return -1;
		}
		if (S_ISDIR(st.st_mode))
			snprintf(out, len, "%s/%s", o->submission, lab->file);
		else
			snprintf(out, len, "%s", o->submission);
	} else if (o->solution) {
		if (answer_key(lab, out, len) < 0)
			return -1;
	} else {
		char rel[512];
		snprintf(rel, sizeof(rel), "labs/%s/%s", lab->dir, lab->file);
		kit_path(out, len, rel);
	}
	if (follow_own_link(out, len) < 0)
		return -1;
	if (!file_exists(out)) {
		fprintf(stderr, "grade: %s: no such file (the %s lab's file is %s)\n", out, lab->id,
			lab->file);
		return -1;
	}
	return 0;
}

/* The headers beside the submission (#include "mine.h"), copied into dst:
 * regular files named *.h, *.cuh or *.hpp, at most 64 of them. */
static void copy_headers(const char *submission, const char *dst)
{
	char dir[PATH_MAX], from[PATH_MAX + 256], to[PATH_MAX + 256], why[PATH_MAX + 64];
	snprintf(dir, sizeof(dir), "%s", submission);
	char *slash = strrchr(dir, '/');
	snprintf(slash ? slash + (slash == dir) : dir, sizeof(dir), "%s", slash ? "" : ".");
	DIR *d = opendir(dir);
	struct dirent *e;
	for (int n = 0; d && n < 64 && (e = readdir(d));) {
		const char *dot = strrchr(e->d_name, '.');
		if (e->d_name[0] == '.' || !dot ||
		    (strcmp(dot, ".h") != 0 && strcmp(dot, ".cuh") != 0 && strcmp(dot, ".hpp") != 0))
			continue;
		snprintf(from, sizeof(from), "%s/%s", dir, e->d_name);
		snprintf(to, sizeof(to), "%s/%s", dst, e->d_name);
		n += batch_copy_source(from, to, why, sizeof(why)) == 0;	/* a link: not copied */
	}
	if (d)
		closedir(d);
}

/* The submission copied into WORK/src/, the only copy the sandbox sees
 * (its own folder, the kit and the home around it stay out of sight), with
 * the headers beside it. */
static int stage_submission(const struct lab *lab, const char *submission, const char *work,
			    char *copy, size_t len)
{
	char src[PATH_MAX], why[PATH_MAX + 64];
	snprintf(src, sizeof(src), "%.3000s/src", work);
	snprintf(copy, len, "%.3000s/%.200s", src, lab->file);
	if (mkdir(src, 0755) < 0) {
		fprintf(stderr, "grade: mkdir %s: %s\n", src, strerror(errno));
		return -1;
	}
	if (batch_copy_source(submission, copy, why, sizeof(why)) < 0) {
		fprintf(stderr, "grade: %s\n", why);
		return -1;
	}
	copy_headers(submission, src);
	return 0;
}

/* The report names the student's file, not the copy that was graded:
 * in every text of it (grade_replace_path). */
static void name_the_original(struct grade *g, const char *copy, const char *original)
{
	snprintf(g->submission, sizeof(g->submission), "%.500s", original);
	grade_replace_path(g, copy, original);
}

/* A private folder for this run's builds, under build/work/. */
static int make_work_dir(const struct lab *lab, char *out, size_t len)
{
	char parent[1024];
	kit_path(parent, sizeof(parent), "build/work");
	if (make_dirs(parent) < 0) {
		fprintf(stderr, "grade: cannot create %s: %s\n", parent, strerror(errno));
		return -1;
	}
	snprintf(out, len, "%.900s/%.8s-XXXXXX", parent, lab->id);
	if (!mkdtemp(out)) {
		fprintf(stderr, "grade: cannot create a folder under %s: %s\n", parent, strerror(errno));
		return -1;
	}
	return 0;
}

/* make labN: compile only, so that compiler errors show at once. */
static int build_only(const struct options *o, const struct lab *lab, const struct rubric *r,
		      const struct device_info *dev, const char *submission, const char *copy,
		      const char *work, const struct isolation_policy *isolation)
{
	enum backend backend;
	char why[512], log[8192];
	if (backend_resolve(o->backend, dev, &backend, why, sizeof(why)) < 0) {
		fprintf(stderr, "grade: %s\n", why);
		return 4;
	}
	int rc = build_compile_only(backend, copy, work, dev, isolation, r->build_timeout_s, log,
				    sizeof(log));
	text_replace_all(log, sizeof(log), copy, submission);
	fputs(log, stderr);
	if (rc != 0) {
		fprintf(stderr, rc > 0 ? "%s did not compile.\n" : "grade: the kit is not built: %s\n",
			submission);
		return rc > 0 ? 3 : 4;
	}
	fprintf(stderr, "%s compiles for the %s backend%s. Next: ./grade %s\n", submission,
		backend == BACKEND_CUDA ? "GPU" : "emulator",
		backend == BACKEND_CUDA ? "" : " (no CUDA device here)", lab->id);
	return 0;
}

/* A chart's message on stderr, after whatever the report has put on
 * stdout: where both go to one log (2>&1, CI), no line is split. */
static void chart_message(const char *msg)
{
	fflush(stdout);
	fprintf(stderr, "%s\n", msg);
}

static void say_chart(const char *msg, void *arg)
{
	(void)arg;
	chart_message(msg);
}

/* The charts of one grade; a missing gnuplot only costs the charts, and
 * each chart says where it went or why it was not drawn. When none can be
 * drawn (CHART_NONE_DRAWN), that is said once. An earlier grade's charts
 * of the lab are removed first, whatever happens. */
static void draw_charts(const struct options *o, const struct grade *g)
{
	char dir[1024];
	kit_path(dir, sizeof(dir), "build/charts");
	chart_remove_grade(g, dir);
	if (o->plot != PLOT_NONE)
		chart_grade(g, o->plot, dir, say_chart, NULL);
}

/* The HTML report: --html FILE, else build/report/LAB.html, said on stderr. */
static int write_html(const struct options *o, const struct grade *g)
{
	char path[1024], dir[1100], err[512];
	glob_t svgs;
	if (o->html_path) {
		snprintf(path, sizeof(path), "%s", o->html_path);
	} else {
		kit_path(path, sizeof(path), "build/report");
		mkdir(path, 0755);
		size_t n = strlen(path);
		snprintf(path + n, sizeof(path) - n, "/%s.html", g->lab->id);
	}
	/* Its charts beside it, drawn as SVG for it: LAB-charts/. */
	snprintf(dir, sizeof(dir), "%s", path);
	char *slash = strrchr(dir, '/');
	size_t at = slash ? (size_t)(slash + 1 - dir) : 0;
	snprintf(dir + at, sizeof(dir) - at, "%s-charts", g->lab->id);
	mkdir(dir, 0755);
	int globbed = chart_grade_svg(g, dir, &svgs) == 0;
	int rc = report_html_write(g, (const char *const *)svgs.gl_pathv, (int)svgs.gl_pathc, path, err,
				   sizeof(err));
	if (globbed)
		globfree(&svgs);
	if (rc < 0) {
		fflush(stdout);
		fprintf(stderr, "grade: the HTML report: %s\n", err);
		return -1;
	}
	fflush(stdout);
	fprintf(stderr, "report: %s (open it in a browser: your source, line by line)\n", path);
	return 0;
}

/* --only SHAPE: the rubric's correctness sizes become that one, on both
 * backends, the way cachelab's test-trans -M -N checks one size. */
static int only_size(const struct options *o, const struct lab *lab, struct rubric *r)
{
	struct shape s;
	char err[256];
	if (shape_parse(o->only, &s, err, sizeof(err)) < 0 || s.rank != lab->rank) {
		fprintf(stderr, "grade: --only %s: %s\ntry ./grade --help\n", o->only,
			s.rank != lab->rank ? (lab->rank == 2 ? "lab's sizes are ROWSxCOLS" : "lab's sizes are N")
					    : err);
		return -1;
	}
	r->shapes[0] = r->emu_shapes[0] = s;
	r->n_shapes = r->n_emu_shapes = 1;
	fprintf(stderr, "Only %s (--only): a check of one size, not the lab's grade.\n", o->only);
	return 0;
}

/* --device: what `--backend auto` will pick. Exit 0 with a GPU, 1 without. */
static int show_device(void)
{
	struct device_info d;
	device_probe(&d, NULL);
	if (!d.present) {
		printf("no CUDA GPU here (%s): ./grade uses the CPU emulator, which checks correctness "
		       "and analysis, and predicts speed on a named GPU (docs/model.md)\n", d.why_absent);
		return 1;
	}
	printf("%s: compute capability %d.%d, %d SMs, %.0f MB of L2, %.0f GiB, peak %.0f GB/s\n",
	       d.name, d.major, d.minor, d.sms, d.l2_bytes / 1048576.0, d.memory_bytes / 1073741824.0,
	       d.peak_gbps);
	return 0;
}

/* --chart-from: a saved report's charts, drawn again here. */
static int chart_from(const struct options *o)
{
	struct grade g;
	char err[512];
	grade_init(&g, NULL);
	if (report_load(o->chart_from, &g, err, sizeof(err)) < 0) {
		fprintf(stderr, "grade: --chart-from: %s\n", err);
		grade_free(&g);
		return 2;
	}
	if (g.n_bench == 0 && !g.analysis && !g.sweep.points)
		fprintf(stderr, "grade: %s holds no timings and no analysis to draw (speed is measured "
			"only on a GPU, for a correct kernel)\n", o->chart_from);
	draw_charts(o, &g);
	grade_free(&g);
	return 0;
}

/* The reference solution is timed beside the submission when the score
 * needs it (this GPU has no calibrated band) or a chart will show it. */
static int reference_needed(const struct options *o, const struct rubric *r,
			    const struct device_info *dev)
{
	if (o->solution)
		return 0;
	return o->plot != PLOT_NONE || !rubric_gpu_band(r, dev->name);
}

static int grade_one(const struct options *o, const struct lab *lab, const struct rubric *r,
		     const struct device_info *dev, const char *submission, const char *copy,
		     const char *work, const struct isolation_policy *isolation)
{
	struct grade g;
	grade_init(&g, lab);
	struct grade_request req = {
		.lab = lab,
		.rubric = r,
		.submission = copy,
		.backend = o->backend,
		.seed = o->seed_given ? o->seed : rng_fresh_seed(),
		.salt = 0,
		.work_dir = work,
		.time_reference = reference_needed(o, r, dev),
		.isolation = isolation,
		.analysis = !o->no_analysis,
	};
	/* On a GPU, the machine's lock of it: another grade timed at once,
	 * alone or a batch's, would take half the bandwidth from each. */
	struct gpu_slot gpu;
	int on_gpu = o->backend != BACKEND_EMU && dev->present;
	if (on_gpu) {
		batch_gpu_alone(dev, &gpu);
		req.share = (struct gpu_share){ .phase = batch_gpu_phase, .lend = batch_gpu_lend, .arg = &gpu };
	}
	fprintf(stderr, "Grading %s (%s), seed %llu...\n", submission, lab->id,
		(unsigned long long)req.seed);
	grade_submission(&req, dev, &g);
	if (on_gpu)
		batch_gpu_close(&gpu);
	name_the_original(&g, copy, submission);

	if (!o->quiet)
		report_text(stdout, &g, report_use_colour(stdout));
	int status = grade_exit_status(&g);
	if (o->json_path) {
		char err[512];
		if (strcmp(o->json_path, "-") == 0) {
			json_t *j = report_json(&g);
			json_dumpf(j, stdout, JSON_INDENT(2));
			putchar('\n');
			json_decref(j);
		} else if (report_json_write(&g, o->json_path, err, sizeof(err)) < 0) {
			fflush(stdout);
			fprintf(stderr, "grade: %s\n", err);
			status = 4;
		}
	}
	draw_charts(o, &g);
	if (write_html(o, &g) < 0)
		status = 4;
	grade_free(&g);
	return status;
}

int main(int argc, char **argv)
{
	struct options o;
	char err[1024];
	if (options_parse(argc, argv, &o, err, sizeof(err)) < 0) {
		options_usage_error(stderr, err);
		return 2;
	}
	if (o.help) {
		options_usage(stdout);
		return 0;
	}
	if (o.version) {
		printf("CUDA lab kit %s (commit %s)\n", KIT_VERSION, kit_commit());
		return 0;
	}
	if (o.list) {
		list_labs();
		return 0;
	}
	if (o.chart_from)
		return chart_from(&o);
	if (o.device)
		return show_device();
	const struct lab *lab = lab_find(o.lab_id);
	if (!lab) {
		char ids[256];
		fprintf(stderr, "grade: no lab called '%s': the labs are %s (./grade --list)\n", o.lab_id,
			lab_ids(ids, sizeof(ids)));
		return 2;
	}

	char rubric_path[1024], rel[512];
	snprintf(rel, sizeof(rel), "labs/%s/lab.ini", lab->dir);
	if (o.rubric_path)
		snprintf(rubric_path, sizeof(rubric_path), "%s", o.rubric_path);
	else
		kit_path(rubric_path, sizeof(rubric_path), rel);
	struct rubric r;
	if (rubric_load(rubric_path, lab->rank, &r, err, sizeof(err)) < 0) {
		fprintf(stderr, "grade: bad rubric: %s\n", err);
		rubric_free(&r);
		return 2;
	}

	if (o.only && only_size(&o, lab, &r) < 0) {
		rubric_free(&r);
		return 2;
	}

	struct device_info dev;
	device_probe(&dev, NULL);
	int status;
	if (o.batch_dir && o.slurm.task_state) {
		status = slurm_task(&o, lab, &r, &dev);
	} else if (o.batch_dir && (o.slurm.on || o.slurm.collect)) {
		status = slurm_batch(&o, lab, &r);
	} else if (o.batch_dir) {
		status = batch_run(&o, lab, &r, &dev);
	} else if (o.slurm.on) {
		status = slurm_single(&o);
	} else if (o.calibrate) {
		status = calibrate_run(&o, lab, &r, &dev);
	} else {
		char submission[PATH_MAX], work[1024], copy[PATH_MAX];
		if (find_submission(&o, lab, submission, sizeof(submission)) < 0) {
			rubric_free(&r);
			return 2;
		}
		if (make_work_dir(lab, work, sizeof(work)) < 0) {
			rubric_free(&r);
			return 4;
		}
		/* Every child, the compilers too, sandboxed; as root, as a uid of
		 * its own (isolation.h), never as root. */
		struct isolation_policy isolated = { .force = 1, .writable = work };
		const struct isolation_policy *policy = o.no_isolation ? NULL : &isolated;
		if (stage_submission(lab, submission, work, copy, sizeof(copy)) < 0)
			status = 2;
		else if (isolation_ready(policy, work, err, sizeof(err)) < 0) {
			fprintf(stderr, "grade: %s\n", err);
			status = 4;
		} else
			status = o.build_only ? build_only(&o, lab, &r, &dev, submission, copy, work, policy)
				 : o.run      ? run_program(&o, lab, &r, &dev, submission, copy, work, policy)
					      : grade_one(&o, lab, &r, &dev, submission, copy, work, policy);
		remove_tree(work);
	}
	rubric_free(&r);
	return status;
}
