/*
 * model_eval: the performance model over a set of traces with known
 * measurements, for calibrating a GPU file (docs/model.md, "Calibration").
 *
 *   model_eval GPU.ini CASES [verbose] < PARAMETER-SETS
 *
 * CASES: one line per case, "BIG.json SMALL.json FACTOR MIN_BYTES MEASURED_PERCENT"
 * (tests/gpu/model_fit/traces.sh: the prediction step's two traced correctness
 * runs, scaled to the graded size by grader/model/model_scale.c, FACTOR times
 * BIG's elements), or "TRACE.json MIN_BYTES MEASURED_PERCENT" (a trace taken
 * at the graded size: model_params's kernels, params_traces.py). Each line of stdin is one
 * set of the fitted parameters, in this order:
 *   stream_efficiency latency_ns store_sectors_per_ns load_lines_per_ns
 *   wavefronts_per_ns interval_ns issue_ns overlap store_exponent read_weight
 *   interval_ns_per_warp barrier_latency_ns slowest_load_ns_per_warp
 *   short_run_ns short_run_latency_ns short_run_barrier_ns
 * For each set it prints "mean M median D max X" (absolute errors in points of
 * copy) and, verbose, every case.
 *
 * Build (MODEL_SRC: the .c files of grader/model):
 *   gcc -std=c11 -O2 -Igrader tests/gpu/model_fit/model_eval.c $MODEL_SRC \
 *        -ljansson -linih -lm -o build/model_eval
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/model.h"
#include "model/model_input.h"
#include "model/model_scale.h"

#define MAX_CASES 256

struct eval_case {
	char path[512];
	double min_bytes, measured;
	struct model_launch *launches;
	int n;
};

static int by_value(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static int load_cases(const char *file, struct eval_case *c)
{
	FILE *f = fopen(file, "r");
	int n = 0;
	char err[512];
	if (!f) {
		perror(file);
		return -1;
	}
	char line[1600], small[512];
	while (n < MAX_CASES && fgets(line, sizeof line, f)) {
		double factor = 1;
		small[0] = 0;
		if (sscanf(line, "%511s %511s %lf %lf %lf", c[n].path, small, &factor, &c[n].min_bytes,
			   &c[n].measured) != 5) {
			small[0] = 0;
			factor = 1;
			if (sscanf(line, "%511s %lf %lf", c[n].path, &c[n].min_bytes, &c[n].measured) != 3)
				continue;
		}
		json_error_t je;
		json_t *j = json_load_file(c[n].path, 0, &je);
		if (!j || (c[n].n = model_launches_from_metrics(j, &c[n].launches, err, sizeof err)) < 0) {
			fprintf(stderr, "%s: %s\n", c[n].path, j ? err : je.text);
			fclose(f);
			return -1;
		}
		json_decref(j);
		if (small[0]) {
			struct model_launch *sl = NULL;
			int ns = -1;
			if ((j = json_load_file(small, 0, &je)))
				ns = model_launches_from_metrics(j, &sl, err, sizeof err);
			json_decref(j);
			if (ns < 0) {
				fprintf(stderr, "%s: unreadable\n", small);
				fclose(f);
				return -1;
			}
			model_scale_to_graded(c[n].launches, c[n].n, sl, ns, factor);
			free(sl);
		}
		n++;
	}
	fclose(f);
	return n;
}

int main(int argc, char **argv)
{
	static struct eval_case cases[MAX_CASES];
	struct gpu_model g;
	char err[512];
	if (argc < 3) {
		fprintf(stderr, "usage: model_eval GPU.ini CASES [verbose] < PARAMETER-SETS\n");
		return 2;
	}
	if (gpu_model_load(argv[1], &g, err, sizeof err) < 0) {
		fprintf(stderr, "%s\n", err);
		return 1;
	}
	int n = load_cases(argv[2], cases);
	if (n <= 0)
		return 1;
	double p[16], e[MAX_CASES];
	while (scanf("%lf %lf %lf %lf %lf %lf %lf %lf %lf %lf %lf %lf %lf %lf %lf %lf", &p[0], &p[1], &p[2], &p[3],
		     &p[4], &p[5], &p[6], &p[7], &p[8], &p[9], &p[10], &p[11], &p[12], &p[13], &p[14], &p[15]) == 16) {
		g.stream_efficiency = p[0];
		g.latency_ns = p[1];
		g.store_sectors_per_ns = p[2];
		g.load_lines_per_ns = p[3];
		g.shared_wavefronts_per_ns = p[4];
		g.interval_ns = p[5];
		g.issue_ns = p[6];
		g.overlap = p[7];
		g.store_exponent = p[8];
		g.read_weight = p[9];
		g.interval_ns_per_warp = p[10];
		g.barrier_latency_ns = p[11];
		g.slowest_load_ns_per_warp = p[12];
		g.short_run_ns = p[13];
		g.short_run_latency_ns = p[14];
		g.short_run_barrier_ns = p[15];
		double sum = 0;
		for (int i = 0; i < n; i++) {
			struct model_prediction pr;
			model_predict(&g, cases[i].launches, cases[i].n, cases[i].min_bytes, &pr);
			double d = pr.percent_of_copy - cases[i].measured;
			e[i] = d < 0 ? -d : d;
			sum += e[i];
			if (argc > 3)
				printf("%-70s measured %5.1f predicted %5.1f error %+5.1f %s\n", cases[i].path,
				       cases[i].measured, pr.percent_of_copy, d, model_bound_name(pr.bound));
		}
		qsort(e, (size_t)n, sizeof e[0], by_value);
		printf("mean %.2f median %.2f max %.2f\n", sum / n, e[n / 2], e[n - 1]);
		fflush(stdout);
	}
	return 0;
}
