/*
 * The emulator's metrics (docs/emu-metrics.md) turned into graded checks:
 * one test of group "analysis" per rubric key that is present, the
 * analysis points split evenly among them.
 *
 * A check compares a total of the metrics with the rubric's limit; its
 * message names the source line that weighs most (the worst line for
 * sectors and wavefronts, the most frequent race) and says what the figure
 * means and how to bring it down. The metrics come from a run of student
 * code: every field is checked for its type, every number clamped, and a
 * missing figure fails the check rather than passing it.
 */
#include "steps/analysis.h"
#include "steps/findings.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "steps/shared_tile.h"

#define WORK_PER_1024 "work_per_1024_elements"	/* in "totals", added by the grader */
#define WORK_LEAST 16	/* per 1024 elements: less is no scan (check_work) */

/* A number of the metrics, or -1 when it is missing or not a finite number >= 0. */
static double number(const json_t *obj, const char *key)
{
	const json_t *v = json_object_get(obj, key);
	double d = json_is_number(v) ? json_number_value(v) : -1;
	return isfinite(d) && d >= 0 && d < 1e18 ? d : -1;
}

static const char *text(const json_t *obj, const char *key)
{
	const char *s = json_string_value(json_object_get(obj, key));
	return s ? s : "?";
}

/* One line of "lines": where, and its figure per request. */
struct line_figure {
	const char *file;
	long line;
	double requests, units;	/* global: requests in 4-byte terms (sectors_per_word) */
	double plain;		/* requests, each counted once */
	const json_t *launch;
	const char *whose;	/* " (given by the skeleton, ...)" on a line it gave, else "" */
};

static double per_request(const struct line_figure *f)
{
	return f->requests > 0 ? f->units / f->requests : 0;
}

/* The line of (space, kind) with the most units per request, the student's
 * own lines before those the skeleton gave (steps/given_lines.h); kind
 * NULL: any kind. Returns 0 when there is none. A global line's requests
 * are counted in 4-byte terms (sectors_per_word). */
static int worst_line(json_t *metrics, const char *space, const char *kind, struct line_figure *worst)
{
	size_t i, j;
	json_t *launch, *row;
	int found = 0;
	const char *unit = strcmp(space, "global") == 0 ? "sectors" : "wavefronts";
	json_array_foreach(json_object_get(metrics, "launches"), i, launch) {
		json_array_foreach(json_object_get(launch, "lines"), j, row) {
			if (strcmp(text(row, "space"), space) != 0 || (kind && strcmp(text(row, "kind"), kind) != 0))
				continue;
			double words = number(row, "word_requests");
			struct line_figure f = { text(row, "file"), (long)number(row, "line"),
						 unit[0] == 's' && words > 0 ? words : number(row, "requests"),
						 number(row, unit), number(row, "requests"), launch,
						 json_is_true(json_object_get(row, "given")) ?
						 " (given by the skeleton, not yours)" : "" };
			if (f.requests <= 0 || f.units < 0)
				continue;
			if (!found || (worst->whose[0] && !f.whose[0]) ||
			    (!worst->whose[0] == !f.whose[0] && per_request(&f) > per_request(worst))) {
				*worst = f;
				found = 1;
			}
		}
	}
	return found;
}

/* The distance between the addresses of the first two neighbouring active
 * lanes of the line's example request, in bytes; 0 when unknown. */
static long long lane_stride(const struct line_figure *f, const char *kind, int *bytes)
{
	size_t i;
	json_t *e;
	*bytes = 4;
	json_array_foreach(json_object_get(f->launch, "example_requests"), i, e) {
		if ((long)number(e, "line") != f->line || strcmp(text(e, "file"), f->file) != 0 ||
		    strcmp(text(e, "kind"), kind) != 0)
			continue;
		json_t *lanes = json_object_get(e, "lane_addresses");
		if (number(e, "bytes") > 0)
			*bytes = (int)number(e, "bytes");
		for (size_t l = 0; l + 1 < json_array_size(lanes) && l < 31; l++) {
			json_t *a = json_array_get(lanes, l), *b = json_array_get(lanes, l + 1);
			if (json_is_integer(a) && json_is_integer(b))
				return (long long)(json_integer_value(b) - json_integer_value(a));
		}
	}
	return 0;
}

/* ---- the checks ----------------------------------------------------------------- */

static double total(json_t *metrics, const char *key)
{
	return number(json_object_get(metrics, "totals"), key);
}

/* The coalescing figure of "totals": sectors per request, a request counted
 * in 4-byte terms (docs/emu-metrics.md: a warp's 16-byte access needs 16
 * sectors, four times a 4-byte one's 4, and counts as four requests), so
 * that one limit serves every access width. */
static double sectors_per_word(json_t *metrics, const char *kind)
{
	char key[64];
	snprintf(key, sizeof key, "global_%s_sectors_per_word_request", kind);
	return total(metrics, key);
}

/* Coalescing of global loads or stores. */
static void check_sectors(struct test_result *t, json_t *metrics, const char *kind, double limit)
{
	const char *what = strcmp(kind, "load") == 0 ? "loads" : "stores";
	const char *verb = strcmp(kind, "load") == 0 ? "read" : "write";
	double v = sectors_per_word(metrics, kind);
	struct line_figure w;
	if (v < 0 || !worst_line(metrics, "global", kind, &w)) {
		test_fail(t, "the emulator measured no global %s: did a kernel run?", what);
		return;
	}
	int bytes;
	long long stride = lane_stride(&w, kind, &bytes);
	char why[256] = "", wide[80] = "", ideal[80] = "";
	if (stride != 0 && (stride < 0 ? -stride : stride) > bytes)
		snprintf(why, sizeof why, ": neighbouring threads %s addresses %lld bytes apart, so each "
			 "lands in a sector of its own; make consecutive threads (threadIdx.x) %s "
			 "consecutive addresses", verb, stride < 0 ? -stride : stride, verb);
	else if (v > limit)
		snprintf(why, sizeof why, ": the warp's threads %s scattered addresses; make consecutive "
			 "threads (threadIdx.x) %s consecutive addresses", verb, verb);
	if (bytes > 4) {	/* 32 lanes x bytes / 32-byte sectors, counted per 4 bytes */
		double plain = w.plain > 0 ? w.units / w.plain : 0;
		snprintf(wide, sizeof wide, "%.1f sectors per request of %d bytes a thread, ", plain, bytes);
		snprintf(ideal, sizeof ideal, "a coalesced %s of %d bytes a thread touches %d, ", kind, bytes, bytes);
	}
	if (v <= limit)
		test_pass(t, "%s: %.1f sectors per request (limit %g; the worst line, %.60s:%ld%s, %s%.1f%s)",
			  what, v, limit, w.file, w.line, w.whose, wide, per_request(&w),
			  wide[0] ? " for each 4 bytes" : "");
	else
		test_fail(t, "%s at %.60s:%ld%s touch %s%.1f sectors per request%s (%sa coalesced 4-byte %s "
			  "touches 4; limit %g)%s", what, w.file, w.line, w.whose, wide, per_request(&w),
			  wide[0] ? " for each 4 bytes" : "", ideal, kind, limit, why);
}

/* Whether the metrics' file name is the submission's (the emulator names
 * files as the compiler saw them; the grader may have copied the file). */
static int source_of(const char *source, const char *file)
{
	const char *base = strrchr(source, '/'), *fbase = strrchr(file, '/');
	base = base ? base + 1 : source;
	fbase = fbase ? fbase + 1 : file;
	return source[0] && strcmp(base, fbase) == 0;
}

static void check_load_sectors(struct test_result *t, json_t *metrics, double limit, const char *source)
{
	(void)source;
	check_sectors(t, metrics, "load", limit);
}

static void check_store_sectors(struct test_result *t, json_t *metrics, double limit, const char *source)
{
	(void)source;
	check_sectors(t, metrics, "store", limit);
}

/* source: the submission, whose declaration of the tile gives the padding. */
static void check_wavefronts(struct test_result *t, json_t *metrics, double limit, const char *source)
{
	double v = total(metrics, "shared_wavefronts_per_request");
	struct line_figure w;
	if (v < 0) {
		test_fail(t, "the emulator's metrics have no shared-memory figures");
		return;
	}
	if (!worst_line(metrics, "shared", NULL, &w)) {
		test_pass(t, "no shared-memory requests: no bank conflicts");
		return;
	}
	if (v <= limit) {
		test_pass(t, "shared memory: %.1f wavefronts per request (limit %g)", v, limit);
		return;
	}
	char fix[512] = "If the line reads a column of a two-dimensional tile, pad each row by one "
			"element so that a column spreads over all 32 banks";
	char declared[160], padded[160];
	if (source_of(source, w.file) &&
	    shared_tile_padding(source, w.line, declared, padded, sizeof declared) == 0)
		snprintf(fix, sizeof fix, "Reading a column of %.150s does that; pad each row by one element "
			 "(%.150s) so that a column spreads over all 32 banks", declared, padded);
	test_fail(t, "shared-memory accesses at %.60s:%ld%s need %.1f wavefronts per request (limit %g; "
		  "%.1f over all lines): a warp's request takes one pass per distinct word in its "
		  "busiest bank, and here up to %.0f threads hit words of one bank (bank = word index "
		  "%% 32). %s", w.file, w.line, w.whose, per_request(&w), limit, v, per_request(&w), fix);
}

static void check_races(struct test_result *t, json_t *metrics, double limit, const char *source)
{
	(void)source;
	double v = total(metrics, FINDINGS_READ_RACES);
	char where[512];
	if (v < 0) {
		test_fail(t, "the emulator's metrics have no race count");
		return;
	}
	if (v <= limit) {
		test_pass(t, "%.0f races with a read in them (limit %g; threads that only write the same "
			  "word, a flag each sets, are not counted: the emulator does not see the values)",
			  v, limit);
		return;
	}
	findings_worst_race(metrics, where, sizeof where);
	test_fail(t, "%.0f races between threads of a block (limit %g)%s. Within one barrier interval "
		  "the order of two threads' accesses is not defined: one thread must finish writing "
		  "before another reads the same word, so put a __syncthreads() between them, or write "
		  "into a second buffer (double buffering)", v, limit, where);
}

static void check_uninit(struct test_result *t, json_t *metrics, double limit, const char *source)
{
	(void)source;
	double v = total(metrics, "uninit_shared_reads");
	size_t i, j;
	json_t *launch, *u, *best = NULL;
	if (v < 0) {
		test_fail(t, "the emulator's metrics have no count of uninitialised reads");
		return;
	}
	if (v <= limit) {
		test_pass(t, "%.0f reads of uninitialised shared memory (limit %g)", v, limit);
		return;
	}
	json_array_foreach(json_object_get(metrics, "launches"), i, launch)
		json_array_foreach(json_object_get(launch, "uninit_shared_reads"), j, u)
			if (!best || number(u, "count") > number(best, "count"))
				best = u;
	test_fail(t, "%.0f reads of shared memory that no thread of the block had written yet (limit "
		  "%g), e.g. %.0f at %.60s:%ld: shared memory starts with no defined content in each "
		  "block; a thread may read a word only after the thread that writes it has done so "
		  "and a __syncthreads() has passed", v, limit, best ? number(best, "count") : 0,
		  best ? text(best, "file") : "?", best ? (long)number(best, "line") : 0);
}

static void check_warp_steps(struct test_result *t, json_t *metrics, double limit, const char *source)
{
	(void)source;
	double v = total(metrics, "active_warp_steps");
	if (v < 0) {
		test_fail(t, "the emulator's metrics have no count of active warp-steps");
		return;
	}
	/* Nothing stored to shared memory: not a block scan at all (passes over
	 * global memory), so the count says nothing about work. */
	if (v == 0) {
		test_fail(t, "no warp stored to shared memory, so the work of a block scan could not "
			  "be counted: the lab asks for the up-sweep and down-sweep in shared memory, "
			  "not passes over global memory");
		return;
	}
	if (v <= limit) {
		test_pass(t, "%.0f active warp-steps in one block of the block scan (limit %g)", v, limit);
		return;
	}
	test_fail(t, "%.0f active warp-steps in one block of the block scan (limit %g): summed over "
		  "its barrier intervals, the warps that store to shared memory. A warp costs a "
		  "step if any of its threads works; here most warps stay busy in most steps, as "
		  "in Hillis-Steele's log2(n) passes over every element. A work-efficient scan "
		  "(Blelloch) does half the work each step and packs the active threads into the "
		  "fewest warps (threads 0 .. d-1), so the idle warps skip to the barrier", v, limit);
}

/* Work-efficiency over the whole scan (docs/emu-metrics.md, "Work"): the
 * figure is the grader's (analysis_grade), from the emulator's count. */
static void check_work(struct test_result *t, json_t *metrics, double limit, const char *source)
{
	(void)source;
	double v = total(metrics, WORK_PER_1024);
	if (v < 0) {
		test_fail(t, "the emulator's metrics have no count of the scan's work");
		return;
	}
	/* Every element of a scan's output is a sum some thread computed: a
	 * scan cannot come under one operation per element (32 per 1024). */
	if (v < WORK_LEAST) {
		test_fail(t, "%.1f operations per 1024 elements: the scan combined almost no values "
			  "(a scan adds at least once per element, 32 per 1024), so it has not scanned "
			  "yet", v);
		return;
	}
	if (v <= limit) {
		test_pass(t, "%.0f operations per 1024 elements (limit %g): work-efficient", v, limit);
		return;
	}
	test_fail(t, "%.0f operations per 1024 elements (limit %g): over every launch of the scan, the "
		  "threads' operations that combine values (a store of a computed value, a shuffle, an "
		  "atomic), counted in warps of 32 threads, per 1024 input elements. Hillis-Steele adds "
		  "every element in almost every one of its log2(block) steps: 288 per 1024 elements "
		  "with 1024-thread blocks, still 129 with 32-thread blocks, before the block sums are "
		  "added. Blelloch's up-sweep and down-sweep add each element about twice: 64 per 1024 "
		  "whatever the block size (plus 32 for a pass that adds the block sums)", v, limit);
}

/* The same figure as information (lab 1's rubric: Hillis-Steele is that
 * lab's algorithm); limit is the work-efficient lab's, for comparison. */
static void note_work(struct test_result *t, json_t *metrics, double limit, const char *source)
{
	(void)source;
	double v = total(metrics, WORK_PER_1024);
	if (v < 0)
		test_pass(t, "the emulator did not count the scan's work");
	else
		test_pass(t, "work: %.0f operations per 1024 elements over the whole scan (information, no "
			  "points). A work-efficient scan (Blelloch, lab 2) stays under %g: Hillis-Steele "
			  "adds each element in almost every one of its log2(block) steps",
			  v, limit);
}

/* The coalescing figures as information (lab 2 compares them, its handout
 * says why): limit is what a coalesced request of 4-byte words needs. */
static void note_sectors(struct test_result *t, json_t *metrics, double limit, const char *source)
{
	(void)source;
	double load = sectors_per_word(metrics, "load");
	double store = sectors_per_word(metrics, "store");
	if (load < 0 || store < 0)
		test_pass(t, "the emulator has no global-memory figures for this run");
	else
		test_pass(t, "global memory: %.1f sectors per load request, %.1f per store request "
			  "(information, no points; a warp's 32 consecutive 4-byte words need %g)",
			  load, store, limit);
}

/* The bank-conflict figure as information: limit is a conflict-free
 * request's wavefronts. */
static void note_wavefronts(struct test_result *t, json_t *metrics, double limit, const char *source)
{
	(void)source;
	double v = total(metrics, "shared_wavefronts_per_request");
	if (v < 0)
		test_pass(t, "the emulator has no shared-memory figures for this run");
	else if (v <= limit * 1.05)
		test_pass(t, "shared memory: %.2f wavefronts per request, conflict-free (information, no "
			  "points)", v);
	else
		test_pass(t, "shared memory: %.2f wavefronts per request where a conflict-free request "
			  "needs %g: bank conflicts cost %.0f%% more passes (information, no points)",
			  v, limit, 100 * (v / limit - 1));
}

/* ---- the table ---------------------------------------------------------------- */

const struct analysis_check_info analysis_checks[ANALYSIS_CHECKS] = {
	[CHECK_LOAD_SECTORS] = { "coalesced loads", "max_load_sectors_per_request", 1, 32,
				 "global_load_sectors_per_word_request", "load_sectors_per_request",
				 check_load_sectors },
	[CHECK_STORE_SECTORS] = { "coalesced stores", "max_store_sectors_per_request", 1, 32,
				  "global_store_sectors_per_word_request", "store_sectors_per_request",
				  check_store_sectors },
	[CHECK_SHARED_WAVEFRONTS] = { "bank conflicts", "max_shared_wavefronts_per_request", 1, 32,
				      "shared_wavefronts_per_request", "shared_wavefronts_per_request",
				      check_wavefronts },
	[CHECK_RACES] = { "races", "max_races", 0, 1e9, FINDINGS_READ_RACES, "races", check_races },
	[CHECK_UNINIT_SHARED_READS] = { "uninitialised shared reads", "max_uninit_shared_reads", 0, 1e9,
					"uninit_shared_reads", "uninit_shared_reads", check_uninit },
	[CHECK_ACTIVE_WARP_STEPS] = { "active warp-steps", "max_active_warp_steps", 1, 1e9,
				      "active_warp_steps", "active_warp_steps", check_warp_steps },
	[CHECK_WORK] = { "work-efficiency", "max_work_per_1024", 1, 1e9, WORK_PER_1024,
			 "work_per_1024_elements", check_work },
	[CHECK_WORK_NOTE] = { "work per 1024 elements", "note_work_per_1024", 1, 1e9, WORK_PER_1024,
			      "work_per_1024_elements", note_work, 1 },
	[CHECK_SECTORS_NOTE] = { "sectors per request", "note_sectors_per_request", 1, 32,
				 "global_store_sectors_per_word_request", "store_sectors_per_request",
				 note_sectors, 1 },
	[CHECK_WAVEFRONTS_NOTE] = { "wavefronts per request", "note_wavefronts_per_request", 1, 32,
				    "shared_wavefronts_per_request", "shared_wavefronts_per_request",
				    note_wavefronts, 1 },
};

/* The emulator counts the combining operations of every launch; per 1024
 * of the analysis run's input elements (the shape it ran at, which the seed
 * chooses), in warps of 32, the figure goes into the totals beside the
 * emulator's own. */
static void add_work_figure(const struct shape *analysed, json_t *metrics)
{
	json_t *totals = json_object_get(metrics, "totals");
	double ops = number(totals, "combining_ops");
	size_t n = shape_elements(analysed);
	if (json_is_object(totals) && ops >= 0 && n > 0)
		json_object_set_new(totals, WORK_PER_1024, json_real(ops / 32.0 * 1024.0 / (double)n));
}

int analysis_checks_present(const struct rubric *r)
{
	int n = 0;
	for (int i = 0; i < ANALYSIS_CHECKS; i++)
		n += r->analysis_limit[i] >= 0 && !analysis_checks[i].note;
	return n;
}

/* The checks' figures in g->figures, for the report and the gradebook. */
static void summarise(json_t *metrics, struct grade *g)
{
	for (int i = 0; i < ANALYSIS_CHECKS; i++)
		g->figures.figure[i] = total(metrics, analysis_checks[i].total);
}

/* Launches that ran traced blocks: without one there is nothing to judge
 * (no kernel ran, or the code turned the emulator's tracing off). */
static int traced_launches(json_t *metrics)
{
	size_t i;
	json_t *launch;
	int n = 0;
	json_array_foreach(json_object_get(metrics, "launches"), i, launch)
		n += number(launch, "traced_blocks") > 0;
	return n;
}

/* The emulator's warnings (docs/emu-metrics.md): code that works, but not
 * everywhere, or not here as on the GPU. Each is a note of no points, with
 * its line; at most four. */
static void report_warnings(json_t *metrics, struct grade *g)
{
	size_t i;
	json_t *w;
	json_array_foreach(json_object_get(metrics, "warnings"), i, w) {
		const char *kind = json_string_value(json_object_get(w, "kind"));
		const char *msg = json_string_value(json_object_get(w, "message"));
		if (i >= 4 || !kind || !msg)
			break;
		char name[64];
		snprintf(name, sizeof name, "analysis: note (%.40s)", kind);
		struct test_result *t = grade_add_test(g, name, GROUP_ANALYSIS, 0);
		if (!t)
			return;
		t->kind = KIND_ANALYSIS_NOTE;
		test_pass(t, "%s", msg);
	}
}

void analysis_grade(const struct rubric *r, const struct shape *analysed, json_t *metrics, struct grade *g)
{
	char why[400];
	report_warnings(metrics, g);
	int n = analysis_checks_present(r);
	if (n == 0)
		return;
	add_work_figure(analysed, metrics);
	findings_add_read_races(metrics);
	summarise(metrics, g);
	for (int i = 0, k = 0; i < ANALYSIS_CHECKS; i++) {
		double limit = r->analysis_limit[i];
		if (limit < 0)
			continue;
		char name[64];
		int note = analysis_checks[i].note;
		snprintf(name, sizeof name, note ? "analysis: note (%s)" : "analysis: %s",
			 analysis_checks[i].name);
		struct test_result *t = grade_add_test(g, name, GROUP_ANALYSIS,
						       note ? 0 : points_share(r->analysis_points, n, k++));
		if (!t)
			return;
		t->kind = KIND_ANALYSIS_CHECK;
		t->check = i;
		if (!traced_launches(metrics) && !note) {
			test_fail(t, "the emulator traced no kernel launch, so there is nothing to "
				  "analyse: did the entry point launch a kernel?");
			continue;
		}
		if (!note && findings_unrepresentative(metrics, why, sizeof why)) {
			test_fail_as(t, FAILURE_NOT_BELIEVED, "not believed: %s", why);
			continue;
		}
		analysis_checks[i].check(t, metrics, limit, g->submission);
	}
}
