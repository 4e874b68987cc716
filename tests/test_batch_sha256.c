/* SHA-256 against the examples of FIPS 180-2 (appendix B) and edge lengths. */
#include <criterion/criterion.h>
#include <string.h>

#include "sys/sha256.h"

static void digest_of(const void *data, size_t len, char hex[65])
{
	struct sha256 c;
	uint8_t d[SHA256_BYTES];
	sha256_init(&c);
	sha256_update(&c, data, len);
	sha256_final(&c, d);
	sha256_hex(d, hex);
}

Test(sha256, fips_one_block)
{
	char hex[65];
	digest_of("abc", 3, hex);
	cr_assert_str_eq(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

Test(sha256, fips_two_blocks)
{
	const char *m = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
	char hex[65];
	digest_of(m, strlen(m), hex);
	cr_assert_str_eq(hex, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
}

Test(sha256, fips_million_a_in_pieces)
{
	struct sha256 c;
	uint8_t d[SHA256_BYTES];
	char hex[65], a[997];
	memset(a, 'a', sizeof(a));
	sha256_init(&c);
	/* Odd-sized pieces cross block boundaries at every offset. */
	size_t left = 1000000;
	while (left) {
		size_t n = left < sizeof(a) ? left : sizeof(a);
		sha256_update(&c, a, n);
		left -= n;
	}
	sha256_final(&c, d);
	sha256_hex(d, hex);
	cr_assert_str_eq(hex, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

Test(sha256, empty)
{
	char hex[65];
	digest_of("", 0, hex);
	cr_assert_str_eq(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
}

/* 55, 56 and 64 bytes: the lengths where padding needs one more block or not. */
Test(sha256, padding_edges)
{
	char m[64], hex[65];
	memset(m, 'a', sizeof(m));
	digest_of(m, 55, hex);
	cr_expect_str_eq(hex, "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318");
	digest_of(m, 56, hex);
	cr_expect_str_eq(hex, "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a");
	digest_of(m, 64, hex);
	cr_expect_str_eq(hex, "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb");
}

Test(sha256, one_byte_at_a_time_is_the_same)
{
	const char *m = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
	struct sha256 c;
	uint8_t d[SHA256_BYTES];
	char hex[65];
	sha256_init(&c);
	for (size_t i = 0; i < strlen(m); i++)
		sha256_update(&c, m + i, 1);
	sha256_final(&c, d);
	sha256_hex(d, hex);
	cr_assert_str_eq(hex, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
}
