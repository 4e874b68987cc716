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
#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Compiled by nvcc (or the emulator's compiler), a function of this header
 * is for the GPU too: the kit's hash kernel (grader/harness/device_hash.cu)
 * mixes words with rng_mix64, and its fill kernel (device_fill.cu) makes a
 * stream's words with rng_word, and both must give the host's bits exactly. */
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

/* A seed's stream is keyed by its mix, computed once per fill, not per word. */
static inline RNG_HOST_DEVICE uint64_t rng_key(uint64_t seed)
{
	return rng_mix64(seed);
}

/* Element i of the stream keyed by key: 64 random bits. */
static inline RNG_HOST_DEVICE uint64_t rng_bits(uint64_t key, uint64_t i)
{
	return rng_mix64(key ^ (i * 0xd1b54a32d192ed03ull));
}

/* What a stream's 32-bit words are: every lab's input is one or the other
 * (grader/labs/lab.h), generated on the host by rng_fill_words and on the
 * GPU by the kit's fill kernel, with the functions below. */
enum rng_kind {
	RNG_U32,	/* full-range 32-bit words */
	RNG_F32,	/* the bits of floats in [-1, 1) (rng_word_f32) */
};

/* Word i of the full-range stream. */
static inline RNG_HOST_DEVICE uint32_t rng_word_u32(uint64_t key, uint64_t i)
{
	return (uint32_t)(rng_bits(key, i) >> 32);
}

/* Float i: 24 random bits scaled into [-1, 1). Every step is exact (a
 * 24-bit integer, a power of two, then a difference that fits in 24 bits),
 * so no rounding mode or fused multiply-add can change a bit: never NaN,
 * infinity or subnormal, and a bitwise comparison of a data-movement kernel
 * is exact. */
static inline RNG_HOST_DEVICE float rng_word_f32(uint64_t key, uint64_t i)
{
	uint32_t bits = (uint32_t)(rng_bits(key, i) >> 40);
	return (float)bits * (2.0f / 16777216.0f) - 1.0f;
}

/* Word i of a stream of kind, as the 32 bits stored in an input. */
static inline RNG_HOST_DEVICE uint32_t rng_word(enum rng_kind kind, uint64_t key, uint64_t i)
{
	if (kind == RNG_U32)
		return rng_word_u32(key, i);
	float f = rng_word_f32(key, i);
	uint32_t w;
	memcpy(&w, &f, sizeof(w));	/* the float's bits, on the host and the device alike */
	return w;
}

/* The term of word w at position i in the kit's hash of an output
 * (bench_output_hash, common/bench_plan.h; the GPU's in
 * grader/harness/device_hash.cu): the hash is the wrapping sum of its
 * words' terms, so it is the same in any order and a changed word changes
 * only its own term. */
static inline RNG_HOST_DEVICE uint64_t rng_hash_term(uint64_t i, uint32_t w)
{
	return rng_mix64((i << 32) ^ w);
}

/* Element i of the stream for seed. */
uint64_t rng_at(uint64_t seed, uint64_t i);

/* dst[k] = word first + k of the seed's stream of kind, for k < count: any
 * range of a stream, the same words wherever it starts. */
void rng_fill_words(uint32_t *dst, size_t first, size_t count, enum rng_kind kind, uint64_t seed);

/* Full-range 32-bit words: dst[i] = word i of the RNG_U32 stream. */
void rng_fill_u32(uint32_t *dst, size_t n, uint64_t seed);

/* Floats in [-1, 1) (rng_word_f32), as floats: the RNG_F32 stream's words. */
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
