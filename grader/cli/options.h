/* The command line (./grade --help says it whole). */
#ifndef GRADER_OPTIONS_H
#define GRADER_OPTIONS_H

#include <stdint.h>

#include "chart/plot_kind.h"
#include "steps/grade.h"

/* --slurm and its options (grader/slurm/). */
struct slurm_options {
	int on;				/* --slurm */
	const char *partition;		/* --partition P */
	const char *gres;		/* --gres G (NULL: gpu:1 on the GPU backend) */
	const char *time;		/* --time T, as sbatch takes it */
	const char *account;		/* --account A */
	int max_tasks;			/* --max-tasks K: array tasks at once (0: no limit) */
	int no_wait;			/* --no-wait: submit and return */
	int collect;			/* --collect: merge a submitted batch's results */
	const char *task_state;		/* --slurm-task STATE: one array task (sbatch runs it) */
};

struct options {
	const char *lab_id;		/* "lab3" */
	const char *submission;		/* --submission PATH (a .cu or a folder holding it) */
	int solution;			/* --solution */
	enum backend backend;		/* --backend */
	uint64_t seed;			/* --seed */
	int seed_given;
	const char *json_path;		/* --json FILE ("-": stdout) */
	const char *html_path;		/* --html FILE (default build/report/LAB.html) */
	enum plot_kind plot;		/* --plot */
	const char *rubric_path;	/* --rubric FILE */
	int calibrate;			/* --calibrate */
	const char *batch_dir;		/* --batch DIR */
	const char *out_dir;		/* --out DIR */
	int jobs;			/* --jobs N (0: one per core) */
	const char *salt;		/* --salt SECRET */
	int list;			/* --list */
	int help;			/* --help */
	int version;			/* --version */
	int build_only;			/* --build-only (make labN) */
	int run;			/* --run: build and run the file's own main() */
	const char *only;		/* --only SHAPE: that correctness size alone */
	int no_isolation;		/* --no-isolation */
	int no_analysis;		/* --no-analysis */
	int quiet;			/* --quiet: no report on stdout (with --json) */
	const char *chart_from;		/* --chart-from FILE: draw a saved report's charts */
	int device;			/* --device: the GPU the grader will use, or why none */
	struct slurm_options slurm;
};

/* Returns 0, or -1 with a message in err (exit status 2). */
int options_parse(int argc, char **argv, struct options *o, char *err, size_t errlen);

void options_usage(FILE *out);

/* A usage error: "grade: ERR" and the hint "try ./grade --help", two lines
 * on out, not the whole help (exit status 2). */
void options_usage_error(FILE *out, const char *err);

/* Mixes --salt into a 64-bit number; 0 when there is none. */
uint64_t options_salt(const struct options *o);

#endif
