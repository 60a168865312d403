/* fuzz_url.c - URL normalisation and resolution (lib/url/url.h).
 *
 * The input is a URL or a reference as a page could write it. Invariants:
 * a normalised URL is printable ASCII without '#', its escapes upper-case
 * and never of an unreserved character, no dot segments, no empty query;
 * normalising it again changes nothing; it is its origin followed by its
 * target; resolving "" or its target against it gives it back, and it
 * resolves to itself against any base; a site made from it maps
 * it to that target and back; canonical targets are fixed points, with
 * and without a query policy.
 */
#include "fuzz.h"

#include "url/url.h"

static const char *const bases[] = {
	"http://wiki.example.com/doku.php?id=wiki:syntax&do=edit",
	"https://blog.example.org:8443/2024/05/hello-world/",
	"http://[::1]:8080/a/b/c/d;p?q",
	"http://example.com",
};

static bool is_hex_upper(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'A' && c <= 'F');
}

static bool is_unreserved(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '-' || c == '.' || c == '_' || c == '~';
}

/* The escapes of s are upper-case %XX of bytes that are not unreserved,
 * and nothing else in it is outside printable ASCII or a '#'. */
static void check_escapes(const char *s, const char *what)
{
	for (const char *p = s; *p; p++) {
		unsigned char c = (unsigned char)*p;
		FUZZ_CHECK(c > 0x20 && c < 0x7f && c != '#', "%s '%s' holds byte 0x%02x", what, s, c);
		if (c != '%')
			continue;
		FUZZ_CHECK(is_hex_upper(p[1]) && is_hex_upper(p[2]), "%s '%s' has a bad escape", what, s);
		int v = (p[1] <= '9' ? p[1] - '0' : p[1] - 'A' + 10) * 16 +
			(p[2] <= '9' ? p[2] - '0' : p[2] - 'A' + 10);
		FUZZ_CHECK(!is_unreserved(v), "%s '%s' escapes an unreserved character", what, s);
		p += 2;
	}
}

/* A target "/path?query": no "." or ".." segment in the path, no empty query. */
static void check_target_shape(const char *t, const char *what)
{
	FUZZ_CHECK(t[0] == '/', "%s '%s' does not start with '/'", what, t);
	size_t plen = strcspn(t, "?");
	for (const char *seg = t + 1;;) {
		size_t n = strcspn(seg, "/?");
		FUZZ_CHECK(!(n == 1 && seg[0] == '.') && !(n == 2 && seg[0] == '.' && seg[1] == '.'),
			   "%s '%s' keeps a dot segment", what, t);
		if (seg[n] != '/')
			break;
		seg += n + 1;
	}
	FUZZ_CHECK(!(t[plen] == '?' && !t[plen + 1]), "%s '%s' keeps an empty query", what, t);
	check_escapes(t, what);
}

/* The canonical target c of site s is its own canonical form. */
static void check_canonical(const struct site *s, const char *c, const char *from)
{
	check_target_shape(c, "canonical target");
	char *again = site_canonical_target(s, c);
	FUZZ_CHECK(fuzz_streq(again, c), "canonical target of '%s' is '%s', then '%s'", from, c,
		   fuzz_show(again));
	free(again);
}

/* Every invariant of a normalised URL n (made from the input 'from'). */
static void check_normalized(const char *n, const char *from, const struct site *policy)
{
	FUZZ_CHECK(!strncmp(n, "http://", 7) || !strncmp(n, "https://", 8),
		   "'%s' normalised to '%s', not http(s)", from, n);
	check_escapes(n + (n[4] == 's' ? 8 : 7), "normalised URL");

	char *again = url_normalize(n);
	FUZZ_CHECK(fuzz_streq(again, n), "normalising '%s' gave '%s', then '%s'", from, n,
		   fuzz_show(again));
	free(again);

	char *origin = url_origin(n), *target = url_target(n);
	FUZZ_CHECK(origin && target, "'%s' has no origin or target", n);
	size_t olen = strlen(origin);
	FUZZ_CHECK(!strncmp(n, origin, olen) && !strcmp(n + olen, target),
		   "'%s' is not origin '%s' + target '%s'", n, origin, target);
	check_target_shape(target, "target");

	/* RFC 3986 5.2.2: an empty reference is the base itself. */
	char *same = url_resolve(n, "");
	FUZZ_CHECK(fuzz_streq(same, n), "'' against '%s' resolved to '%s'", n, fuzz_show(same));
	free(same);

	/* An absolute URL ignores its base; an absolute path keeps its origin. */
	char *abs = url_resolve(bases[1], n);
	FUZZ_CHECK(fuzz_streq(abs, n), "'%s' against '%s' resolved to '%s'", n, bases[1],
		   fuzz_show(abs));
	free(abs);
	if (target[1] != '/') { /* "//x" would be a network-path reference */
		char *path = url_resolve(n, target);
		FUZZ_CHECK(fuzz_streq(path, n), "'%s' against '%s' resolved to '%s'", target, n,
			   fuzz_show(path));
		free(path);
	}

	struct site own;
	char err[512];
	FUZZ_CHECK(site_init(&own, n, err) == 0, "'%s' is no site URL: %s", n, err);
	FUZZ_CHECK(fuzz_streq(own.origin, origin), "site '%s' has origin '%s', not '%s'", n,
		   fuzz_show(own.origin), origin);
	char *st = site_target(&own, n);
	FUZZ_CHECK(fuzz_streq(st, target), "site target of '%s' is '%s', not '%s'", n,
		   fuzz_show(st), target);
	check_canonical(&own, target, n);
	char *back = site_url_for(&own, target);
	FUZZ_CHECK(fuzz_streq(back, n), "site URL for '%s' is '%s', not '%s'", target, back, n);
	free(back);
	free(st);

	/* The same URL as the policy site's (an alias of its origin). */
	struct site ps = *policy;
	ps.origin = origin;
	char *pt = site_target(&ps, n);
	FUZZ_CHECK(pt != NULL, "'%s' is not a target of its own origin", n);
	check_canonical(&ps, pt, n);
	char *purl = site_url_for(&ps, pt);
	char *pt2 = site_target(&ps, purl);
	FUZZ_CHECK(fuzz_streq(pt2, pt), "'%s' maps to '%s', whose URL '%s' maps to '%s'", n, pt,
		   purl, fuzz_show(pt2));
	free(pt2);
	free(purl);
	free(pt);

	site_release(&own);
	free(origin);
	free(target);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct site policy;
	if (!policy.ignore_params.n) {
		strlist_add(&policy.ignore_params, "utm_*");
		strlist_add(&policy.ignore_params, "fbclid");
		policy.sort_query = true;
	}
	struct site plain = { 0 };
	char *s = fuzz_str(data, size);

	char *n = url_normalize(s);
	if (n)
		check_normalized(n, s, &policy);
	free(n);

	for (size_t i = 0; i < sizeof bases / sizeof bases[0]; i++) {
		char *r = url_resolve(bases[i], s);
		if (r)
			check_normalized(r, s, &policy);
		free(r);
	}
	/* The input as the base of a page's relative links. */
	char *r = url_resolve(s, "../x/./y?z#f");
	if (r)
		check_normalized(r, s, &policy);
	free(r);

	if (s[0] == '/') {
		char *c = site_canonical_target(&plain, s);
		FUZZ_CHECK(c != NULL, "'%s' has no canonical target", s);
		check_canonical(&plain, c, s);
		free(c);
		c = site_canonical_target(&policy, s);
		FUZZ_CHECK(c != NULL, "'%s' has no canonical target with a policy", s);
		check_canonical(&policy, c, s);
		free(c);
	}

	struct buf d = BUF_INIT;
	url_decode(&d, s, strlen(s));
	FUZZ_CHECK(d.len <= strlen(s), "decoding '%s' made it longer", s);
	buf_release(&d);
	free(s);
	return 0;
}
