/* Counter-based random inputs (see rng.h for why counter-based). */
#include "rng.h"

#include <time.h>
#include <unistd.h>

uint64_t rng_mix64(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

uint64_t rng_at(uint64_t seed, uint64_t i)
{
	return rng_mix64(rng_mix64(seed) ^ (i * 0xd1b54a32d192ed03ull));
}

void rng_fill_u32(uint32_t *dst, size_t n, uint64_t seed)
{
	uint64_t key = rng_mix64(seed);
	for (size_t i = 0; i < n; i++)
		dst[i] = (uint32_t)(rng_mix64(key ^ (i * 0xd1b54a32d192ed03ull)) >> 32);
}

void rng_fill_f32(float *dst, size_t n, uint64_t seed)
{
	uint64_t key = rng_mix64(seed);
	for (size_t i = 0; i < n; i++) {
		uint32_t bits = (uint32_t)(rng_mix64(key ^ (i * 0xd1b54a32d192ed03ull)) >> 40);
		dst[i] = (float)bits * (2.0f / 16777216.0f) - 1.0f;	/* 24 bits: exact */
	}
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
