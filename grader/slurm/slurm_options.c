/*
 * The grade's command line for a node, made again from the parsed options
 * rather than filtered from argv: getopt_long takes abbreviations
 * ("--slu"), so filtering could let --slurm through and a node would
 * submit again. Paths stay as given: sbatch and srun start the command in
 * the folder they were run from, on the cluster's shared file system.
 */
#include "slurm/slurm.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>


static void push_path(struct strvec *a, const char *flag, const char *path)
{
	strvec_push(a, flag);
	strvec_push(a, path);
}

void slurm_grade_options(const struct options *o, struct strvec *a)
{
	char num[32];
	strvec_push(a, "--backend");
	/* On a node, "auto" would pick the emulator where the GPU is missing:
	 * what the login node's --backend said, or the GPU. */
	strvec_push(a, o->backend == BACKEND_EMU ? "emu" : "cuda");
	if (o->rubric_path)
		push_path(a, "--rubric", o->rubric_path);
	if (o->seed_given) {
		snprintf(num, sizeof(num), "%" PRIu64, o->seed);
		strvec_push(a, "--seed");
		strvec_push(a, num);
	}
	strvec_push(a, "--plot");
	strvec_push(a, plot_kind_name(o->plot));
	if (o->no_isolation)
		strvec_push(a, "--no-isolation");
	if (o->no_analysis)
		strvec_push(a, "--no-analysis");
	if (o->jobs > 0) {
		snprintf(num, sizeof(num), "%d", o->jobs);
		strvec_push(a, "--jobs");
		strvec_push(a, num);
	}
	if (o->batch_dir)
		return;
	if (o->submission)
		push_path(a, "--submission", o->submission);
	if (o->solution)
		strvec_push(a, "--solution");
	if (o->json_path)
		push_path(a, "--json", o->json_path);
	if (o->quiet)
		strvec_push(a, "--quiet");
	if (o->build_only)
		strvec_push(a, "--build-only");
}

void slurm_resource_options(const struct options *o, int emu, struct strvec *a)
{
	char arg[512];
	const struct { const char *flag, *value; } opts[] = {
		{ "--partition", o->slurm.partition },
		/* The GPU backend asks for a GPU unless told otherwise; the
		 * emulator needs none. */
		{ "--gres", o->slurm.gres ? (strcmp(o->slurm.gres, "none") == 0 ? NULL : o->slurm.gres)
				  : emu ? NULL : "gpu:1" },
		{ "--time", o->slurm.time },
		{ "--account", o->slurm.account },
	};
	for (size_t i = 0; i < sizeof(opts) / sizeof(opts[0]); i++)
		if (opts[i].value) {
			snprintf(arg, sizeof(arg), "%s=%s", opts[i].flag, opts[i].value);
			strvec_push(a, arg);
		}
	snprintf(arg, sizeof(arg), "--job-name=grade-%s", o->lab_id);
	strvec_push(a, arg);
	if (o->jobs > 1) {
		snprintf(arg, sizeof(arg), "--cpus-per-task=%d", o->jobs);
		strvec_push(a, arg);
	}
}

int slurm_check_options(const struct options *o, char *err, size_t len)
{
	const struct slurm_options *s = &o->slurm;
	if (s->task_state && !o->batch_dir) {
		snprintf(err, len, "--slurm-task goes with --batch (sbatch runs it)");
		return -1;
	}
	if ((s->partition || s->gres || s->time || s->account) && !s->on) {
		snprintf(err, len, "--partition, --gres, --time and --account go with --slurm");
		return -1;
	}
	if ((s->max_tasks || s->no_wait) && !(s->on && o->batch_dir)) {
		snprintf(err, len, "--max-tasks and --no-wait go with --batch DIR --slurm");
		return -1;
	}
	if (s->collect && (!o->batch_dir || s->on)) {
		snprintf(err, len, "--collect merges a submitted batch: ./grade LAB --batch DIR --collect "
			 "(without --slurm)");
		return -1;
	}
	if (s->on && o->calibrate) {
		snprintf(err, len, "--slurm grades one file or a --batch: --calibrate runs on the GPU "
			 "itself (srun ./grade LAB --calibrate)");
		return -1;
	}
	return 0;
}
