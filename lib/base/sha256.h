/* sha256.h - SHA-256 (FIPS 180-4), for content hashes, ETags and hashed
 * file names: a thin wrapper over OpenSSL's libcrypto (EVP), which libcurl
 * already loads, so that callers keep one small API and the hashing is
 * the library's (SHA-NI/AVX2 code, reviewed and tested by many).
 *
 * Streaming: sha256_init, sha256_update..., then sha256_final, which frees
 * what init took; a caller that gives up before final calls
 * sha256_release instead. libcrypto failing to hash (out of memory) is
 * treated as running out of memory is (xalloc.h): one line, exit 3.
 */
#ifndef CGISNAP_SHA256_H
#define CGISNAP_SHA256_H

#include <stddef.h>

struct evp_md_ctx_st;

struct sha256 {
	struct evp_md_ctx_st *ctx; /* libcrypto's EVP_MD_CTX; NULL after final/release */
};

void sha256_init(struct sha256 *c);
void sha256_update(struct sha256 *c, const void *data, size_t len);
void sha256_final(struct sha256 *c, unsigned char out[32]);
/* Free a hash not finished with sha256_final (harmless after it). */
void sha256_release(struct sha256 *c);
/* Whole buffer to 64 lowercase hex digits plus NUL. */
void sha256_hex(const void *data, size_t len, char out[65]);
/* The 32-byte digest as hex (out: 65 bytes). */
void sha256_to_hex(const unsigned char digest[32], char out[65]);

#endif
