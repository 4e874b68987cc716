/*
 * Gradescope's results.json for one student, after
 * https://gradescope-autograders.readthedocs.io/en/latest/specs/ :
 *
 *   {"score": 37.5, "execution_time": 12, "output": "...",
 *    "visibility": "visible", "stdout_visibility": "hidden",
 *    "tests": [{"name": "correctness 31x33", "score": 0, "max_score": 6.25,
 *               "status": "failed", "output": "...", "tags": ["correctness"],
 *               "visibility": "visible"}],
 *    "extra_data": {"max_score": 100, "verdict": "...", "seed": "...", ...}}
 *
 * Each test's output is the grader's message for it (for a build failure,
 * the compiler's words). A test that could not be measured is "failed",
 * its output saying why. Scores are rounded to 2 decimals, and the maximum
 * is the rubric's whatever happened (steps/scale.h). The whole output is
 * the verdict, the seed, the device and how the code was isolated.
 */
#include "batch/batch.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* Student code's output can reach messages: keep only valid UTF-8. */
static json_t *text(const char *s)
{
	json_t *j = json_string(s);
	if (j)
		return j;
	char *c = strdup(s);
	if (!c)
		return json_string("");
	batch_clean_text(c);
	j = json_string(c);
	free(c);
	return j;
}

static json_t *test_json(const struct grade *g, const struct test_result *t)
{
	json_t *o = json_object();
	const char *out = t->message;
	if (t->group == GROUP_BUILD && g->build_failed)
		out = g->build_log;
	json_object_set_new(o, "name", text(t->name));
	json_object_set_new(o, "score", json_real(points_round(t->points)));
	json_object_set_new(o, "max_score", json_real(points_round(t->max_points)));
	/* Not measured is failed too: Gradescope shows a test without a status as passed. */
	json_object_set_new(o, "status", json_string(t->status == TEST_PASSED ? "passed" : "failed"));
	json_object_set_new(o, "output", text(out[0] ? out : status_name(t->status)));
	json_object_set_new(o, "tags", json_pack("[s]", group_name(t->group)));
	json_object_set_new(o, "visibility", json_string("visible"));
	return o;
}

/* The submission-wide output: what a student reads first. */
static json_t *overall(const struct grade *g, const char *verdict)
{
	char buf[2048], seed[24];
	if (!g->device[0])	/* not graded at all (no file): the verdict says why */
		return text(verdict);
	snprintf(seed, sizeof(seed), "%" PRIu64, g->seed);
	snprintf(buf, sizeof(buf), "%s\n\nGraded on %s (%s backend), seed %s.\nIsolation: %s\n%s%s",
		 verdict, g->device[0] ? g->device : "?", backend_name(g->backend), seed,
		 g->isolation_note[0] ? g->isolation_note : "n/a",
		 g->band_source[0] ? "Performance band: " : "", g->band_source);
	return text(buf);
}

json_t *gradescope_json(const struct grade *g, const char *verdict, double wall_s)
{
	json_t *root = json_object(), *tests = json_array();
	char seed[24];
	snprintf(seed, sizeof(seed), "%" PRIu64, g->seed);
	for (int i = 0; i < g->n_tests; i++)
		json_array_append_new(tests, test_json(g, &g->tests[i]));
	if (g->internal_error) {
		json_t *t = json_pack("{s:s, s:f, s:f, s:s, s:o, s:s}", "name", "grader", "score", 0.0,
				      "max_score", 0.0, "status", "failed", "output",
				      text(g->internal_message), "visibility", "visible");
		json_array_append_new(tests, t);
	}
	json_object_set_new(root, "score", json_real(grade_score(g)));
	json_object_set_new(root, "execution_time", json_integer((json_int_t)(wall_s + 0.5)));
	json_object_set_new(root, "output", overall(g, verdict));
	json_object_set_new(root, "visibility", json_string("visible"));
	json_object_set_new(root, "stdout_visibility", json_string("hidden"));
	json_object_set_new(root, "tests", tests);
	json_object_set_new(root, "extra_data",
			    json_pack("{s:f, s:o, s:s, s:s, s:s}", "max_score", grade_max_score(g),
				      "verdict", text(verdict), "seed", seed, "backend",
				      backend_name(g->backend), "lab", g->lab ? g->lab->id : ""));
	return root;
}
