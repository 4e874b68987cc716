/* Reading the harness's timings (see timing.h). */
#include "steps/timing.h"

#include <stdio.h>
#include <stdlib.h>

#include "stats.h"

int timing_read(json_t *t, int runs, double bytes, double *gbps, double *copy_gbps, double *spread,
		double *sum_ms)
{
	json_t *s = json_object_get(t, "student_ms"), *c = json_object_get(t, "copy_ms");
	if (!json_is_array(s) || !json_is_array(c) || (int)json_array_size(s) != runs ||
	    (int)json_array_size(c) != runs)
		return -1;
	double *x = malloc(sizeof(double) * (size_t)runs), *y = malloc(sizeof(double) * (size_t)runs);
	int ok = x && y;
	for (int i = 0; ok && i < runs; i++) {
		x[i] = json_number_value(json_array_get(s, (size_t)i));
		y[i] = json_number_value(json_array_get(c, (size_t)i));
		ok = x[i] > 0 && y[i] > 0;
		*sum_ms += x[i] + y[i];
	}
	if (ok) {
		struct stats st = stats_of(x, (size_t)runs);
		*gbps = bytes / (st.median * 1e-3) / 1e9;
		*copy_gbps = bytes / (stats_median(y, (size_t)runs) * 1e-3) / 1e9;
		*spread = st.spread;
	}
	free(x);
	free(y);
	return ok ? 0 : -1;
}

double launches_max_occupancy(json_t *launches, char *desc, size_t len)
{
	json_t *l;
	size_t i;
	double best = -1;
	desc[0] = '\0';
	json_array_foreach(launches, i, l) {
		double occ = json_number_value(json_object_get(l, "occupancy"));
		if (!json_is_number(json_object_get(l, "occupancy")) || occ <= best)
			continue;
		best = occ;
		const char *kernel = json_string_value(json_object_get(l, "kernel"));
		snprintf(desc, len, "%.60s: %lld blocks of %lld threads, %lld B dynamic shared, %lld "
			 "registers: %lld blocks/SM", kernel ? kernel : "?",
			 json_integer_value(json_object_get(l, "grid")),
			 json_integer_value(json_object_get(l, "threads")),
			 json_integer_value(json_object_get(l, "dynamic_shared")),
			 json_integer_value(json_object_get(l, "registers")),
			 json_integer_value(json_object_get(l, "blocks_per_sm")));
	}
	return best;
}

int timings_outlast_child(double sum_ms, const struct harness_report *rep)
{
	return sum_ms > rep->child.wall_s * 1e3 * 1.02 + 5;
}

double timing_ceiling(double copy_gbps, double peak_gbps)
{
	return peak_gbps > copy_gbps ? peak_gbps : copy_gbps * (1 + COPY_MARGIN);
}

int timing_above_ceiling(double gbps, double copy_gbps, double peak_gbps)
{
	return !(gbps > 0 && gbps <= timing_ceiling(copy_gbps, peak_gbps));	/* NaN included */
}
