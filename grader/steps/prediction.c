/* The performance model's prediction of the graded call (see prediction.h). */
#include "steps/prediction.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/model.h"
#include "model/model_explain.h"
#include "model/model_input.h"
#include "steps/harness_door.h"
#include "sys/kit_paths.h"

#define DEFAULT_GPU "NVIDIA H100 80GB HBM3"
#define PREDICT_WALL_S 20

static int load_gpu(const char *name, struct gpu_model *m, char *err, size_t len)
{
	char dir[1024];
	kit_path(dir, sizeof(dir), "grader/model/gpus");
	return gpu_model_find(dir, name, m, err, len);
}

int prediction_gpu(const struct rubric *r, const char *device, char *name, size_t len)
{
	struct gpu_model m;
	char err[512];
	if (device) {
		snprintf(name, len, "%s", device);
		return load_gpu(device, &m, err, sizeof(err));
	}
	for (int i = 0; i < r->n_gpus; i++)
		if (load_gpu(r->gpus[i].device, &m, err, sizeof(err)) == 0) {
			snprintf(name, len, "%s", r->gpus[i].device);
			return 0;
		}
	snprintf(name, len, "%s", DEFAULT_GPU);
	return 0;
}

static void no_prediction(struct grade *g, const char *why)
{
	snprintf(g->prediction.error, sizeof(g->prediction.error), "%s", why);
}

/* No kernel outruns a copy of the lab's data: a prediction above 100% of copy
 * means the kernels left data untouched (one block where the data needs many),
 * and is refused as a GPU measurement above the ceiling is. */
static void faster_than_copy(struct grade *g, const struct model_prediction *p)
{
	char why[400];
	snprintf(why, sizeof(why), "the model predicts %.0f%% of copy, faster than copying the data: the "
		 "kernels touch %.3g MB of DRAM where reading the input and writing the output take %.4g MB "
		 "(does every element get processed?)", p->percent_of_copy, p->dram_bytes / 1e6,
		 p->min_bytes / 1e6);
	no_prediction(g, why);
}

/* The highest occupancy among the launches, as the model computes it. */
static double occupancy_pct(const struct gpu_model *m, const struct model_launch *l, int n)
{
	double best = 0;
	for (int i = 0; i < n; i++) {
		double warps = ceil(l[i].block_threads / 32);
		double occ = 100 * model_blocks_per_sm(m, &l[i]) * warps / m->max_warps_per_sm;
		best = occ > best ? occ : best;
	}
	return best;
}

static void record(struct grade *g, const struct gpu_model *m, const struct model_prediction *p,
		   const struct model_launch *l, int n, const char *note)
{
	char why[512], text[800];
	model_explain(p, l, why, sizeof(why));
	snprintf(text, sizeof(text), "%s%s", why, note);
	struct prediction *o = &g->prediction;
	o->made = 1;
	o->percent_of_copy = p->percent_of_copy;
	snprintf(o->gpu, sizeof(o->gpu), "%s", m->name);
	o->time_ms = p->time_ns / 1e6;
	o->copy_gbps = m->copy_gbps;
	o->dram_bytes = p->dram_bytes;
	o->min_bytes = p->min_bytes;
	o->launches = p->launches;
	snprintf(o->bound, sizeof(o->bound), "%s", model_bound_name(p->bound));
	snprintf(o->why, sizeof(o->why), "%s", text);
	o->occupancy_pct = occupancy_pct(m, l, n);
}

/* One trace run of the harness: the launches it recorded into *out (malloc'd),
 * their count; or -1 with why. */
static int trace(const struct run_context *ctx, const char *emu_harness, const struct shape *shape,
		 int sms, int computed, struct model_launch **out, char *why, size_t len)
{
	const struct rubric *r = ctx->rubric;
	char err[512];
	struct harness_report rep;
	/* Sampled blocks take well under a second; what takes longer is host code
	 * that loops on results this run never computes. */
	double wall_s = r->analysis_timeout_s < PREDICT_WALL_S ? r->analysis_timeout_s : PREDICT_WALL_S;
	*out = NULL;
	if (harness_predict(ctx, emu_harness, shape, sms, computed, wall_s, &rep, err, sizeof(err)) < 0) {
		snprintf(why, len, "the grader could not start the emulator: %s", err);
		return -1;
	}
	const char *cuda_error = json_string_value(json_object_get(rep.done, "cuda_error"));
	int n = -1;
	if (!rep.metrics || rep.corrupt || !rep.ended)
		harness_explain_abort(&rep, ctx->lab->entry, "the prediction run", why, len);
	else if (cuda_error)
		snprintf(why, len, "the prediction run ended with %s", cuda_error);
	else if ((n = model_launches_from_metrics(rep.metrics, out, err, sizeof(err))) < 0)
		snprintf(why, len, "the emulator's trace is malformed: %s", err);
	else if (n == 0)
		snprintf(why, len, "the entry point launched no kernel");
	harness_report_free(&rep);
	if (n <= 0) {
		free(*out);
		*out = NULL;
		return -1;
	}
	return n;
}

/* A launch traced at a size factor times smaller, at the graded size: a grid
 * of at least one block per SM grows with the data; a smaller one (a kernel
 * that loops over the data) keeps its blocks, and each does factor times the
 * work. */
static void scale_launch(struct model_launch *l, double factor, int sms)
{
	if (l->grid_blocks >= sms) {
		l->grid_blocks *= factor;
		return;
	}
	double *work[] = { &l->load_requests, &l->load_sectors, &l->load_lines, &l->load_block_sectors,
			   &l->store_requests, &l->store_sectors, &l->store_lines, &l->store_block_sectors,
			   &l->shared_requests, &l->shared_wavefronts, &l->load_runs };
	for (size_t i = 0; i < sizeof(work) / sizeof(work[0]); i++)
		*work[i] *= factor;
}

/* The largest of the emulator's correctness sizes. */
static struct shape largest_emu_shape(const struct run_context *ctx)
{
	const struct rubric *r = ctx->rubric;
	struct shape best = r->emu_shapes[0];
	for (int i = 1; i < r->n_emu_shapes; i++)
		if (ctx->lab->in_count(&r->emu_shapes[i]) > ctx->lab->in_count(&best))
			best = r->emu_shapes[i];
	return best;
}

void prediction_run(const struct run_context *ctx, const char *emu_harness, const char *gpu_name,
		    struct grade *g)
{
	const struct rubric *r = ctx->rubric;
	struct gpu_model m;
	char err[512], why[TEST_MESSAGE_LEN], again[TEST_MESSAGE_LEN];
	struct model_launch *l;
	if (load_gpu(gpu_name, &m, err, sizeof(err)) < 0) {
		no_prediction(g, err);
		return;
	}
	int n = trace(ctx, emu_harness, &r->perf_shape, m.sms, 0, &l, why, sizeof(why));
	const char *from = "";
	char note[256] = "";
	if (n < 0 && r->n_emu_shapes > 0) {
		/* Blocks that wait for each other (a chained or look-back scan) cannot
		 * run with the others skipped: trace a smaller size with every block
		 * computed, and scale its grids to the graded size. */
		struct shape small = largest_emu_shape(ctx);
		double factor = (double)ctx->lab->in_count(&r->perf_shape) / (double)ctx->lab->in_count(&small);
		n = trace(ctx, emu_harness, &small, m.sms, 1, &l, again, sizeof(again));
		for (int i = 0; i < n; i++)
			scale_launch(&l[i], factor, m.sms);
		char text[64];
		snprintf(note, sizeof(note), " (traced at %s with every block computed and scaled to the graded "
			 "size: its blocks could not run with the others skipped)", shape_format(&small, text,
											   sizeof(text)));
		from = note;
	}
	struct model_prediction p;
	if (n > 0 && model_predict(&m, l, n, ctx->lab->min_bytes(&r->perf_shape), &p) == 0) {
		if (p.percent_of_copy <= 100)
			record(g, &m, &p, l, n, from);
		else
			faster_than_copy(g, &p);
	} else {
		no_prediction(g, why);
	}
	free(l);
}
