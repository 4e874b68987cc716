/* The emulator's findings in a sentence (see findings.h). */
#include "steps/findings.h"

#include <stdio.h>
#include <string.h>

static const char *base_name(const char *path)
{
	const char *slash = path ? strrchr(path, '/') : NULL;
	return slash ? slash + 1 : path ? path : "?";
}

static const char *text_of(json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));
	return s ? s : "?";
}

static long long count_of(json_t *o, const char *key)
{
	return (long long)json_integer_value(json_object_get(o, key));
}

/* The first race of the first launch that had one, in words. */
static void first_race(json_t *metrics, char *buf, size_t len)
{
	size_t i;
	json_t *launch;
	buf[0] = '\0';
	json_array_foreach(json_object_get(metrics, "launches"), i, launch) {
		json_t *race = json_array_get(json_object_get(launch, "races"), 0);
		if (!race)
			continue;
		json_t *first = json_object_get(race, "first"), *second = json_object_get(race, "second");
		snprintf(buf, len, "%s %s in %s memory, between %s:%lld and %s:%lld with no barrier between",
			 text_of(race, "kind"), strcmp(text_of(race, "scope"), "inter-warp") == 0 ?
			 "between warps" : "inside a warp", text_of(race, "space"),
			 base_name(text_of(first, "file")), count_of(first, "line"),
			 base_name(text_of(second, "file")), count_of(second, "line"));
		return;
	}
}

/* The first uninitialised shared read, "transpose.cu:40", or "". */
static void first_uninit(json_t *metrics, char *buf, size_t len)
{
	size_t i;
	json_t *launch;
	buf[0] = '\0';
	json_array_foreach(json_object_get(metrics, "launches"), i, launch) {
		json_t *read = json_array_get(json_object_get(launch, "uninit_shared_reads"), 0);
		if (read) {
			snprintf(buf, len, "%s:%lld", base_name(text_of(read, "file")), count_of(read, "line"));
			return;
		}
	}
}

long long findings_describe(json_t *metrics, char *buf, size_t len)
{
	json_t *totals = json_object_get(metrics, "totals");
	long long races = count_of(totals, "races"), uninit = count_of(totals, "uninit_shared_reads");
	char race[320], read[160];
	first_race(metrics, race, sizeof(race));
	first_uninit(metrics, read, sizeof(read));
	buf[0] = '\0';
	if (races > 0 && race[0])
		snprintf(buf, len, "the emulator saw %lld race%s; the first: %s", races, races == 1 ? "" : "s",
			 race);
	if (uninit > 0 && read[0]) {
		size_t used = strlen(buf);
		snprintf(buf + used, len - used, "%s%lld read%s of shared memory that nothing in the block "
			 "wrote, the first at %s", used ? "; and " : "the emulator saw ", uninit,
			 uninit == 1 ? "" : "s", read);
	}
	return races;
}

void findings_explain_correctness(struct grade *g)
{
	char said[600];
	if (!g->analysis || !findings_describe(g->analysis, said, sizeof(said)))
		return;
	int told = 0;
	for (int i = 0; i < g->n_tests; i++) {
		struct test_result *t = &g->tests[i];
		if (t->kind != KIND_SIZE || t->status != TEST_FAILED ||
		    (t->failure.kind != FAILURE_WRONG_OUTPUT && t->failure.kind != FAILURE_OUTPUT_NOT_WRITTEN))
			continue;
		size_t used = strlen(t->message);
		/* The whole sentence once, at the first size it explains. */
		if (told++)
			snprintf(t->message + used, sizeof(t->message) - used,
				 "\nThis result may depend on the race named above.");
		else
			snprintf(t->message + used, sizeof(t->message) - used,
				 "\nThis result may depend on a race: %s. A race can pass on one machine "
				 "and fail on another.", said);
	}
}

/* Why the traced blocks do not stand for the others ("line 42 ran only in
 * blocks the emulator did not trace"), or NULL: a file that behaves one
 * way where it is watched and another where it is not is not believed. */
const char *findings_unrepresentative(json_t *metrics, char *buf, size_t len)
{
	size_t i;
	json_t *launch;
	json_array_foreach(json_object_get(metrics, "launches"), i, launch) {
		json_t *s = json_object_get(launch, "sampling");
		json_t *untraced = json_array_get(json_object_get(s, "untraced_only_lines"), 0);
		json_t *traced = json_array_get(json_object_get(s, "traced_only_lines"), 0);
		/* Code that only some untraced blocks run is an honest kernel's
		 * edge (a partial tile, a tail): what betrays a switch is both
		 * sides running code the other never ran. */
		if (!json_is_false(json_object_get(s, "same_call_sites")) || !untraced || !traced)
			continue;
		const char *kernel = json_string_value(json_object_get(launch, "kernel"));
		snprintf(buf, len, "in kernel %s, line %lld ran only in the blocks the emulator traced and "
			 "line %lld only in the others, so the traced blocks do not stand for the others",
			 kernel ? kernel : "?", (long long)json_integer_value(json_object_get(traced, "line")),
			 (long long)json_integer_value(json_object_get(untraced, "line")));
		return buf;
	}
	return NULL;
}
