/* A size's time limit from the reference's time (see time_limit.h). */
#include "steps/time_limit.h"

#include <stdio.h>

struct time_limit time_limit_derive(const struct time_rule *rule, double reference_s)
{
	struct time_limit l = { rule->cap_s, reference_s, LIMIT_UNKNOWN_REFERENCE };
	if (!(reference_s > 0))
		return l;
	l.limit_s = rule->factor * reference_s;
	l.kind = LIMIT_SCALED;
	if (l.limit_s < rule->floor_s) {
		l.limit_s = rule->floor_s;
		l.kind = LIMIT_FLOOR;
	}
	/* The cap wins over the floor: the rubric's word is the last. */
	if (l.limit_s > rule->cap_s) {
		l.limit_s = rule->cap_s;
		l.kind = LIMIT_CAP;
	}
	return l;
}

const char *time_limit_explain(const struct time_rule *rule, const struct time_limit *l,
			       const char *where, char *buf, size_t len)
{
	switch (l->kind) {
	case LIMIT_SCALED:
		snprintf(buf, len, "%gx the reference's %.2g s %s", rule->factor, l->reference_s, where);
		break;
	case LIMIT_FLOOR:
		snprintf(buf, len, "the %g s floor (%gx the reference's %.2g s %s is less)", rule->floor_s,
			 rule->factor, l->reference_s, where);
		break;
	case LIMIT_CAP:
		snprintf(buf, len, "the rubric's %g s (%gx the reference's %.2g s %s is more)", rule->cap_s,
			 rule->factor, l->reference_s, where);
		break;
	default:
		snprintf(buf, len, "the rubric's %g s (the reference has not been timed %s)", rule->cap_s,
			 where);
		break;
	}
	return buf;
}
