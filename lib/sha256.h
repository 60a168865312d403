/* sha256.h - SHA-256 (FIPS 180-4), for content hashes, ETags and hashed
 * file names. Small enough to own; no crypto library needed for this. */
#ifndef CGISNAP_SHA256_H
#define CGISNAP_SHA256_H

#include <stddef.h>
#include <stdint.h>

struct sha256 {
	uint32_t h[8];
	uint64_t len;       /* bytes hashed so far */
	unsigned char block[64];
	size_t used;        /* bytes waiting in block */
};

void sha256_init(struct sha256 *c);
void sha256_update(struct sha256 *c, const void *data, size_t len);
void sha256_final(struct sha256 *c, unsigned char out[32]);
/* Whole buffer to 64 lowercase hex digits plus NUL. */
void sha256_hex(const void *data, size_t len, char out[65]);
/* The 32-byte digest as hex (out: 65 bytes). */
void sha256_to_hex(const unsigned char digest[32], char out[65]);

#endif
