/* The performance model's prediction of the graded call (see prediction.h). */
#include "steps/prediction.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/model.h"
#include "model/model_explain.h"
#include "model/model_input.h"
#include "steps/harness_run.h"
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
	json_object_set_new(g->metrics, "prediction_error", json_string(why));
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
		   const struct model_launch *l, int n)
{
	char why[512];
	model_explain(p, l, why, sizeof(why));
	json_t *o = g->metrics;
	json_object_set_new(o, "predicted_percent_of_copy", json_real(p->percent_of_copy));
	json_object_set_new(o, "predicted_for", json_string(m->name));
	json_object_set_new(o, "predicted_time_ms", json_real(p->time_ns / 1e6));
	json_object_set_new(o, "predicted_copy_gbps", json_real(m->copy_gbps));
	json_object_set_new(o, "predicted_dram_bytes", json_real(p->dram_bytes));
	json_object_set_new(o, "predicted_min_bytes", json_real(p->min_bytes));
	json_object_set_new(o, "predicted_launches", json_integer(p->launches));
	json_object_set_new(o, "predicted_bound", json_string(model_bound_name(p->bound)));
	json_object_set_new(o, "predicted_why", json_string(why));
	json_object_set_new(o, "predicted_occupancy_pct", json_real(occupancy_pct(m, l, n)));
}

void prediction_run(const struct run_context *ctx, const char *emu_harness, const char *gpu_name,
		    struct grade *g)
{
	const struct rubric *r = ctx->rubric;
	struct gpu_model m;
	char err[512], shape[64], seed[32], sms[16], why[TEST_MESSAGE_LEN];
	if (!g->metrics)
		return;
	if (load_gpu(gpu_name, &m, err, sizeof(err)) < 0) {
		no_prediction(g, err);
		return;
	}
	shape_format(&r->perf_shape, shape, sizeof(shape));
	snprintf(seed, sizeof(seed), "%llu", (unsigned long long)ctx->seed);
	snprintf(sms, sizeof(sms), "%d", m.sms);
	char *argv[] = { (char *)emu_harness, "predict", (char *)ctx->lab->id, shape, seed, sms, NULL };
	struct harness_report rep;
	/* Sampled blocks take well under a second; what takes longer is host code
	 * that loops on results this run never computes. */
	double wall_s = r->analysis_timeout_s < PREDICT_WALL_S ? r->analysis_timeout_s : PREDICT_WALL_S;
	if (harness_run(argv, r, wall_s, 64 << 20, ctx->isolate, ctx->work_dir, &rep, err, sizeof(err)) < 0) {
		snprintf(why, sizeof(why), "the grader could not start the emulator: %s", err);
		no_prediction(g, why);
		return;
	}
	const char *cuda_error = json_string_value(json_object_get(rep.done, "cuda_error"));
	struct model_launch *l = NULL;
	int n = -1;
	if (!rep.metrics || rep.corrupt || !rep.ended) {
		harness_explain_abort(&rep, ctx->lab->entry, "the prediction run", why, sizeof(why));
	} else if (cuda_error) {
		snprintf(why, sizeof(why), "the prediction run ended with %s", cuda_error);
	} else if ((n = model_launches_from_metrics(rep.metrics, &l, err, sizeof(err))) < 0) {
		snprintf(why, sizeof(why), "the emulator's trace is malformed: %s", err);
	} else {
		struct model_prediction p;
		if (model_predict(&m, l, n, ctx->lab->min_bytes(&r->perf_shape), &p) == 0)
			record(g, &m, &p, l, n);
		else
			snprintf(why, sizeof(why), "the entry point launched no kernel");
	}
	if (!json_object_get(g->metrics, "predicted_percent_of_copy"))
		no_prediction(g, why);
	free(l);
	harness_report_free(&rep);
}
