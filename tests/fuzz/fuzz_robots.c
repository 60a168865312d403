/* fuzz_robots.c - robots.txt (robots_parse, robots_allowed in lib/links.h).
 *
 * The input is a robots.txt. Invariants: every rule is written as
 * canonical targets are (printable ASCII, upper-case %XX escapes);
 * "/robots.txt" is always allowed; without Disallow rules everything is;
 * a plain Disallow pattern (no '*' or '$') denies itself unless an Allow
 * rule at least as long matches it; sitemap lines are kept trimmed and
 * never empty, and the first lines of a file give its first sitemaps.
 */
#include "fuzz.h"

#include "links.h"

static bool is_hex_upper(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'A' && c <= 'F');
}

static void check_rules(const struct strlist *l, const char *what)
{
	for (size_t i = 0; i < l->n; i++) {
		const char *p = l->items[i];
		FUZZ_CHECK(*p, "an empty %s rule", what);
		for (const char *s = p; *s; s++) {
			unsigned char c = (unsigned char)*s;
			FUZZ_CHECK(c > 0x20 && c < 0x7f, "%s rule '%s' holds byte 0x%02x", what, p, c);
			if (c == '%')
				FUZZ_CHECK(is_hex_upper(s[1]) && is_hex_upper(s[2]),
					   "%s rule '%s' has a bad escape", what, p);
		}
	}
}

static bool longest_allow_at_least(const struct robots *r, size_t len)
{
	for (size_t i = 0; i < r->allow.n; i++)
		if (strlen(r->allow.items[i]) >= len)
			return true;
	return false;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct robots r, half;
	robots_parse(&r, (const char *)data, size);
	check_rules(&r.disallow, "Disallow");
	check_rules(&r.allow, "Allow");
	for (size_t i = 0; i < r.sitemaps.n; i++) {
		const char *s = r.sitemaps.items[i];
		size_t n = strlen(s);
		FUZZ_CHECK(n && s[0] != ' ' && s[0] != '\t' && s[n - 1] != ' ' && s[n - 1] != '\t' &&
				   !strpbrk(s, "\r\n#"),
			   "sitemap '%s' not trimmed", s);
	}
	FUZZ_CHECK(robots_allowed(&r, "/robots.txt"), "/robots.txt denied");
	if (!r.disallow.n)
		FUZZ_CHECK(robots_allowed(&r, "/") && robots_allowed(&r, "/doku.php?id=start"),
			   "denied without a Disallow rule");
	for (size_t i = 0; i < r.disallow.n; i++) {
		const char *p = r.disallow.items[i];
		size_t n = strlen(p);
		if (strpbrk(p, "*$") || !strcmp(p, "/robots.txt"))
			continue;
		if (!longest_allow_at_least(&r, n))
			FUZZ_CHECK(!robots_allowed(&r, p), "'%s' allowed by its own Disallow rule", p);
		/* Whatever follows a denied prefix, a longer Allow may save it. */
		char *longer = malloc(n + 3);
		if (!longer)
			abort();
		memcpy(longer, p, n);
		memcpy(longer + n, "/x", 3);
		if (!longest_allow_at_least(&r, n))
			FUZZ_CHECK(!robots_allowed(&r, longer), "'%s' allowed under Disallow '%s'", longer,
				   p);
		free(longer);
	}

	/* Sitemap lines belong to no group: those of the file's first lines
	 * are the first of all its sitemaps. */
	size_t cut = size / 2;
	while (cut && data[cut - 1] != '\n')
		cut--;
	robots_parse(&half, (const char *)data, cut);
	FUZZ_CHECK(half.sitemaps.n <= r.sitemaps.n, "the first %zu bytes have more sitemaps", cut);
	for (size_t i = 0; i < half.sitemaps.n; i++)
		FUZZ_CHECK(!strcmp(half.sitemaps.items[i], r.sitemaps.items[i]),
			   "sitemap %zu is '%s' in the first %zu bytes, '%s' in all", i,
			   half.sitemaps.items[i], cut, r.sitemaps.items[i]);
	robots_release(&half);
	robots_release(&r);
	return 0;
}
