/* Counter-based random inputs (see rng.h for why counter-based). */
#include "rng.h"

#include "parallel.h"

#include <sys/random.h>
#include <time.h>
#include <unistd.h>

uint64_t rng_at(uint64_t seed, uint64_t i)
{
	return rng_bits(rng_key(seed), i);
}

/* Inputs are generated in parallel (parallel.h): every word depends only on
 * the key and its index, so the pieces are independent. The words are
 * rng.h's, which the GPU's fill kernel makes too. */
#define FILL_GRAIN ((size_t)1 << 20)

struct fill_job {
	void *dst;
	size_t first;	/* the stream's index of dst[0] */
	enum rng_kind kind;
	uint64_t key;
};

/* One test of the kind a piece, not one a word. */
static void fill_words_piece(size_t begin, size_t end, void *arg)
{
	const struct fill_job *job = arg;
	uint32_t *dst = job->dst;
	if (job->kind == RNG_U32)
		for (size_t k = begin; k < end; k++)
			dst[k] = rng_word_u32(job->key, job->first + k);
	else
		for (size_t k = begin; k < end; k++)
			dst[k] = rng_word(RNG_F32, job->key, job->first + k);
}

void rng_fill_words(uint32_t *dst, size_t first, size_t count, enum rng_kind kind, uint64_t seed)
{
	struct fill_job job = { dst, first, kind, rng_key(seed) };
	parallel_for(count, FILL_GRAIN, fill_words_piece, &job);
}

void rng_fill_u32(uint32_t *dst, size_t n, uint64_t seed)
{
	rng_fill_words(dst, 0, n, RNG_U32, seed);
}

void rng_fill_f32(float *dst, size_t n, uint64_t seed)
{
	rng_fill_words((uint32_t *)dst, 0, n, RNG_F32, seed);	/* the floats' bits */
}

uint64_t rng_test_seed(uint64_t run_seed, uint64_t salt, unsigned test_index)
{
	return rng_mix64(rng_mix64(run_seed ^ rng_mix64(salt)) + test_index);
}

uint64_t rng_fresh_seed(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	/* Small enough to type back in: 9 decimal digits. */
	return rng_mix64((uint64_t)ts.tv_sec * 1000000007ull ^ (uint64_t)ts.tv_nsec ^
			 ((uint64_t)getpid() << 32)) % 1000000000ull;
}

uint64_t rng_secret(void)
{
	uint64_t x = 0;
	if (getrandom(&x, sizeof(x), 0) == (ssize_t)sizeof(x))
		return x;
	struct timespec ts;	/* no entropy source: the clock, unpredictable enough to a file */
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return rng_mix64((uint64_t)ts.tv_nsec ^ ((uint64_t)ts.tv_sec << 30) ^ ((uint64_t)getpid() << 48));
}
