/*
 * --batch: grading a class of untrusted submissions into a gradebook.
 *
 *   ./grade LAB --batch DIR [--out DIR] [--jobs N] [--salt SECRET]
 *
 * Each entry of DIR is a student: a folder holding the lab's file, or one
 * NAME.cu. The output folder (DIR-graded unless --out) holds
 *
 *   gradebook.csv            one row per student (batch_gradebook.c)
 *   scores.png bandwidth.png class histograms (batch_charts.c)
 *   batch.json               the run: lab, backend, isolation, counts, times
 *   batch-times.txt          seconds per student
 *   skipped.txt              entries of DIR that are no student, and why
 *   students/NAME/           report.txt, report.json, results.json
 *                            (Gradescope), summary.json (the gradebook's row
 *                            and the resume key), bandwidth chart on a GPU,
 *                            gpu-waits.txt (what its worker waited for)
 *
 * The flow (batch.c): list DIR, skip every student whose summary says it
 * was graded from the same file, rubric, lab and salt (SHA-256), then fork
 * up to --jobs workers, one per student (batch_student.c). A worker grades
 * in a folder of its own under build/work/, every child isolated
 * (isolation.h), and writes the student's folder, summary last. The parent
 * rebuilds the gradebook from the summaries each time a worker ends, so a
 * batch stopped at any moment loses no finished student, and the same
 * command resumes it. Timed GPU runs take a per-GPU lock (batch_gpu.c).
 */
#ifndef GRADER_BATCH_H
#define GRADER_BATCH_H

#include <limits.h>
#include <stdint.h>
#include <stdio.h>

#include "steps/device.h"
#include "steps/grade.h"
#include "cli/options.h"
#include "steps/rubric.h"
#include "steps/seed_hashes.h"

struct bench_run;

/* How many students a batch grades at once: asked (--jobs) where given,
 * else one a core, and on GPUs at most 16 for the host (batch.c says why). */
int batch_default_jobs(int asked, long cores, enum backend backend, int n_gpus);

/* Returns the exit status: 0 when every student has a row, 2 for bad
 * arguments, 4 when it could not run or a student hit a grader error. */
int batch_run(const struct options *o, const struct lab *lab, const struct rubric *r,
	      const struct device_info *dev);

/* The salt for the seeds (options_salt), with its text copied into text
 * for the resume key; then argv's copy is wiped, so that it does not stay
 * readable in /proc/PID/cmdline, where any process of the machine could
 * read it while the batch runs. */
uint64_t batch_take_salt(const struct options *o, char *text, size_t len);

/* ---- batch_scan.c: who is in DIR ------------------------------------------ */

#define BATCH_MAX_SOURCE (1 << 20)	/* a larger .cu is not a lab submission */
#define BATCH_NAME_LEN 256

struct student {
	char name[BATCH_NAME_LEN];	/* the folder's name, or the file's less ".cu" */
	char source[PATH_MAX];		/* the file to grade */
	char problem[256];		/* why it cannot be graded; "" when it can */
	char hash[65];			/* the resume key (batch_hash) */
};

struct skipped {
	char name[BATCH_NAME_LEN];
	char why[256];
};

struct roster {
	struct student *students;	/* sorted by name */
	int n;
	struct skipped *skipped;
	int n_skipped;
};

/* Lists dir: folders and .cu files are students; the rest, and hidden
 * entries, symbolic links and skip_path (the output folder, when it is
 * inside dir), are skipped. Returns 0, or -1 with err (dir unreadable). */
int batch_scan(const char *dir, const struct lab *lab, const char *skip_path, struct roster *r,
	       char *err, size_t errlen);
void roster_free(struct roster *r);

/* Copies src (a regular file, not a link, with one name, that its owner may
 * read, at most BATCH_MAX_SOURCE bytes)
 * to dst, created new. Returns 0, or -1 with why. */
int batch_copy_source(const char *src, const char *dst, char *why, size_t len);

/* ---- batch_summary.c: one student's row, and the resume key -------------- */

struct summary {
	char student[BATCH_NAME_LEN];
	char hash[65];
	int complete;		/* graded to the end: a rerun may skip it */
	double score, max_score;
	int has_group[GROUP_COUNT];	/* in group_order */
	double group_points[GROUP_COUNT];
	double percent_of_copy;	/* < 0: not measured */
	char verdict[512];
	int exit_status;	/* what ./grade would have returned */
	uint64_t seed;
	char backend[16];
	char device[128];
	char isolation[512];
	char gpu[64];		/* CUDA_VISIBLE_DEVICES of the worker: which GPU; "" for one */
	double wall_s;		/* the worker's time for this student */
};

/* The resume key: SHA-256 over the lab, the rubric file's bytes, the salt,
 * the backend and device, and the submission's bytes, as 64 hex digits.
 * Returns 0, or -1 when a file cannot be read. */
int batch_hash(const char *lab_id, const char *rubric_path, const char *salt, const char *target,
	       const char *source, char out[65]);

/* SHA-256 over the files that exist of paths[0..n) (names and bytes): the
 * kit's own build, so that a rebuilt grader grades everyone again. */
void batch_fingerprint(const char *const *paths, int n, char out[65]);

void summary_from_grade(const struct grade *g, const char *student, const char *hash,
			double wall_s, struct summary *s);
/* A row for a student that was not graded (problem or grader failure). */
/* A row for a student the batch could not grade: 0 out of max_score (the
 * rubric's), the verdict saying why. */
void summary_problem(const char *student, const char *hash, const char *verdict, double max_score,
		     struct summary *s);

int summary_write(const char *path, const struct summary *s, char *err, size_t errlen);
/* Returns 0, or -1 when there is no readable summary at path. */
int summary_read(const char *path, struct summary *s);

/* ---- batch_verdict.c: the gradebook's one line ------------------------------ */

/* "passed", "did not build", "refused: calls fork", "correctness failed on
 * 31x33: wrong output (2 of 8 sizes failed)", ... */
void batch_verdict(const struct grade *g, char *buf, size_t len);

/* text's first line into buf (len bytes), at most max bytes of it: where it
 * is longer, cut after a whole word, marked "...", with every bracket left
 * open by the cut closed: "refused: calls a function of the C libraries...". */
void batch_cut_text(char *buf, size_t len, const char *text, size_t max);

/* Makes s one line of valid UTF-8, in place: control characters (C0, DEL,
 * C1) and bytes that are not UTF-8 become '?' (text from student code
 * reaches verdicts). */
void batch_clean_text(char *s);

/* The short reason of one failed correctness test, from its failure:
 * "time limit", "crashed: signal 11 (Segmentation fault)", "corrupted
 * report channel"; a failure of no short name, the message's first line. */
void batch_failure_reason(const struct test_result *t, char *buf, size_t len);

/* ---- batch_gradebook.c: gradebook.csv ---------------------------------------- */

/* One CSV field (RFC 4180): quoted when it holds a comma, a quote, a line
 * break or edge spaces, quotes doubled. A text field that a spreadsheet
 * would run as a formula (=, +, -, @ first) gets a leading apostrophe. */
void csv_field(FILE *f, const char *s);

/* Writes rows as the gradebook, atomically. Returns 0, or -1 with err. */
int gradebook_write(const char *path, const struct summary *rows, int n, char *err, size_t errlen);

/* ---- batch_gradescope.c: results.json ----------------------------------------- */

/* Gradescope's results.json for g (https://gradescope-autograders.readthedocs.io/en/latest/specs/). */
json_t *gradescope_json(const struct grade *g, const char *verdict, double wall_s);

/* ---- batch_progress.c: what the instructor sees ------------------------------- */

struct progress {
	int total;		/* students to grade in this run */
	int done;
	int tty;		/* draw the live line (stderr is a terminal) */
	double start;		/* monotonic seconds */
	int drawn;		/* a live line is on screen */
};

void progress_init(struct progress *p, int total, int tty);
/* Redraws the live line: done/total, who is being graded, time left. */
void progress_draw(struct progress *p, const char *const *running, int n_running);
/* One permanent line for a finished student (above the live line). */
void progress_finished(struct progress *p, const struct summary *s);
void progress_clear(struct progress *p);
/* "1h02m", "3m20s", "42s". */
const char *progress_duration(double seconds, char *buf, size_t len);
/* Seconds left from the pace so far; < 0 before the first student ends. */
double progress_eta(const struct progress *p, double now);

/* ---- batch_gpu.c: sharing GPUs between workers --------------------------------- */

#define BATCH_MAX_GPUS 16

struct gpu_slot {
	char visible[64];		/* CUDA_VISIBLE_DEVICES for this GPU */
	struct device_info dev;
	char lock_path[PATH_MAX];	/* flock: shared for correctness, exclusive for timing */
	char turn_path[PATH_MAX];	/* flock: makes a waiting timed run go first */
	char reference_harness[PATH_MAX];	/* the solution built for it, or "" */
	struct bench_run *reference_timing;	/* the solution timed on it once, or NULL */
	char occupancy_table[PATH_MAX];	/* lab 4: its occupancy API's answers, or "" */
	int lock_fd, turn_fd;		/* opened by each worker (flock is per open file) */
};

/* The GPU locks of this machine: KIT_LOCK_DIR, else GPU_LOCK_DIR, created.
 * One folder for every kit and every user here, so that a grade alone, a
 * batch and another checkout's grades wait for one another's timed runs on
 * the same GPU (two grades timed at once each measure half a GPU). /tmp is
 * the machine's own even where a cluster's nodes share the kit's files:
 * GPU 0 of one node never waits for GPU 0 of another. */
#define GPU_LOCK_DIR "/tmp/cuda-lab-kit-locks"
void batch_lock_dir(char *buf, size_t len);

/* The slot of the GPU a grade alone uses (the one its grader sees), with
 * the machine's locks, for its grade_request's share; batch_gpu_close
 * after. */
void batch_gpu_alone(const struct device_info *dev, struct gpu_slot *out);
void batch_gpu_close(struct gpu_slot *s);

/* The GPUs to use: each entry of CUDA_VISIBLE_DEVICES, or devices 0, 1, ...
 * as the probe finds them. Returns how many (0 when there is none). */
int batch_gpus(const struct device_info *dev, const char *lock_dir, struct gpu_slot *out, int max);

/* The CUDA_VISIBLE_DEVICES a worker's children get for slot (NULL: none):
 * the slot's GPU, else the grader's own setting (NULL when unset). */
const char *batch_worker_gpu(const struct gpu_slot *slot);

struct batch_config;

/* Before the workers start: the reference solution built once per GPU
 * model, and lab 4's occupancy API asked once per GPU model, each where no
 * student's sandbox can see it. */
void batch_prepare_gpus(struct batch_config *c);

/* gpu_share.phase for a gpu_slot: correctness shares the GPU,
 * timing has it alone; a timed run that waits goes before new shares. */
void batch_gpu_phase(void *slot, int timed, int begin);
struct gpu_hold;
/* gpu_share.lend for a gpu_slot: the child gets the lock and turn files,
 * neither held, and takes the GPU itself (batch_gpu.c). */
int batch_gpu_lend(void *slot, int begin, int fds[2], const struct gpu_hold *said);

/* What this worker's student waited for on the GPU, and held it for
 * (seconds): written beside its reports (gpu-waits.txt), summed by the
 * batch's last line, which says whether the GPUs, the CPUs or the CUDA
 * driver bind. */
struct gpu_account {
	double wait_shared_s, held_shared_s;	/* correctness: shared with other checks */
	double wait_alone_s, held_alone_s;	/* timing: the GPU alone */
	double drain_s;		/* of wait_alone_s: the turn held while shared holds ended */
	int shared_runs, timed_runs;
	int pinned_runs;	/* children that kept the GPU to their end */
	int contexts;		/* children that said when they made their CUDA context */
};
void batch_gpu_account(struct gpu_account *out);

/* A span of the CUDA driver's work for a child, as it said (information
 * only): from at_s, seconds on CLOCK_MONOTONIC (sys/clock.h's now_s, the
 * host's one clock), for s seconds. */
struct context_span {
	double at_s, s;
};
/* A child's CUDA context: its making, and the child's end from its last
 * report to its reaping, in which the driver tears the context down
 * (end.s < 0: not known). */
struct child_context {
	struct context_span making, end;
};
/* This worker's children's contexts, the account's contexts of them, in
 * the order they ended. */
const struct child_context *batch_gpu_contexts(void);

/* The student's gpu-waits.txt: its GPU account since start (the
 * account when its grade began: a worker is forked from the batch, whose
 * reference timing is in the account it inherits), its grade's seconds,
 * and the children its correctness started (struct grade's
 * correctness_processes: on a GPU, each a CUDA context); then a line for
 * each context its children said they made. */
void batch_write_gpu_waits(const char *student_dir, const char *gpu, double wall_s,
			   int correctness_processes, const struct gpu_account *start);

/* The seconds of [from, to] in which at least one of spans[0..n) was
 * under way: their union, clipped (spans sorted by start in place). */
double batch_spans_union(struct context_span *spans, int n, double from, double to);

struct batch;

/* The class's pace and what binds it, from the students graded now
 * (the batch's last line), the batch having run from start_s to end_s
 * (now_s): the GPUs' time held alone, the CPUs' time used, and the share
 * of the wall clock in which some child was making its CUDA context. */
void batch_pace_line(const struct batch *b, double start_s, double end_s, FILE *out);

/* ---- batch_student.c: one student, in a worker --------------------------------- */

struct batch_config {
	const struct options *o;
	const struct lab *lab;
	const struct rubric *r;
	const struct device_info *dev;
	enum backend backend;
	char in_dir[PATH_MAX];		/* absolute: hidden from children */
	char out_dir[PATH_MAX];
	char work_root[PATH_MAX];	/* build/work/batch-XXXXXX */
	struct gpu_slot gpus[BATCH_MAX_GPUS];
	int n_gpus;
	int jobs;			/* workers at a time; 0 where unknown (a Slurm task) */
	uint64_t salt;
	/* Every student's inputs: one seed for the batch, so that each size's
	 * expected hash is computed once for the class (seed_hashes.h). */
	uint64_t seed;
	struct seed_hashes hashes;
	int isolate;
};

/* ---- batch_folders.c: the output and work folders --------------------------------- */

/* c->in_dir, c->out_dir (made, locked for this batch, not inside the kit)
 * and c->work_root (made and locked); the work folders of dead batches
 * removed. Returns 0, or the exit status after a message. */
int batch_setup_dirs(const struct options *o, struct batch_config *c);

/* ---- batch_reference.c: the solution, built and timed once per GPU model --------- */

/* Fills each GPU slot's reference_harness and reference_timing (either may
 * stay empty: a student's grade then times the solution itself, or uses the
 * rubric's band). */
void batch_references(struct batch_config *c);

/* "OUT/students/NAME". */
void batch_student_dir(const struct batch_config *c, const char *name, char *buf, size_t len);

/* Grades s and writes its folder; slot picks the GPU. Runs in a forked
 * worker; returns the worker's exit status (0: the summary is written). */
int batch_grade_student(const struct batch_config *c, const struct student *s, int slot);

/* A student the batch could not grade (no file, a link, a worker that
 * died): row scores 0 out of the rubric's maximum, and the student's
 * folder still gets a results.json that says why. Returns 0, or -1 when
 * the file could not be written (said on stderr). */
int batch_problem(const struct batch_config *c, const char *name, const char *hash, const char *why,
		  struct summary *row);

/* ---- batch.c: the whole run ----------------------------------------------------- */

struct batch {
	struct batch_config c;
	struct roster roster;
	struct summary *rows;	/* one per student; rows[i].student[0] == 0: not finished */
	char salt[1024];
	int graded, resumed, errors;
	double deadline_s;	/* a worker that takes longer is stopped */
	int shard;		/* a Slurm array task: its students' folders only; the
				 * submitting process writes the gradebook (grader/slurm/) */
};

/* The phases of batch_run, for grader/slurm/ to run apart: a Slurm task
 * grades its shard (setup, plan, workers), the submitting process merges
 * (finish). */
int batch_setup(struct batch *b, const struct options *o, const struct lab *lab,
		const struct rubric *r, const struct device_info *dev);
/* Fills b->rows with what is final already; returns the roster's indices
 * still to grade, the longest guessed first (malloc'd; NULL when out of
 * memory). */
int *batch_plan(struct batch *b, int *n_todo);
/* How long a student will take its worker, guessed: last_wall_s (its
 * time in the last batch that graded it) where that is known (> 0), else
 * a build's time for a file that includes Thrust, CUB or libcu++ headers,
 * else 0 (batch_order.c). */
double batch_guess_seconds(const char *source, double last_wall_s);
/* Reorders todo (roster indices) by guess_s (indexed by roster index),
 * the longest first, the roster's order among equals. Returns 0, or -1
 * when out of memory (todo unchanged). */
int batch_order_longest_first(int *todo, const double *guess_s, int n);
/* Up to jobs workers over todo. Returns 0, or -1 when stopped by a signal
 * (SIGINT, SIGTERM, SIGHUP): a student cut short stays ungraded. */
int batch_run_workers(struct batch *b, const int *todo, int n_todo, int jobs);
/* The gradebook, the class charts, batch.json and batch-times.txt. */
void batch_finish(struct batch *b, int jobs, double start);
void batch_cleanup(struct batch *b);

/* ---- batch_output.c: the batch's own files ------------------------------------ */

/* skipped.txt: what in DIR is not a student (removed when nothing was). */
void batch_write_skipped(const struct batch *b);

/* What the grades were made with: the backend, the GPU, and the kit's own
 * build (grader, harness, emulator), so that a fixed grader regrades. */
void batch_target(const struct batch_config *c, char *buf, size_t len);
/* The GPU model in the target ("" for the emulator). */
void batch_target_device(const struct batch_config *c, char *buf, size_t len);

/* gradebook.csv: the rows of the students finished so far, in the roster's order. */
void batch_write_gradebook(const struct batch *b);

/* batch.json: what this run was and did. */
void batch_write_json(const struct batch *b, int jobs, double wall_s);

/* batch-times.txt: each graded student's seconds, for the record. */
void batch_write_times(const struct batch *b, double wall_s);

/* ---- batch_charts.c -------------------------------------------------------------- */

/* The class histograms; one line per chart into log (drawn or why not). */
void batch_charts(const struct batch_config *c, const struct summary *rows, int n, FILE *log);

#endif
