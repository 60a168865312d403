/* fuzz_reqpath.c - the request-path check of serve (lib/url/reqpath.h).
 *
 * The input is a request target as it arrives (origin or absolute form).
 * Invariants: the answer is 0, 400 or 404; an accepted target's path is
 * raw printable ASCII (or 8-bit bytes) without '\' or '#', its decoded
 * segments are neither "." nor "..", start with no '.', hold no control
 * byte or '\' (an encoded '/' is a byte of its segment) and no overlong
 * UTF-8 or surrogate; and what it lets
 * through stays the same shape for the later steps: its canonical target
 * has as many segments, and urlkey_for refuses it for no reason
 * reqpath_check should have seen first. A hidden (404) path, a dotfile
 * name, has a key only with that dot escaped: some key segment starts
 * with "%2E", none with '.' (unless a ".." segment after it removed it,
 * "/.x/../y": refused all the same).
 */
#include "fuzz.h"

#include "url/reqpath.h"
#include "url/url.h"
#include "url/urlkey.h"

static int hex(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c |= 0x20;
	return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* Number of '/' in the path part of target t. */
static size_t slashes(const char *t)
{
	size_t n = 0;
	for (; *t && *t != '?'; t++)
		n += *t == '/';
	return n;
}

static void check_accepted(const char *raw, const char *of)
{
	FUZZ_CHECK(of[0] == '/', "'%s' accepted with target '%s'", raw, of);
	size_t rlen = strlen(raw), olen = strlen(of);
	FUZZ_CHECK(!strcmp(of, "/") || (olen <= rlen && !strcmp(raw + rlen - olen, of)),
		   "target '%s' is not a part of '%s'", of, raw);
	for (const char *seg = of + 1;;) {
		size_t n = strcspn(seg, "/?"), decoded = 0, dots = 0;
		unsigned char first = 0, prev = 0;
		for (size_t i = 0; i < n; i++) {
			unsigned char c = (unsigned char)seg[i];
			FUZZ_CHECK(c > 0x20 && c != 0x7f && c != '\\' && c != '#',
				   "'%s' accepted with raw byte 0x%02x", raw, c);
			if (c == '%') {
				FUZZ_CHECK(i + 2 < n, "'%s' accepted, '%%' at the end", raw);
				int hi = hex(seg[i + 1]), lo = hex(seg[i + 2]);
				FUZZ_CHECK(hi >= 0 && lo >= 0, "'%s' accepted with a bad escape", raw);
				c = (unsigned char)(hi * 16 + lo);
				i += 2;
			}
			FUZZ_CHECK(c >= 0x20 && c != 0x7f && c != '\\',
				   "'%s' accepted, decoding to byte 0x%02x", raw, c);
			FUZZ_CHECK(c != 0xc0 && c != 0xc1 && c < 0xf5, "'%s' accepted, overlong byte 0x%02x",
				   raw, c);
			FUZZ_CHECK(!(prev == 0xe0 && c >= 0x80 && c <= 0x9f) &&
					   !(prev == 0xf0 && c >= 0x80 && c <= 0x8f) &&
					   !(prev == 0xed && c >= 0xa0 && c <= 0xbf),
				   "'%s' accepted, overlong or surrogate 0x%02x 0x%02x", raw, prev, c);
			prev = c;
			if (!decoded)
				first = c;
			dots += c == '.';
			decoded++;
		}
		FUZZ_CHECK(!(decoded && decoded <= 2 && dots == decoded), "'%s' accepted, a dot segment",
			   raw);
		FUZZ_CHECK(first != '.', "'%s' accepted, a hidden segment", raw);
		if (seg[n] != '/')
			break;
		seg += n + 1;
	}
	const char *q = strchr(of, '?');
	for (const char *p = q ? q + 1 : ""; *p; p++)
		FUZZ_CHECK((unsigned char)*p > 0x20 && *p != 0x7f, "'%s' accepted, query byte 0x%02x", raw,
			   (unsigned char)*p);

	struct site plain = { 0 };
	char *c = site_canonical_target(&plain, of);
	FUZZ_CHECK(c != NULL, "'%s' accepted without a canonical target", raw);
	FUZZ_CHECK(slashes(c) == slashes(of), "'%s' accepted, canonical '%s' has other segments", raw,
		   c);
	char err[512] = "";
	char *key = urlkey_for(c, "text/html", err);
	if (key)
		FUZZ_CHECK(urlkey_is_safe(key), "'%s' accepted, key '%s' unsafe", raw, key);
	else
		FUZZ_CHECK(strstr(err, "empty path segment") || strstr(err, "too long"),
			   "'%s' accepted, but its target '%s' %s", raw, c, err);
	free(key);
	free(c);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *raw = fuzz_str(data, size);
	const char *of = NULL;
	int rc = reqpath_check(raw, &of);
	FUZZ_CHECK(rc == 0 || rc == 400 || rc == 404, "'%s' answered %d", raw, rc);
	if (rc == 0)
		check_accepted(raw, of);
	if (rc == 404 && raw[0] == '/') {
		struct site plain = { 0 };
		char *c = site_canonical_target(&plain, raw);
		/* Unless a ".." took the hidden segment away. */
		if (c && slashes(c) == slashes(raw)) {
			char *key = urlkey_for(c, "text/html", NULL);
			if (key) {
				FUZZ_CHECK(urlkey_is_safe(key), "hidden '%s' has the unsafe key '%s'", raw, key);
				FUZZ_CHECK(!strncmp(key, "%2E", 3) || strstr(key, "/%2E"),
					   "hidden '%s' has the key '%s', without an escaped dot", raw, key);
			}
			free(key);
		}
		free(c);
	}
	free(raw);
	return 0;
}
