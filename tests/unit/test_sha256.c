/* test_sha256.c - SHA-256 against the FIPS 180-4 / NIST example vectors. */

#include "base/sha256.h"
#include "unit.h"

TEST(sha256_standard_vectors)
{
	static const struct {
		const char *msg;
		const char *hex;
	} cases[] = {
		{ "", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855" },
		{ "abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad" },
		/* The 448-bit message: padding needs a second block. */
		{ "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
		  "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1" },
		/* 896 bits (FIPS 180-2 SHA-512 example message, also a NIST SHA-256 vector). */
		{ "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu",
		  "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1" },
		{ "The quick brown fox jumps over the lazy dog",
		  "d7a8fbb307d7809469ca9abcb0082e4f8d5651e46d3cdb762d02d0bf37c9e592" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char hex[65];
		sha256_hex(cases[i].msg, strlen(cases[i].msg), hex);
		CHECK_STR(cases[i].hex, hex);
	}
}

TEST(sha256_million_a_in_odd_chunks)
{
	/* One million 'a' fed in chunks of 1, 2, 3 ... 127 bytes, so every
	 * offset inside a block is crossed. */
	char chunk[127];
	memset(chunk, 'a', sizeof(chunk));
	struct sha256 c;
	sha256_init(&c);
	size_t left = 1000000, n = 1;
	while (left) {
		size_t take = n < left ? n : left;
		sha256_update(&c, chunk, take);
		left -= take;
		n = n % sizeof(chunk) + 1;
	}
	unsigned char digest[32];
	char hex[65];
	sha256_final(&c, digest);
	sha256_to_hex(digest, hex);
	CHECK_STR("cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0", hex);
}

TEST(sha256_padding_boundaries)
{
	/* 55 bytes fit one block with the padding, 56 need a second one. */
	static const struct {
		size_t n;
		const char *hex;
	} cases[] = {
		{ 55, "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318" },
		{ 56, "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a" },
		{ 63, "7d3e74a05d7db15bce4ad9ec0658ea98e3f06eeecf16b4c6fff2da457ddc2f34" },
		{ 64, "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb" },
		{ 65, "635361c48bb9eab14198e76ea8ab7f1a41685d6ad62aa9146d301d4f17eb0ae0" },
	};
	char a[65];
	memset(a, 'a', sizeof(a));
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char hex[65];
		sha256_hex(a, cases[i].n, hex);
		CHECK_STR(cases[i].hex, hex);
	}
}

TEST(sha256_chunking_does_not_matter)
{
	/* Every length 0..200 hashed whole and split at every point: messages
	 * around the 55/56/64-byte padding boundaries included. */
	unsigned char msg[200];
	for (size_t i = 0; i < sizeof(msg); i++)
		msg[i] = (unsigned char)(i * 7 + 3);
	for (size_t len = 0; len <= sizeof(msg); len++) {
		char whole[65];
		sha256_hex(msg, len, whole);
		for (size_t cut = 0; cut <= len; cut += 13) {
			struct sha256 c;
			unsigned char digest[32];
			char hex[65];
			sha256_init(&c);
			sha256_update(&c, msg, cut);
			sha256_update(&c, msg + cut, len - cut);
			sha256_final(&c, digest);
			sha256_to_hex(digest, hex);
			CHECK_STR(whole, hex);
		}
	}
}

/* A hash given up before its end is released (no leak under ASan), and
 * release after final is harmless. */
TEST(sha256_release_without_final)
{
	struct sha256 c;
	sha256_init(&c);
	sha256_update(&c, "abc", 3);
	sha256_release(&c);
	CHECK(c.ctx == NULL);
	sha256_release(&c);
	unsigned char digest[32];
	char hex[65];
	sha256_init(&c);
	sha256_update(&c, "", 0);
	sha256_update(&c, "abc", 3);
	sha256_final(&c, digest);
	sha256_release(&c);
	sha256_to_hex(digest, hex);
	CHECK_STR("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad", hex);
}
