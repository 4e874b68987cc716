/* Which process runs which correctness sizes (see correctness_plan.h). */
#include "steps/correctness_plan.h"

#include <string.h>

/* Runs size k alone, first in its process, out of the list's order.
 * Returns whether it ended its process the way given, 0 if not (its
 * verdict stands either way), -1 where the runner settled nothing. */
static int probe(run_sizes_fn run, void *arg, int k, unsigned way, int *hangs, struct correctness_plan *out)
{
	struct size_run r = run(arg, k, 1);
	out->processes += r.started;
	if (r.settled != 1)
		return -1;
	*hangs += r.hung;
	return r.ended_at_first && r.ending == way;
}

void correctness_plan_run(int n, int hangs, run_sizes_fn run, void *arg, struct correctness_plan *out)
{
	/* Sizes run in the list's order from next up to end. The probes run
	 * out of order: the last one (end shrinks past it) and a middle one,
	 * which the sizes in order then step over. */
	int next = 0, end = n, middle = -1, opening = 1, alone = 0, probed = 0;
	int same = 0;		/* processes in a row that ended at their first size the same way */
	unsigned way = 0;	/* that way */
	memset(out, 0, sizeof(*out));
	while (next < end) {
		if (hangs >= HANGS_BEFORE_GIVING_UP) {
			out->why = NOT_RUN_HUNG;
			break;
		}
		if (next == middle) {
			next++;
			continue;
		}
		if (same == SAME_ENDINGS_IN_A_ROW && !probed && end - next > SAME_ENDINGS_PROBES) {
			int last = end - 1, mid = next + (last - next) / 2;
			probed = 1;
			int at_last = probe(run, arg, last, way, &hangs, out);
			end = last;
			int at_mid = at_last > 0 ? probe(run, arg, mid, way, &hangs, out) : at_last;
			if (at_last > 0)
				middle = mid;
			if (at_last < 0 || at_mid < 0) {
				out->why = NOT_RUN_RUNNER_STUCK;
				break;
			}
			if (at_mid > 0) {
				out->same_at[SAME_ENDINGS_IN_A_ROW] = last;
				out->same_at[SAME_ENDINGS_IN_A_ROW + 1] = mid;
				out->why = NOT_RUN_SAME_ENDING;
				break;
			}
			same = 0;
			continue;
		}
		int stop = middle > next ? middle : end;
		int count = alone ? 1 : stop - next;
		struct size_run r = run(arg, next, count);
		out->processes += r.started;
		/* A runner against its contract: the rest are not run. */
		int stuck = r.settled == 0 && (count == 1 || !r.uncut);
		if (r.settled < 0 || r.settled > count || stuck) {
			out->why = NOT_RUN_RUNNER_STUCK;
			break;
		}
		if (r.hung) {
			hangs += opening || r.ended_at_first;
			alone = 1;
		}
		if (r.uncut)
			alone = 1;
		if (r.ended_at_first && r.ending) {
			same = r.ending == way ? same + 1 : 1;
			way = r.ending;
			if (same <= SAME_ENDINGS_IN_A_ROW)
				out->same_at[same - 1] = next;
		} else if (r.settled) {
			same = 0;
		}
		next += r.settled;
		opening = 0;
	}
	out->hangs = hangs;
}
