/* Which process runs which correctness sizes (see correctness_plan.h). */
#include "steps/correctness_plan.h"

void correctness_plan_run(int n, int hangs, run_sizes_fn run, void *arg, struct correctness_plan *out)
{
	int next = 0, opening = 1, alone = 0;
	out->processes = 0;
	while (next < n && hangs < HANGS_BEFORE_GIVING_UP) {
		int count = alone ? 1 : n - next;
		struct size_run r = run(arg, next, count);
		out->processes += r.started;
		/* A runner against its contract: the rest are not run. */
		int stuck = r.settled == 0 && (count == 1 || !r.uncut);
		if (r.settled < 0 || r.settled > count || stuck)
			break;
		if (r.hung) {
			hangs += opening || r.ended_at_first;
			alone = 1;
		}
		if (r.uncut)
			alone = 1;
		next += r.settled;
		opening = 0;
	}
	out->hangs = hangs;
	out->not_run_from = next;
}
