/* sha256.c - SHA-256 through libcrypto's EVP interface (see sha256.h). */
#include "base/sha256.h"

#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

#include <openssl/evp.h>

/* OpenSSL 3 looks an algorithm up by name at every EVP_DigestInit_ex
 * given EVP_sha256(); fetched once, the many small hashes of file keys
 * skip that. Never freed: it lives as long as the process. */
static EVP_MD *md;
static pthread_once_t md_once = PTHREAD_ONCE_INIT;

static void fetch_md(void)
{
	md = EVP_MD_fetch(NULL, "SHA256", NULL);
}

/* As xalloc's: nothing sensible can continue without the hash. */
static void die(const char *what)
{
	fprintf(stderr, "cgisnap: fatal: SHA-256 %s failed (libcrypto)\n", what);
	_exit(3);
}

void sha256_init(struct sha256 *c)
{
	pthread_once(&md_once, fetch_md);
	c->ctx = EVP_MD_CTX_new();
	if (!md || !c->ctx || !EVP_DigestInit_ex(c->ctx, md, NULL))
		die("init");
}

void sha256_update(struct sha256 *c, const void *data, size_t len)
{
	if (len && !EVP_DigestUpdate(c->ctx, data, len))
		die("update");
}

void sha256_final(struct sha256 *c, unsigned char out[32])
{
	unsigned int n = 0;
	if (!EVP_DigestFinal_ex(c->ctx, out, &n) || n != 32)
		die("final");
	sha256_release(c);
}

void sha256_release(struct sha256 *c)
{
	EVP_MD_CTX_free(c->ctx);
	c->ctx = NULL;
}

void sha256_hex(const void *data, size_t len, char out[65])
{
	unsigned char digest[32];
	unsigned int n = 0;
	pthread_once(&md_once, fetch_md);
	if (!md || !EVP_Digest(data, len, digest, &n, md, NULL) || n != 32)
		die("digest");
	sha256_to_hex(digest, out);
}

void sha256_to_hex(const unsigned char digest[32], char out[65])
{
	static const char hex[] = "0123456789abcdef";
	for (int i = 0; i < 32; i++) {
		out[2 * i] = hex[digest[i] >> 4];
		out[2 * i + 1] = hex[digest[i] & 15];
	}
	out[64] = '\0';
}
