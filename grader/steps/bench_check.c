/* Checks the timed runs' outputs (see bench_check.h). */
#include "steps/bench_check.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_plan.h"
#include "host_buffer.h"
#include "rng.h"
#include "steps/output_hash.h"

/* expected_hash for an elementwise lab (lab.h): the base input's reference
 * and its hash once, then for each run only the chunk's words of the output
 * change, and so only their terms of the hash. Lab 4's sweep checks ten
 * runs of a gigabyte: this is 64 words each instead. */
static uint64_t expected_hash_elementwise(struct bench_checker *c, const struct bench_run_plan *p)
{
	if (!c->base_hashed) {
		c->lab->reference(c->in, c->out, &c->shape);
		c->base_hash = bench_output_hash(c->out, c->n_out);
		c->base_hashed = 1;
	}
	uint32_t in[BENCH_CHUNK_WORDS], out[BENCH_CHUNK_WORDS];
	struct bench_run_plan here = *p;
	struct shape chunk = { 1, { p->chunk_words } };
	here.chunk_at = 0;
	bench_apply_chunk(in, &here);
	c->lab->reference(in, out, &chunk);
	return c->base_hash - bench_output_hash_at(c->out + p->chunk_at, p->chunk_words, p->chunk_at) +
	       bench_output_hash_at(out, p->chunk_words, p->chunk_at);
}

/* expected_hash for a lab that rearranges its input (lab.h): the base
 * input's hash once, made from its seed without the input or its
 * reference, then for each run only the chunk's words' terms change (the
 * base words they replace made again from the seed). Lab 3 checks two
 * runs of each timed shape, up to a gigabyte: 64 words each instead of a
 * transpose and a hash. */
static uint64_t expected_hash_placed(struct bench_checker *c, const struct bench_run_plan *p)
{
	if (!c->base_hashed) {
		output_hash_of_seed(c->lab, &c->shape, c->input_seed, &c->base_hash);	/* no buffer: cannot fail */
		c->base_hashed = 1;
	}
	uint32_t in[BENCH_CHUNK_WORDS], base[BENCH_CHUNK_WORDS];
	struct bench_run_plan here = *p;
	here.chunk_at = 0;
	bench_apply_chunk(in, &here);
	rng_fill_words(base, p->chunk_at, p->chunk_words, c->lab->input, c->input_seed);
	uint64_t h = c->base_hash;
	for (size_t k = 0; k < p->chunk_words; k++) {
		size_t at = output_position(c->lab, &c->shape, p->chunk_at + k);
		h += rng_hash_term(at, in[k]) - rng_hash_term(at, base[k]);
	}
	return h;
}

/* The hash run p's output must have: the reference of the base input
 * (left as it was) with the run's chunk written into it. */
static uint64_t expected_hash(struct bench_checker *c, const struct bench_run_plan *p)
{
	if (c->lab->elementwise && c->shape.rank == 1)
		return expected_hash_elementwise(c, p);
	if (c->lab->out_position)
		return expected_hash_placed(c, p);
	uint32_t base[BENCH_CHUNK_WORDS];
	memcpy(base, c->in + p->chunk_at, p->chunk_words * 4);
	bench_apply_chunk(c->in, p);
	c->lab->reference(c->in, c->out, &c->shape);
	memcpy(c->in + p->chunk_at, base, p->chunk_words * 4);
	return bench_output_hash(c->out, c->n_out);
}

/* The harness's hash of run (from "checked"), or 0 with *found unset. */
static int reported_hash(json_t *checked, int run, uint64_t *hash)
{
	size_t i;
	json_t *c;
	json_array_foreach(checked, i, c) {
		const char *h = json_string_value(json_object_get(c, "hash"));
		if (json_integer_value(json_object_get(c, "run")) == run && h)
			return sscanf(h, "%" SCNx64, hash) == 1;
	}
	return 0;
}

int bench_checker_open(struct bench_checker *c, const struct lab *lab, const struct shape *s,
		       char *msg, size_t len)
{
	memset(c, 0, sizeof(*c));
	c->lab = lab;
	c->shape = *s;
	c->n_in = lab->in_count(s);
	c->n_out = lab->out_count(s);
	if (lab->out_position)	/* made from the seed alone: expected_hash_placed */
		return 0;
	c->in = host_buffer_alloc(c->n_in * 4);
	c->out = host_buffer_alloc(c->n_out * 4);
	if (c->in && c->out)
		return 0;
	char where[64];
	snprintf(msg, len, "timing: the grader ran out of memory for the reference of %s",
		 shape_format(s, where, sizeof(where)));
	bench_checker_close(c);
	return -1;
}

void bench_checker_close(struct bench_checker *c)
{
	host_buffer_free(c->in, c->n_in * 4);
	host_buffer_free(c->out, c->n_out * 4);
	c->in = c->out = NULL;
}

int bench_check_outputs(struct bench_checker *c, uint64_t seed, json_t *timing, int runs, int checks,
			char *msg, size_t len)
{
	char where[64];
	shape_format(&c->shape, where, sizeof(where));
	json_t *extra = json_object_get(timing, "extra_shared"), *checked = json_object_get(timing, "checked");
	const char *secret_text = json_string_value(json_object_get(timing, "secret"));
	uint64_t secret;
	if (!json_is_integer(extra) || !json_is_array(checked) || !secret_text ||
	    sscanf(secret_text, "%" SCNx64, &secret) != 1) {
		snprintf(msg, len, "timing: the harness's report for %s has no checks of its outputs: "
			 "not believed", where);
		return BENCH_NOT_BELIEVED;
	}
	uint64_t stream = bench_seed(seed, &c->shape, (long)json_integer_value(extra), secret);
	uint64_t input_seed = bench_input_seed(seed, &c->shape, secret);
	if (!c->filled || c->input_seed != input_seed) {
		if (c->in)
			lab_fill_input(c->lab, c->in, &c->shape, input_seed);
		c->filled = 1;
		c->input_seed = input_seed;
		c->base_hashed = 0;
	}
	int rc = 0, expected = 0;
	for (int run = 0; rc == 0 && run < runs; run++) {
		struct bench_run_plan p;
		bench_plan_run(stream, c->n_in, run, runs, checks, &p);
		if (!p.checked)
			continue;
		expected++;
		uint64_t got;
		if (!reported_hash(checked, run, &got)) {
			snprintf(msg, len, "timing: the harness's report for %s lacks the check of run %d: "
				 "not believed", where, run + 1);
			rc = BENCH_NOT_BELIEVED;
		} else if (got != expected_hash(c, &p)) {
			snprintf(msg, len, "%s: timed run %d of %d computed a wrong result. Before every timed "
				 "call the output is poisoned and part of the input changes, and some runs are "
				 "checked against the reference: each call must compute the whole result from "
				 "its input (not skip work, or reuse an earlier call's result). No points for "
				 "speed.", where, run + 1, runs);
			rc = BENCH_WRONG_RESULT;
		}
	}
	if (rc == 0 && (int)json_array_size(checked) != expected) {
		snprintf(msg, len, "timing: the harness's report for %s has checks of runs the grader did not "
			 "choose: not believed", where);
		rc = BENCH_NOT_BELIEVED;
	}
	return rc;
}
