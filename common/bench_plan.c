/* The timed runs' plan (see bench_plan.h). */
#include "bench_plan.h"

#include <string.h>

#include "parallel.h"
#include "rng.h"

uint64_t bench_seed(uint64_t seed, const struct shape *s, long extra, uint64_t secret)
{
	uint64_t x = rng_mix64(seed ^ 0x62656e6368ull);	/* "bench" */
	x = rng_mix64(x ^ (uint64_t)s->dim[0]);
	x = rng_mix64(x ^ ((uint64_t)s->dim[1] << 1));
	x = rng_mix64(x ^ (uint64_t)(extra + 2));
	return rng_mix64(x ^ secret);
}

uint64_t bench_input_seed(uint64_t seed, const struct shape *s, uint64_t secret)
{
	return rng_mix64(bench_seed(seed, s, -1, secret) ^ 0x696e707574ull);	/* "input" */
}

/* Whether run is one of the `checks` runs the stream picks: the runs are
 * cut into that many equal parts and one run of each is checked, so that
 * checks fall early and late. */
static int checked_run(uint64_t stream, int run, int runs, int checks)
{
	if (runs <= checks)
		return 1;
	int part = run * checks / runs;
	int lo = (part * runs + checks - 1) / checks;
	int hi = ((part + 1) * runs + checks - 1) / checks;
	return run == lo + (int)(rng_at(stream ^ 0x636865636bull, (uint64_t)part) % (uint64_t)(hi - lo));
}

void bench_plan_run(uint64_t stream, size_t n_in, int run, int runs, int checks,
		    struct bench_run_plan *p)
{
	uint64_t a = rng_at(stream, 3 * (uint64_t)run), b = rng_at(stream, 3 * (uint64_t)run + 1);
	memset(p, 0, sizeof(*p));
	p->out_offset = (size_t)(a % (BENCH_SLACK_WORDS / BENCH_OFFSET_STEP_WORDS)) * BENCH_OFFSET_STEP_WORDS;
	p->chunk_words = n_in < BENCH_CHUNK_WORDS ? n_in : BENCH_CHUNK_WORDS;
	p->chunk_at = (size_t)(b % (n_in - p->chunk_words + 1));
	p->chunk_byte = (unsigned char)rng_at(stream, 3 * (uint64_t)run + 2);
	p->checked = run < runs && checks > 0 && checked_run(stream, run, runs, checks);
}

void bench_apply_chunk(uint32_t *in, const struct bench_run_plan *p)
{
	memset(in + p->chunk_at, p->chunk_byte, p->chunk_words * 4);
}

struct hash_job {
	const uint32_t *w;
	uint64_t sum;
};

static void hash_piece(size_t begin, size_t end, void *arg)
{
	struct hash_job *j = arg;
	uint64_t h = 0;
	for (size_t i = begin; i < end; i++)
		h += rng_hash_term(i, j->w[i]);
	__atomic_fetch_add(&j->sum, h, __ATOMIC_RELAXED);
}

uint64_t bench_output_hash(const uint32_t *w, size_t n)
{
	/* A sum of per-word mixes: the same however the words are split. */
	struct hash_job j = { .w = w, .sum = 0 };
	parallel_for(n, (size_t)1 << 20, hash_piece, &j);
	return j.sum;
}

uint64_t bench_output_hash_at(const uint32_t *w, size_t n, size_t first)
{
	uint64_t h = 0;
	for (size_t k = 0; k < n; k++)
		h += rng_hash_term(first + k, w[k]);
	return h;
}
