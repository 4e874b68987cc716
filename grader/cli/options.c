/* Parsing the command line with getopt_long (see options.h). */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rng.h"
#include "labs/lab.h"
#include "cli/options.h"
#include "slurm/slurm.h"

void options_usage(FILE *out)
{
	char ids[256];
	fprintf(out, "usage: ./grade LAB [options]        grade labs/LAB*/ (LAB is %s)\n",
		lab_ids(ids, sizeof(ids)));
	fputs("       ./grade --list               the labs and what each asks for\n"
	      "\n"
	      "  --submission PATH   grade another file (a .cu) or a folder holding it\n"
	      "  --solution          grade the lab's answer key (solutions/README.md; instructors)\n"
	      "  --backend B         auto (GPU if present, else the CPU emulator), cuda, emu\n"
	      "  --seed N            reproduce a run's inputs (every report prints its seed)\n"
	      "  --json FILE         also write the machine-readable report (- for stdout)\n"
	      "  --html FILE         write the HTML report there (default build/report/LAB.html)\n"
	      "  --run               build the file with its own main() and run it (nothing graded)\n"
	      "  --only SHAPE        the correctness tests at that size alone (1025, 31x33): a quick\n"
	      "                      check while you work, not the lab's grade\n"
	      "  --plot KIND         png (default, under build/charts/), svg, term, none\n"
	      "  --rubric FILE       use another rubric than labs/LAB*/lab.ini\n"
	      "  --calibrate         time the solution and the known-slow fixtures on this GPU\n"
	      "                      and write this GPU's band into the rubric\n"
	      "  --batch DIR         grade every submission in DIR (one per student)\n"
	      "    --out DIR         where the gradebook and reports go (default: DIR-graded)\n"
	      "    --jobs N          students graded at once (default: one per core, at most 16 on GPUs)\n"
	      "    --salt SECRET     mix a secret into every seed\n"
	      "    --slurm           grade on a Slurm cluster, one job array (--no-wait: submit\n"
	      "                      and return; --collect: merge later; --max-tasks K at once)\n"
	      "  --slurm             without --batch: one grade on a GPU node, through srun\n"
	      "    --partition P  --gres G  --time T  --account A   passed to sbatch/srun\n"
	      "  --no-isolation      do not use bubblewrap even where it is installed\n"
	      "  --no-analysis       skip the emulator's analysis\n"
	      "  --build-only        only compile the lab's file (what make labN does)\n"
	      "  --quiet             no terminal report (use with --json)\n"
	      "  --chart-from FILE   draw the charts of a saved JSON report (--plot KIND)\n"
	      "  --device            the GPU ./grade will use, or why it will use the emulator\n"
	      "                      (exit 0 with a GPU, 1 without: usable in a script's if)\n"
	      "  --version           the kit's version and the commit it was built from\n"
	      "  --help\n"
	      "\n"
	      "Exit status: 0 every check passed; 1 graded, some check failed; 2 usage or\n"
	      "rubric error; 3 the submission did not build; 4 the grader could not run it.\n",
	      out);
}

void options_usage_error(FILE *out, const char *err)
{
	fprintf(out, "grade: %s\ntry ./grade --help\n", err);
}

static int parse_backend(const char *s, enum backend *b)
{
	if (strcmp(s, "auto") == 0) *b = BACKEND_AUTO;
	else if (strcmp(s, "cuda") == 0) *b = BACKEND_CUDA;
	else if (strcmp(s, "emu") == 0) *b = BACKEND_EMU;
	else return -1;
	return 0;
}

static int parse_u64(const char *s, uint64_t *out)
{
	char *end;
	errno = 0;
	if (*s == '-')
		return -1;
	unsigned long long v = strtoull(s, &end, 10);
	if (errno || end == s || *end)
		return -1;
	*out = v;
	return 0;
}

enum { OPT_SOLUTION = 256, OPT_BACKEND, OPT_SEED, OPT_JSON, OPT_HTML, OPT_PLOT, OPT_RUBRIC, OPT_CALIBRATE,
       OPT_BATCH, OPT_OUT, OPT_JOBS, OPT_SALT, OPT_LIST, OPT_BUILD_ONLY, OPT_RUN, OPT_ONLY, OPT_NO_ISOLATION,
       OPT_NO_ANALYSIS, OPT_QUIET, OPT_SUBMISSION, OPT_CHART_FROM, OPT_DEVICE, OPT_VERSION, OPT_SLURM,
       OPT_PARTITION, OPT_GRES, OPT_TIME, OPT_ACCOUNT, OPT_MAX_TASKS, OPT_NO_WAIT, OPT_COLLECT,
       OPT_SLURM_TASK };

static const struct option long_options[] = {
	{ "submission", required_argument, NULL, OPT_SUBMISSION },
	{ "solution", no_argument, NULL, OPT_SOLUTION },
	{ "backend", required_argument, NULL, OPT_BACKEND },
	{ "seed", required_argument, NULL, OPT_SEED },
	{ "json", required_argument, NULL, OPT_JSON },
	{ "html", required_argument, NULL, OPT_HTML },
	{ "plot", required_argument, NULL, OPT_PLOT },
	{ "rubric", required_argument, NULL, OPT_RUBRIC },
	{ "calibrate", no_argument, NULL, OPT_CALIBRATE },
	{ "batch", required_argument, NULL, OPT_BATCH },
	{ "out", required_argument, NULL, OPT_OUT },
	{ "jobs", required_argument, NULL, OPT_JOBS },
	{ "salt", required_argument, NULL, OPT_SALT },
	{ "list", no_argument, NULL, OPT_LIST },
	{ "build-only", no_argument, NULL, OPT_BUILD_ONLY },
	{ "run", no_argument, NULL, OPT_RUN },
	{ "only", required_argument, NULL, OPT_ONLY },
	{ "no-isolation", no_argument, NULL, OPT_NO_ISOLATION },
	{ "no-analysis", no_argument, NULL, OPT_NO_ANALYSIS },
	{ "quiet", no_argument, NULL, OPT_QUIET },
	{ "chart-from", required_argument, NULL, OPT_CHART_FROM },
	{ "device", no_argument, NULL, OPT_DEVICE },
	{ "version", no_argument, NULL, OPT_VERSION },
	{ "slurm", no_argument, NULL, OPT_SLURM },
	{ "partition", required_argument, NULL, OPT_PARTITION },
	{ "gres", required_argument, NULL, OPT_GRES },
	{ "time", required_argument, NULL, OPT_TIME },
	{ "account", required_argument, NULL, OPT_ACCOUNT },
	{ "max-tasks", required_argument, NULL, OPT_MAX_TASKS },
	{ "no-wait", no_argument, NULL, OPT_NO_WAIT },
	{ "collect", no_argument, NULL, OPT_COLLECT },
	{ "slurm-task", required_argument, NULL, OPT_SLURM_TASK },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

/* One option; returns 0 or -1 with err set. */
static int apply(int opt, const char *arg, struct options *o, char *err, size_t errlen)
{
	uint64_t v;
	switch (opt) {
	case OPT_SUBMISSION: o->submission = arg; return 0;
	case OPT_SOLUTION: o->solution = 1; return 0;
	case OPT_BACKEND:
		if (parse_backend(arg, &o->backend) == 0)
			return 0;
		snprintf(err, errlen, "--backend: '%s' is not auto, cuda or emu", arg);
		return -1;
	case OPT_SEED:
		if (parse_u64(arg, &o->seed) == 0) {
			o->seed_given = 1;
			return 0;
		}
		snprintf(err, errlen, "--seed: '%s' is not a whole number", arg);
		return -1;
	case OPT_JSON: o->json_path = arg; return 0;
	case OPT_HTML: o->html_path = arg; return 0;
	case OPT_PLOT:
		if (plot_kind_parse(arg, &o->plot) == 0)
			return 0;
		snprintf(err, errlen, "--plot: '%s' is not png, svg, term or none", arg);
		return -1;
	case OPT_RUBRIC: o->rubric_path = arg; return 0;
	case OPT_CALIBRATE: o->calibrate = 1; return 0;
	case OPT_BATCH: o->batch_dir = arg; return 0;
	case OPT_OUT: o->out_dir = arg; return 0;
	case OPT_JOBS:
		if (parse_u64(arg, &v) == 0 && v >= 1 && v <= 1024) {
			o->jobs = (int)v;
			return 0;
		}
		snprintf(err, errlen, "--jobs: '%s' is not a number from 1 to 1024", arg);
		return -1;
	case OPT_SALT: o->salt = arg; return 0;
	case OPT_LIST: o->list = 1; return 0;
	case OPT_BUILD_ONLY: o->build_only = 1; return 0;
	case OPT_RUN: o->run = 1; return 0;
	case OPT_ONLY: o->only = arg; return 0;
	case OPT_NO_ISOLATION: o->no_isolation = 1; return 0;
	case OPT_NO_ANALYSIS: o->no_analysis = 1; return 0;
	case OPT_QUIET: o->quiet = 1; return 0;
	case OPT_CHART_FROM: o->chart_from = arg; return 0;
	case OPT_DEVICE: o->device = 1; return 0;
	case OPT_VERSION: o->version = 1; return 0;
	case OPT_SLURM: o->slurm.on = 1; return 0;
	case OPT_PARTITION: o->slurm.partition = arg; return 0;
	case OPT_GRES: o->slurm.gres = arg; return 0;
	case OPT_TIME: o->slurm.time = arg; return 0;
	case OPT_ACCOUNT: o->slurm.account = arg; return 0;
	case OPT_MAX_TASKS:
		if (parse_u64(arg, &v) == 0 && v >= 1 && v <= 100000) {
			o->slurm.max_tasks = (int)v;
			return 0;
		}
		snprintf(err, errlen, "--max-tasks: '%s' is not a number from 1 to 100000", arg);
		return -1;
	case OPT_NO_WAIT: o->slurm.no_wait = 1; return 0;
	case OPT_COLLECT: o->slurm.collect = 1; return 0;
	case OPT_SLURM_TASK: o->slurm.task_state = arg; return 0;
	case 'h': o->help = 1; return 0;
	}
	snprintf(err, errlen, "unknown option");
	return -1;
}

/* Options that only make sense together. */
static int check_combination(const struct options *o, char *err, size_t errlen)
{
	if (o->help || o->version || o->list || o->chart_from || o->device)
		return 0;
	if (!o->lab_id) {
		char ids[256];
		snprintf(err, errlen, "which lab? ./grade LAB, where LAB is one of %s (./grade --list)",
			 lab_ids(ids, sizeof(ids)));
		return -1;
	}
	if (o->submission && o->solution) {
		snprintf(err, errlen, "--submission and --solution: choose one");
		return -1;
	}
	if ((o->out_dir || o->jobs || o->salt) && !o->batch_dir) {
		snprintf(err, errlen, "--out, --jobs and --salt go with --batch DIR");
		return -1;
	}
	if (o->batch_dir && (o->submission || o->solution || o->calibrate)) {
		snprintf(err, errlen, "--batch grades a folder of submissions: it does not go with "
			 "--submission, --solution or --calibrate");
		return -1;
	}
	return slurm_check_options(o, err, errlen);
}

int options_parse(int argc, char **argv, struct options *o, char *err, size_t errlen)
{
	memset(o, 0, sizeof(*o));
	o->backend = BACKEND_AUTO;
	o->plot = PLOT_PNG;
	opterr = 0;
	optind = 1;
	int opt;
	while ((opt = getopt_long(argc, argv, ":h", long_options, NULL)) != -1) {
		if (opt == '?' || opt == ':') {
			const char *bad = argv[optind - 1];
			snprintf(err, errlen, opt == ':' ? "%s needs a value" : "unknown option %s", bad);
			return -1;
		}
		if (apply(opt, optarg, o, err, errlen) < 0)
			return -1;
	}
	if (optind < argc)
		o->lab_id = argv[optind++];
	if (optind < argc) {
		snprintf(err, errlen, "unexpected argument '%s'", argv[optind]);
		return -1;
	}
	return check_combination(o, err, errlen);
}

uint64_t options_salt(const struct options *o)
{
	if (!o->salt)
		return 0;
	uint64_t h = 0x6a09e667f3bcc909ull;
	for (const char *p = o->salt; *p; p++)
		h = rng_mix64(h ^ (unsigned char)*p);
	return h ? h : 1;
}
