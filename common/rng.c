/* Counter-based random inputs (see rng.h for why counter-based). */
#include "rng.h"

#include "parallel.h"

#include <sys/random.h>
#include <time.h>
#include <unistd.h>

uint64_t rng_at(uint64_t seed, uint64_t i)
{
	return rng_mix64(rng_mix64(seed) ^ (i * 0xd1b54a32d192ed03ull));
}

/* Inputs are generated in parallel (parallel.h): every word depends only on
 * the key and its index, so the pieces are independent. */
#define FILL_GRAIN ((size_t)1 << 20)

struct fill_job {
	void *dst;
	uint64_t key;
};

static void fill_u32_piece(size_t begin, size_t end, void *arg)
{
	const struct fill_job *job = arg;
	uint32_t *dst = job->dst;
	for (size_t i = begin; i < end; i++)
		dst[i] = (uint32_t)(rng_mix64(job->key ^ (i * 0xd1b54a32d192ed03ull)) >> 32);
}

static void fill_f32_piece(size_t begin, size_t end, void *arg)
{
	const struct fill_job *job = arg;
	float *dst = job->dst;
	for (size_t i = begin; i < end; i++) {
		uint32_t bits = (uint32_t)(rng_mix64(job->key ^ (i * 0xd1b54a32d192ed03ull)) >> 40);
		dst[i] = (float)bits * (2.0f / 16777216.0f) - 1.0f;	/* 24 bits: exact */
	}
}

void rng_fill_u32(uint32_t *dst, size_t n, uint64_t seed)
{
	struct fill_job job = { dst, rng_mix64(seed) };
	parallel_for(n, FILL_GRAIN, fill_u32_piece, &job);
}

void rng_fill_f32(float *dst, size_t n, uint64_t seed)
{
	struct fill_job job = { dst, rng_mix64(seed) };
	parallel_for(n, FILL_GRAIN, fill_f32_piece, &job);
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
