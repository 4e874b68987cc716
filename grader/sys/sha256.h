/*
 * SHA-256 (FIPS 180-4), for the batch's resume check: a student whose file,
 * rubric, lab and salt hash to what the last run recorded is not graded
 * again. Public domain, after Brad Conte's crypto-algorithms; tested
 * against the FIPS 180-2 examples in tests/test_batch_sha256.c.
 */
#ifndef GRADER_SHA256_H
#define GRADER_SHA256_H

#include <stddef.h>
#include <stdint.h>

#define SHA256_BYTES 32

struct sha256 {
	uint8_t block[64];
	uint32_t fill;		/* bytes in block */
	uint64_t bits;		/* message length so far */
	uint32_t state[8];
};

void sha256_init(struct sha256 *c);
void sha256_update(struct sha256 *c, const void *data, size_t len);
void sha256_final(struct sha256 *c, uint8_t out[SHA256_BYTES]);

/* The digest as 64 lower-case hex digits and a NUL. */
void sha256_hex(const uint8_t digest[SHA256_BYTES], char out[2 * SHA256_BYTES + 1]);

#endif
