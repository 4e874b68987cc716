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

/* A race's "kind", when it has a read in it. */
static int read_race(json_t *race, enum race_kind *kind)
{
	const char *k = json_string_value(json_object_get(race, "kind"));
	if (k && strcmp(k, "RAW") == 0)
		*kind = RACE_RAW;
	else if (k && strcmp(k, "WAR") == 0)
		*kind = RACE_WAR;
	else
		return 0;
	return 1;
}

int findings_is_read_race(json_t *race)
{
	enum race_kind kind;
	return read_race(race, &kind);
}

void findings_add_read_races(json_t *metrics)
{
	size_t i, j;
	json_t *launch, *r, *totals = json_object_get(metrics, "totals");
	long long n = 0;
	if (!json_is_object(totals) || !json_is_integer(json_object_get(totals, "races")))
		return;	/* no count of races: the check says the figure is missing */
	json_array_foreach(json_object_get(metrics, "launches"), i, launch)
		json_array_foreach(json_object_get(launch, "races"), j, r)
			if (findings_is_read_race(r) && count_of(r, "count") > 0)
				n += count_of(r, "count");
	json_object_set_new(totals, FINDINGS_READ_RACES, json_integer(n));
}

/* The race with a read in it that the emulator saw most often, or NULL;
 * between_warps: only one between threads of different warps. */
static json_t *most_read_race(json_t *metrics, int between_warps)
{
	size_t i, j;
	json_t *launch, *r, *best = NULL;
	json_array_foreach(json_object_get(metrics, "launches"), i, launch)
		json_array_foreach(json_object_get(launch, "races"), j, r)
			if (findings_is_read_race(r) && count_of(r, "count") > 0 &&
			    (!between_warps || strcmp(text_of(r, "scope"), "inter-warp") == 0) &&
			    (!best || count_of(r, "count") > count_of(best, "count")))
				best = r;
	return best;
}

void findings_race(json_t *metrics, struct race_dependence *race)
{
	json_t *r = most_read_race(metrics, 1);
	memset(race, 0, sizeof(*race));
	if (!r || !read_race(r, &race->kind))
		return;
	/* RAW: the write came first in the emulator's schedule; WAR: the read. */
	json_t *first = json_object_get(r, "first"), *second = json_object_get(r, "second");
	json_t *read = race->kind == RACE_RAW ? second : first, *write = race->kind == RACE_RAW ? first : second;
	race->found = 1;
	race->count = count_of(r, "count");
	snprintf(race->read_file, sizeof(race->read_file), "%s", base_name(text_of(read, "file")));
	race->read_line = (long)count_of(read, "line");
	snprintf(race->write_file, sizeof(race->write_file), "%s", base_name(text_of(write, "file")));
	race->write_line = (long)count_of(write, "line");
}

void findings_worst_race(json_t *metrics, char *buf, size_t len)
{
	json_t *best = most_read_race(metrics, 0);
	buf[0] = '\0';
	if (!best)
		return;
	json_t *first = json_object_get(best, "first"), *second = json_object_get(best, "second");
	const char *kind = text_of(best, "kind");
	snprintf(buf, len, ", most often (%lld times) a %s at %.60s:%lld and a %s at %.60s:%lld of the "
		 "same %.10s word by two threads of %s, with no __syncthreads() between them (%.3s)",
		 count_of(best, "count"), strcmp(kind, "WAR") == 0 ? "read" : "write", text_of(first, "file"),
		 count_of(first, "line"), strcmp(kind, "RAW") == 0 ? "read" : "write", text_of(second, "file"),
		 count_of(second, "line"), text_of(best, "space"),
		 strcmp(text_of(best, "scope"), "intra-warp") == 0 ? "one warp" : "different warps", kind);
}

/* "a race at transpose.cu:35 (a read there of a word that a thread of
 * another warp writes at transpose.cu:29, with no __syncthreads() between)":
 * named at the read, whose value is what the order decides, whichever of
 * the two the emulator's schedule ran first. */
static void race_words(const struct race_dependence *race, char *buf, size_t len)
{
	snprintf(buf, len, "a race at %s:%ld (a read there of a word that a thread of another warp "
		 "writes at %s:%ld, with no __syncthreads() between)", race->read_file, race->read_line,
		 race->write_file, race->write_line);
}

/* Every size test of g that passed fails as kind, "SIZE: " and why; one
 * that failed keeps its failure, with note added. Returns how many failed
 * here. */
static int fail_passing_sizes(struct grade *g, enum failure_kind kind, const char *why, const char *note)
{
	int failed = 0;
	for (int i = 0; i < g->n_tests; i++) {
		struct test_result *t = &g->tests[i];
		if (t->kind != KIND_SIZE)
			continue;
		if (t->status == TEST_PASSED) {
			char shape[64];
			shape_format(&t->shape, shape, sizeof(shape));
			test_fail_as(t, kind, "%s: %s", shape, why);
			failed++;
		} else if (t->status == TEST_FAILED) {
			size_t used = strlen(t->message);
			snprintf(t->message + used, sizeof(t->message) - used, "\n%s", note);
		}
	}
	return failed;
}

int findings_apply_race(struct race_dependence *race, struct grade *g)
{
	char said[400], why[800], note[480];
	race->sizes_failed = 0;
	if (!race->found)
		return 0;
	race_words(race, said, sizeof(said));
	snprintf(why, sizeof(why), "this result depends on %s. It came out right in this run, but which "
		 "thread wins a race is a matter of timing, so on a GPU the same file passes or fails by "
		 "chance: it counts as failed on every machine", said);
	snprintf(note, sizeof(note), "This result depends on %s.", said);
	race->sizes_failed = fail_passing_sizes(g, FAILURE_DEPENDS_ON_RACE, why, note);
	return race->sizes_failed;
}

void findings_bounds(const json_t *done, const char *shape, struct bounds_fault *b)
{
	json_t *o = json_object_get(done, "bounds");
	const char *file = json_string_value(json_object_get(o, "file"));
	json_t *line = json_object_get(o, "line");
	memset(b, 0, sizeof(*b));
	if (!file || !json_is_integer(line) || json_integer_value(line) <= 0)
		return;
	b->found = 1;
	snprintf(b->file, sizeof(b->file), "%s", base_name(file));
	b->line = (long)json_integer_value(line);
	snprintf(b->shape, sizeof(b->shape), "%s", shape);
}

void findings_bounds_at_size(const json_t *done, const char *shape, const struct failure *f,
			     struct bounds_fault *b)
{
	struct bounds_fault seen;
	findings_bounds(done, shape, &seen);
	int illegal = f->kind == FAILURE_CUDA_ERROR && strcmp(f->name, "cudaErrorIllegalAddress") == 0;
	if (!seen.found && f->kind != FAILURE_WROTE_PAST_OUTPUT && f->kind != FAILURE_WROTE_BEFORE_OUTPUT
	    && !illegal)
		return;
	seen.found = 1;
	seen.at_size = 1;
	seen.kind = f->kind;
	snprintf(seen.shape, sizeof(seen.shape), "%s", shape);
	*b = seen;
}

/* What the size that showed b did, for a student ("wrote past the end of
 * its output (transpose.cu:26)"). */
static void bounds_words(const struct bounds_fault *b, char *buf, size_t len)
{
	const char *did = b->kind == FAILURE_WROTE_PAST_OUTPUT ? "wrote past the end of its output"
			: b->kind == FAILURE_WROTE_BEFORE_OUTPUT ? "wrote before the start of its output"
			: b->line > 0 ? "read or wrote outside its buffer"
			: "made an illegal memory access";
	if (b->line > 0)
		snprintf(buf, len, "%s (the emulator stopped at %s:%ld)", did, b->file, b->line);
	else
		snprintf(buf, len, "%s", did);
}

int findings_apply_bounds(struct bounds_fault *b, struct grade *g)
{
	char why[800], note[400], did[200];
	b->sizes_failed = 0;
	if (!b->found)
		return 0;
	if (b->at_size) {
		bounds_words(b, did, sizeof(did));
		snprintf(why, sizeof(why), "right at this size, but at %s the same code %s. A file that reads "
			 "or writes outside a buffer at any size fails every size, on every machine: a GPU "
			 "seldom stops such an access, it reads or overwrites whatever lies there, so which "
			 "sizes pass would be a matter of chance", b->shape, did);
		snprintf(note, sizeof(note), "At %s this file %s: a file that reads or writes outside a "
			 "buffer at any size fails every size.", b->shape, did);
	} else {
		snprintf(why, sizeof(why), "this result was computed by code that reads or writes outside "
			 "its buffer at %s:%ld (the emulator stopped there at %s: see the analysis). It came "
			 "out right in this run, but a GPU seldom stops such an access: it reads or overwrites "
			 "whatever lies there, so the same file passes or fails by chance: it counts as failed "
			 "on every machine", b->file, b->line, b->shape);
		snprintf(note, sizeof(note), "The emulator saw this file access memory outside its buffer "
			 "at %s:%ld (at %s).", b->file, b->line, b->shape);
	}
	b->sizes_failed = fail_passing_sizes(g, FAILURE_OUTSIDE_BUFFER, why, note);
	return b->sizes_failed;
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
