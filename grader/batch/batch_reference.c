/*
 * The reference solution in a batch: built once per GPU model, where no
 * student's sandbox can see it, and timed once per GPU model at the start,
 * then kept for every student (a timed run holds its GPU alone, so timing
 * the reference beside each student would double the GPU time of a class).
 * Each student's own runs still time a device-to-device copy interleaved
 * with theirs: the ceiling they are scored against comes from their run.
 */
#include "batch/batch.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "steps/build.h"
#include "steps/performance.h"
#include "sys/kit_paths.h"

/* Slot i's reference harness, or that of an earlier GPU of the same model. */
static void build_one(struct batch_config *c, int i)
{
	struct gpu_slot *g = &c->gpus[i];
	char dir[PATH_MAX + 32], log[8192];
	for (int k = 0; k < i; k++)
		if (c->gpus[k].reference_harness[0] && c->gpus[k].dev.major == g->dev.major &&
		    c->gpus[k].dev.minor == g->dev.minor) {
			/* k < i: two slots, never the same bytes */
			memcpy(g->reference_harness, c->gpus[k].reference_harness,
			       sizeof(g->reference_harness));
			return;
		}
	struct build_result b;
	snprintf(dir, sizeof(dir), "%s/reference-%d", c->work_root, i);
	if (mkdir(dir, 0711) == 0 &&
	    build_reference(c->lab, dir, &g->dev, NULL, c->r->build_timeout_s, &b, log, sizeof(log)) == 0)
		snprintf(g->reference_harness, sizeof(g->reference_harness), "%s", b.harness);
	else
		fprintf(stderr, "grade: the reference solution did not build for %s: scores use the "
			"rubric's band\n%s\n", g->dev.name, log);
}

/* Slot i's reference timing, or that of an earlier GPU of the same model. */
static void time_one(struct batch_config *c, int i)
{
	struct gpu_slot *g = &c->gpus[i];
	for (int k = 0; k < i; k++)
		if (c->gpus[k].reference_timing && strcmp(c->gpus[k].dev.name, g->dev.name) == 0) {
			g->reference_timing = c->gpus[k].reference_timing;
			return;
		}
	if (!g->reference_harness[0])
		return;
	char msg[1024];
	/* The GPU alone, as for any timed run (another batch may be using it).
	 * A copy of the slot: lock files opened here must not be inherited by
	 * the workers, whose locks would then be this one. */
	struct gpu_slot locks = *g;
	locks.lock_fd = locks.turn_fd = -1;
	/* Kit code only: run as the grader's other tools are, on this slot's GPU. */
	struct run_context ctx = { .lab = c->lab, .rubric = c->r, .backend = BACKEND_CUDA,
				   .work_dir = c->work_root, .salt = c->salt,
				   .gpu = g->visible[0] ? g->visible : NULL, .share = { .phase = batch_gpu_phase, .arg = &locks } };
	struct bench_run *run = calloc(1, sizeof(*run));
	int rc = run ? bench_harness(&ctx, g->reference_harness, 0, run, msg, sizeof(msg)) : -1;
	if (locks.lock_fd >= 0)
		close(locks.lock_fd);
	if (locks.turn_fd >= 0)
		close(locks.turn_fd);
	if (rc == 0) {
		g->reference_timing = run;	/* kept for the batch: the workers fork from here */
	} else {
		fprintf(stderr, "grade: the reference solution could not be timed on %s (%s): it is timed "
			"beside each student instead\n", g->dev.name, run ? msg : "out of memory");
		if (run)
			bench_run_free(run);
		free(run);
	}
}

void batch_references(struct batch_config *c)
{
	if (c->backend != BACKEND_CUDA)
		return;
	for (int i = 0; i < c->n_gpus; i++)
		build_one(c, i);
	for (int i = 0; i < c->n_gpus; i++)
		time_one(c, i);
}
