/* Bandwidth against occupancy (see occupancy_sweep.h). */
#include "steps/occupancy_sweep.h"

#include <stdio.h>
#include <string.h>

#include "bench_plan.h"
#include "steps/bench_check.h"
#include "steps/timing.h"

/* Keeps the sweep sorted by occupancy, one point per occupancy (several
 * shared sizes can give the same number of resident blocks). */
static void insert_point(json_t *sweep, json_t *point)
{
	double occ = json_number_value(json_object_get(point, "occupancy_pct"));
	size_t i, at = json_array_size(sweep);
	json_t *p;
	json_array_foreach(sweep, i, p) {
		double o = json_number_value(json_object_get(p, "occupancy_pct"));
		if (o == occ) {
			json_decref(point);
			return;
		}
		if (o > occ && at == json_array_size(sweep))
			at = i;
	}
	json_array_insert_new(sweep, at, point);
}

void occupancy_sweep(const struct run_context *ctx, json_t *points, double peak_gbps, struct grade *g)
{
	const struct rubric *r = ctx->rubric;
	char msg[512];
	json_t *sweep = json_array();
	double bytes = ctx->lab->min_bytes(&r->perf_shape), sum_ms = 0;
	size_t i;
	json_t *t;
	/* One checker for every point: they share the base input (bench_plan.h). */
	struct bench_checker checker = { 0 };
	int bad = bench_checker_open(&checker, ctx->lab, &r->perf_shape, msg, sizeof(msg)) < 0;
	json_array_foreach(points, i, t) {
		double gbps, copy, spread;
		char launch[224];
		if (bad)
			break;
		double occ = launches_max_occupancy(json_object_get(t, "launches"), launch, sizeof(launch));
		if (timing_read(t, r->sweep_runs, bytes, &gbps, &copy, &spread, &sum_ms) < 0 || occ < 0) {
			snprintf(msg, sizeof(msg), "the harness's report of a point of the sweep is malformed%s",
				 occ < 0 ? " (no launch recorded)" : "");
			bad = 1;
			break;
		}
		/* The performance test's rules: outputs checked, nothing above the ceiling. */
		if (bench_check_outputs(&checker, ctx->seed, t, r->sweep_runs, BENCH_SWEEP_CHECKED_RUNS, msg,
					sizeof(msg)) < 0) {
			bad = 1;
			break;
		}
		if (timing_above_ceiling(gbps, copy, peak_gbps)) {
			snprintf(msg, sizeof(msg), "a point of the sweep ran at %.1f%% of a device-to-device "
				 "copy of the same bytes, more than this GPU's memory delivers: no correct "
				 "kernel moves its bytes that fast, so the sweep is not believed", 100 * gbps / copy);
			bad = 1;
			break;
		}
		insert_point(sweep, json_pack("{s:f, s:f, s:f, s:f, s:I, s:s}", "occupancy_pct", 100 * occ,
					      "gbps", gbps, "copy_gbps", copy, "percent_of_copy",
					      100 * gbps / copy, "extra_shared",
					      json_integer_value(json_object_get(t, "extra_shared")),
					      "launch", launch));
	}
	if (checker.in)
		bench_checker_close(&checker);
	if (bad) {
		snprintf(g->sweep.error, sizeof(g->sweep.error), "%s", msg);
		json_decref(sweep);
	} else {
		json_decref(g->sweep.points);
		g->sweep.points = sweep;
	}
}
