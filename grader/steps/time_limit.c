/* A size's time limit from the reference's time (see time_limit.h). */
#include "steps/time_limit.h"

#include <stdio.h>
#include <string.h>

struct time_limit time_limit_derive(const struct time_rule *rule, double reference_s)
{
	struct time_limit l = { rule->cap_s, reference_s, LIMIT_UNKNOWN_REFERENCE, 0 };
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

struct time_limit time_limit_with_whole_output(const struct time_rule *rule, struct time_limit l,
					       double out_bytes)
{
	double add = out_bytes > 0 ? out_bytes / WHOLE_OUTPUT_BYTES_PER_S : 0;
	if (l.limit_s + add > rule->cap_s)
		add = rule->cap_s > l.limit_s ? rule->cap_s - l.limit_s : 0;
	l.limit_s += add;
	l.whole_output_s = add;
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
	size_t at = strlen(buf);
	if (l->whole_output_s > 0 && at < len)
		snprintf(buf + at, len - at, ", and %.1f s to send the output whole", l->whole_output_s);
	return buf;
}
