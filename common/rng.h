/*
 * Counter-based random numbers: element i of a seeded stream is a pure
 * function of (seed, i). The grader and the harness each generate the same
 * inputs from the seed alone, in any order, so the grader never has to
 * trust a copy of the inputs that passed through student code.
 */
#ifndef COMMON_RNG_H
#define COMMON_RNG_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Compiled by nvcc (or the emulator's compiler), a function of this header
 * is for the GPU too: the kit's hash kernel (grader/harness/device_hash.cu)
 * mixes words with rng_mix64 and must give the host's bits exactly. */
#ifdef __CUDACC__
#define RNG_HOST_DEVICE __host__ __device__
#else
#define RNG_HOST_DEVICE
#endif

/* splitmix64's finaliser: a bijective 64-bit mix. Inline, and here, so that
 * the host and the device share one definition. */
static inline RNG_HOST_DEVICE uint64_t rng_mix64(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

/* Element i of the stream for seed. */
uint64_t rng_at(uint64_t seed, uint64_t i);

/* Full-range 32-bit words. */
void rng_fill_u32(uint32_t *dst, size_t n, uint64_t seed);

/* Floats in [-1, 1) with 24 random bits each: never NaN, infinity or
 * subnormal, so a bitwise comparison of a data-movement kernel is exact. */
void rng_fill_f32(float *dst, size_t n, uint64_t seed);

/* Seed for one test: mixes the run's seed, a secret salt (0 if none)
 * and the test's index, so each test gets its own inputs. */
uint64_t rng_test_seed(uint64_t run_seed, uint64_t salt, unsigned test_index);

/* A fresh seed for a run when the user gave none (time and pid). */
uint64_t rng_fresh_seed(void);

/* 64 bits from the kernel's entropy source (getrandom): what the harness
 * mixes into the seed where student code, which can read the seed from
 * the command line, must not predict the outcome. */
uint64_t rng_secret(void);

#ifdef __cplusplus
}
#endif

#endif
