/* fuzz_robots.c - robots.txt (robots_parse, robots_allowed in lib/crawl/robots.h).
 *
 * The input is a robots.txt. Invariants: every rule is written as
 * canonical targets are (printable ASCII, upper-case %XX escapes);
 * "/robots.txt" is always allowed; without Disallow rules everything is;
 * a plain Disallow pattern (no '*' or '$') denies itself unless an Allow
 * rule at least as long matches it; robots_allowed agrees with matching
 * written the slow and obvious way; sitemap lines are kept trimmed and
 * never empty, and the first lines of a file give its first sitemaps.
 */
#include "fuzz.h"

#include "crawl/robots.h"

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

/* RFC 9309 matching written the slow and obvious way, to compare with:
 * does pat match the start of t ('*' any run, a final '$' the end)?
 * Dynamic programming over pattern prefixes; -1 when too big to try. */
static int slow_match(const char *pat, const char *t)
{
	size_t pl = strlen(pat), tl = strlen(t);
	bool anchored = pl && pat[pl - 1] == '$';
	if (anchored)
		pl--;
	if ((pl + 1) * (tl + 1) > 200000)
		return -1;
	bool *cur = calloc(tl + 1, 1), *next = calloc(tl + 1, 1);
	if (!cur || !next)
		abort();
	cur[0] = true; /* the empty pattern matches the empty prefix */
	for (size_t i = 0; i < pl; i++) {
		bool any = false;
		for (size_t j = 0; j <= tl; j++) {
			if (pat[i] == '*') {
				any = any || cur[j];
				next[j] = any;
			} else {
				next[j] = j > 0 && cur[j - 1] && t[j - 1] == pat[i];
			}
		}
		bool *swap = cur;
		cur = next;
		next = swap;
	}
	bool hit = false;
	for (size_t j = 0; j <= tl && !hit; j++)
		hit = cur[j] && (!anchored || j == tl);
	free(cur);
	free(next);
	return hit;
}

/* robots_allowed by slow_match: the longest matching rule, Allow on a
 * tie; -1 when a pattern was too big to try. */
static int slow_allowed(const struct robots *r, const char *t)
{
	long best[2] = { -1, -1 };
	const struct strlist *lists[2] = { &r->disallow, &r->allow };
	if (!strcmp(t, "/robots.txt"))
		return 1;
	for (int k = 0; k < 2; k++) {
		for (size_t i = 0; i < lists[k]->n; i++) {
			int m = slow_match(lists[k]->items[i], t);
			if (m < 0)
				return -1;
			long n = (long)strlen(lists[k]->items[i]);
			if (m && n > best[k])
				best[k] = n;
		}
	}
	return best[0] < 0 || best[1] >= best[0];
}

/* robots_allowed(t) agrees with slow_allowed(t). */
static void compare(const struct robots *r, const char *t)
{
	int want = slow_allowed(r, t);
	if (want >= 0)
		FUZZ_CHECK(robots_allowed(r, t) == want, "'%s' %s, but by the rules it is %s", t,
			   want ? "denied" : "allowed", want ? "allowed" : "denied");
}

/* Targets to try: each rule with its '*' as nothing, as "x/" and its '$'
 * dropped, plus a few fixed ones. */
static void compare_targets(const struct robots *r)
{
	static const char *const fixed[] = { "/", "/robots.txt", "/doku.php?id=start&do=edit",
					     "/wp-admin/admin-ajax.php" };
	for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++)
		compare(r, fixed[i]);
	const struct strlist *lists[2] = { &r->disallow, &r->allow };
	for (int k = 0; k < 2; k++) {
		for (size_t i = 0; i < lists[k]->n && i < 32; i++) {
			const char *p = lists[k]->items[i];
			for (int fill = 0; fill < 2; fill++) {
				struct buf t = BUF_INIT;
				for (const char *c = p; *c; c++) {
					if (*c == '*')
						buf_adds(&t, fill ? "x/" : "");
					else if (!(*c == '$' && !c[1]))
						buf_addc(&t, *c);
				}
				compare(r, buf_str(&t));
				buf_release(&t);
			}
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

	compare_targets(&r);

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
