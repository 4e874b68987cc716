/* SHA-256 (see sha256.h). Public domain. */
#include "sys/sha256.h"

#include <stdio.h>
#include <string.h>

static const uint32_t k[64] = {
	0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
	0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
	0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
	0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
	0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
	0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
	0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
	0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

static uint32_t ror(uint32_t x, int n)
{
	return (x >> n) | (x << (32 - n));
}

/* One 64-byte block into the state. */
static void transform(struct sha256 *c, const uint8_t *p)
{
	uint32_t w[64], s[8];
	for (int i = 0; i < 16; i++)
		w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 |
		       (uint32_t)p[4 * i + 2] << 8 | p[4 * i + 3];
	for (int i = 16; i < 64; i++) {
		uint32_t s0 = ror(w[i - 15], 7) ^ ror(w[i - 15], 18) ^ (w[i - 15] >> 3);
		uint32_t s1 = ror(w[i - 2], 17) ^ ror(w[i - 2], 19) ^ (w[i - 2] >> 10);
		w[i] = w[i - 16] + s0 + w[i - 7] + s1;
	}
	memcpy(s, c->state, sizeof(s));
	for (int i = 0; i < 64; i++) {
		uint32_t e = s[4], a = s[0];
		uint32_t t1 = s[7] + (ror(e, 6) ^ ror(e, 11) ^ ror(e, 25)) + ((e & s[5]) ^ (~e & s[6])) +
			      k[i] + w[i];
		uint32_t t2 = (ror(a, 2) ^ ror(a, 13) ^ ror(a, 22)) + ((a & s[1]) ^ (a & s[2]) ^ (s[1] & s[2]));
		memmove(s + 1, s, 7 * sizeof(uint32_t));
		s[4] += t1;
		s[0] = t1 + t2;
	}
	for (int i = 0; i < 8; i++)
		c->state[i] += s[i];
}

void sha256_init(struct sha256 *c)
{
	static const uint32_t h0[8] = {
		0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
		0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
	};
	memset(c, 0, sizeof(*c));
	memcpy(c->state, h0, sizeof(h0));
}

void sha256_update(struct sha256 *c, const void *data, size_t len)
{
	const uint8_t *p = data;
	c->bits += (uint64_t)len * 8;
	while (len > 0) {
		size_t take = 64 - c->fill < len ? 64 - c->fill : len;
		memcpy(c->block + c->fill, p, take);
		c->fill += (uint32_t)take;
		p += take;
		len -= take;
		if (c->fill == 64) {
			transform(c, c->block);
			c->fill = 0;
		}
	}
}

/* Padding: a 1 bit, zeros up to 56 bytes of the last block, the length in bits. */
void sha256_final(struct sha256 *c, uint8_t out[SHA256_BYTES])
{
	uint64_t bits = c->bits;
	uint8_t pad = 0x80, zero = 0, len[8];
	sha256_update(c, &pad, 1);
	while (c->fill != 56)
		sha256_update(c, &zero, 1);
	for (int i = 0; i < 8; i++)
		len[i] = (uint8_t)(bits >> (56 - 8 * i));
	sha256_update(c, len, 8);
	for (int i = 0; i < 8; i++) {
		out[4 * i] = (uint8_t)(c->state[i] >> 24);
		out[4 * i + 1] = (uint8_t)(c->state[i] >> 16);
		out[4 * i + 2] = (uint8_t)(c->state[i] >> 8);
		out[4 * i + 3] = (uint8_t)c->state[i];
	}
}

void sha256_hex(const uint8_t digest[SHA256_BYTES], char out[2 * SHA256_BYTES + 1])
{
	for (int i = 0; i < SHA256_BYTES; i++)
		snprintf(out + 2 * i, 3, "%02x", digest[i]);
}
