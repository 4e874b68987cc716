/* The performance model's prediction of the graded call (see prediction.h). */
#include "steps/prediction.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/model.h"
#include "model/model_explain.h"
#include "model/model_input.h"
#include "model/model_scale.h"
#include "steps/findings.h"
#include "steps/harness_door.h"
#include "sys/kit_paths.h"
#include "rng.h"

#define DEFAULT_GPU "NVIDIA H100 80GB HBM3"

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
	/* The kit's default first, wherever the rubric lists it: the target
	 * must not follow the order of the rubric's sections, which
	 * --calibrate appends to (every lab predicts for the same GPU). */
	for (int pass = 0; pass < 2; pass++)
		for (int i = 0; i < r->n_gpus; i++)
			if ((pass || strcmp(r->gpus[i].device, DEFAULT_GPU) == 0) &&
			    load_gpu(r->gpus[i].device, &m, err, sizeof(err)) == 0) {
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

/* The launches a trace recorded into *out (malloc'd), their count; or -1
 * with why. */
static int launches(json_t *metrics, const struct shape *shape, struct model_launch **out, char *why,
		    size_t len)
{
	char err[512], text[64];
	int n = -1;
	*out = NULL;
	shape_format(shape, text, sizeof(text));
	if (findings_unrepresentative(metrics, err, sizeof(err)))
		/* Its traced blocks ran other code than the rest: a speed taken
		 * from them would be of code the kernel does not run. */
		snprintf(why, len, "the traced run at %s predicts nothing: %s", text, err);
	else if ((n = model_launches_from_metrics(metrics, out, err, sizeof(err))) < 0)
		snprintf(why, len, "the emulator's trace is malformed: %s", err);
	else if (n == 0)
		snprintf(why, len, "the entry point launched no kernel");
	if (n <= 0) {
		free(*out);
		*out = NULL;
		return -1;
	}
	model_scale_to_grid(*out, n);
	return n;
}

/* One traced correctness run of the harness at shape with seed's inputs, its
 * trace into *metrics; or -1 with why. Its output is judged as a correctness
 * run's is: a wrong result predicts nothing. */
static int trace(const struct run_context *ctx, const char *emu_harness, const struct shape *shape,
		 uint64_t seed, json_t **metrics, char *why, size_t len)
{
	char err[512], msg[TEST_MESSAGE_LEN], text[64];
	struct harness_report rep;
	struct failure f;
	*metrics = NULL;
	if (harness_predict(ctx, emu_harness, shape, seed, &rep, err, sizeof(err)) < 0) {
		snprintf(why, len, "the grader could not start the emulator: %s", err);
		return -1;
	}
	shape_format(shape, text, sizeof(text));
	if (!rep.metrics || rep.corrupt || !rep.ended)
		harness_explain_abort(&rep, ctx->lab->entry, "the prediction run", why, len);
	else if (!correctness_judge(ctx->lab, shape, seed, &rep, &f, msg, sizeof(msg)))
		snprintf(why, len, "the traced run at %s computed a wrong result, so it predicts nothing: %.600s", text,
			 msg);
	else
		*metrics = json_incref(rep.metrics);
	harness_report_free(&rep);
	return *metrics ? 0 : -1;
}

/* The launches of traced size k (traced_sizes_pick's order) at shape: from
 * the correctness step's run of it where it ran them, else from a run here. */
static int traced(const struct run_context *ctx, const char *emu_harness, const struct traced_runs *done,
		  int k, const struct shape *shape, uint64_t seed, struct model_launch **out, char *why,
		  size_t len)
{
	json_t *metrics = NULL;
	char text[64];
	*out = NULL;
	if (done && done->ran && !done->metrics[k])
		snprintf(why, len, "the traced correctness run at %s did not pass, so it predicts nothing",
			 shape_format(shape, text, sizeof(text)));
	else if (done && done->ran)
		metrics = json_incref(done->metrics[k]);
	else
		trace(ctx, emu_harness, shape, seed, &metrics, why, len);
	int n = metrics ? launches(metrics, shape, out, why, len) : -1;
	json_decref(metrics);
	return n;
}

void prediction_run(const struct run_context *ctx, const char *emu_harness, const struct traced_runs *done,
		    const char *gpu_name, struct grade *g)
{
	const struct rubric *r = ctx->rubric;
	struct gpu_model m;
	char err[512], why[TEST_MESSAGE_LEN] = "the rubric lists no emulator sizes to trace";
	struct model_launch *small = NULL, *l = NULL;
	struct shape at[2];
	uint64_t seeds[2];
	int pick[2];
	if (load_gpu(gpu_name, &m, err, sizeof(err)) < 0) {
		no_prediction(g, err);
		return;
	}
	/* The prediction comes from correctness runs, never from a run at the
	 * graded size: the largest size traced, scaled to the graded one. */
	int sizes = traced_sizes_pick(r, ctx->lab, pick), n_small = 0, n = -1;
	for (int k = 0; k < sizes; k++) {
		at[k] = r->emu_shapes[pick[k]];
		seeds[k] = rng_test_seed(ctx->seed, ctx->salt, (unsigned)pick[k]);	/* correctness's */
	}
	if (sizes > 0)
		n = traced(ctx, emu_harness, done, sizes - 1, &at[sizes - 1], seeds[sizes - 1], &l, why,
			   sizeof(why));
	if (n > 0 && sizes == 2)
		n_small = traced(ctx, emu_harness, done, 0, &at[0], seeds[0], &small, why, sizeof(why));
	if (n_small < 0)
		n = -1;
	char note[256] = "";
	if (n > 0) {
		double factor = (double)ctx->lab->in_count(&r->perf_shape) /
				(double)ctx->lab->in_count(&at[sizes - 1]);
		model_scale_to_graded(l, n, small, n_small, factor);
		char text[64];
		snprintf(note, sizeof(note), " (from the traced correctness run at %s, every block computed, "
			 "scaled to the graded size)", shape_format(&at[sizes - 1], text, sizeof(text)));
	}
	struct model_prediction p;
	if (n > 0 && model_predict(&m, l, n, ctx->lab->min_bytes(&r->perf_shape), &p) == 0) {
		if (p.percent_of_copy <= 100)
			record(g, &m, &p, l, n, note);
		else
			faster_than_copy(g, &p);
	} else {
		no_prediction(g, why);
	}
	free(small);
	free(l);
}
