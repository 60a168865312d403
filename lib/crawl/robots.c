/* robots.c - reading robots.txt and matching targets against it (robots.h).
 *
 * As Google reads it (RFC 9309): groups of User-agent lines followed by
 * rules; the groups naming "cgisnap" are merged and used, else those naming
 * "*"; patterns match from the start of "/path?query", '*' matches any run
 * of characters and a final '$' anchors at the end; the longest matching
 * pattern decides and Allow wins a tie. Sitemap lines belong to no group.
 */
#include "crawl/robots.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"

#define ROBOTS_AGENT "cgisnap"
/* Google reads the first 500 KiB and ignores the rest */
#define ROBOTS_MAX_BYTES (500 * 1024)

static bool blank(char c)
{
	return c == ' ' || c == '\t';
}

static bool hexval(char c, int *v)
{
	if (c >= '0' && c <= '9')
		*v = c - '0';
	else if (c >= 'a' && c <= 'f')
		*v = c - 'a' + 10;
	else if (c >= 'A' && c <= 'F')
		*v = c - 'A' + 10;
	else
		return false;
	return true;
}

/* The pattern p[0..n) written the way canonical targets are (url.h): %XX
 * with upper-case hex, unreserved characters decoded, raw bytes that may
 * not appear in a URL percent-encoded. The caller frees it. */
static char *normalize_pattern(const char *p, size_t n)
{
	struct buf b = BUF_INIT;
	buf_grow(&b, n);
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)p[i];
		int hi, lo;
		if (c == '%' && i + 2 < n && hexval(p[i + 1], &hi) && hexval(p[i + 2], &lo)) {
			int v = hi * 16 + lo;
			if (isalnum(v) || v == '-' || v == '.' || v == '_' || v == '~')
				buf_addc(&b, (char)v);
			else
				buf_addf(&b, "%%%02X", v);
			i += 2;
		} else if (c <= 0x20 || c >= 0x7F || c == '"' || c == '<' || c == '>' || c == '\\' ||
			   c == '^' || c == '`' || c == '{' || c == '|' || c == '}' || c == '%') {
			buf_addf(&b, "%%%02X", c);
		} else {
			buf_addc(&b, (char)c);
		}
	}
	return buf_detach(&b, NULL);
}

/* Does pattern match the start of target (all of it with a final '$')? */
static bool pattern_matches(const char *pat, const char *target)
{
	size_t plen = strlen(pat);
	bool anchored = plen && pat[plen - 1] == '$';
	if (anchored)
		plen--;
	/* Glob matching with one backtrack point: the last '*' seen. An
	 * unanchored pattern behaves as if it ended in '*'. */
	size_t p = 0, t = 0, star_p = (size_t)-1, star_t = 0;
	for (;;) {
		if (p == plen && (!anchored || !target[t]))
			return true;
		if (p < plen && pat[p] == '*') {
			star_p = ++p;
			star_t = t;
			continue;
		}
		if (p < plen && target[t] && pat[p] == target[t]) {
			p++, t++;
			continue;
		}
		if (star_p == (size_t)-1 || !target[star_t])
			return false;
		p = star_p;
		t = ++star_t;
	}
}

/* The length of the longest pattern in l matching target, or -1. */
static long longest_match(const struct strlist *l, const char *target)
{
	long best = -1;
	for (size_t i = 0; i < l->n; i++) {
		long n = (long)strlen(l->items[i]);
		if (n > best && pattern_matches(l->items[i], target))
			best = n;
	}
	return best;
}

bool robots_allowed(const struct robots *r, const char *target)
{
	if (!strcmp(target, "/robots.txt"))
		return true;
	long deny = longest_match(&r->disallow, target);
	if (deny < 0)
		return true;
	return longest_match(&r->allow, target) >= deny;
}

/* The rules of the groups for one kind of agent. */
struct ruleset {
	struct strlist disallow, allow;
	bool named; /* some group names this agent, even with no rules */
};

/* Does a User-agent value name agent? Its product token (the leading
 * letters, '-' and '_') is compared without regard to case. */
static bool agent_is(const char *value, size_t n, const char *agent)
{
	size_t len = 0;
	while (len < n && (isalpha((unsigned char)value[len]) || value[len] == '-' || value[len] == '_'))
		len++;
	return len == strlen(agent) && !strncasecmp(value, agent, len);
}

void robots_parse(struct robots *r, const char *body, size_t len)
{
	struct ruleset mine = { STRLIST_INIT, STRLIST_INIT, false };
	struct ruleset star = { STRLIST_INIT, STRLIST_INIT, false };
	bool for_mine = false, for_star = false; /* the current group's agents */
	bool in_rules = true; /* the last line was a rule: a User-agent starts a group */

	memset(r, 0, sizeof *r);
	if (len > ROBOTS_MAX_BYTES)
		len = ROBOTS_MAX_BYTES;
	if (len >= 3 && !memcmp(body, "\xEF\xBB\xBF", 3))
		body += 3, len -= 3;

	const char *end = body + len;
	for (const char *line = body; line < end;) {
		const char *eol = line;
		while (eol < end && *eol != '\n' && *eol != '\r' && *eol != '\0')
			eol++;
		const char *next = eol < end ? eol + 1 : end;
		const char *hash = memchr(line, '#', (size_t)(eol - line));
		const char *stop = hash ? hash : eol;
		const char *colon = memchr(line, ':', (size_t)(stop - line));
		if (!colon) {
			line = next;
			continue;
		}
		const char *key = line, *key_end = colon;
		while (key < key_end && blank(*key))
			key++;
		while (key_end > key && blank(key_end[-1]))
			key_end--;
		const char *val = colon + 1, *val_end = stop;
		while (val < val_end && blank(*val))
			val++;
		while (val_end > val && blank(val_end[-1]))
			val_end--;
		size_t klen = (size_t)(key_end - key), vlen = (size_t)(val_end - val);
#define KEY_IS(s) (klen == strlen(s) && !strncasecmp(key, s, klen))
		if (KEY_IS("user-agent")) {
			if (in_rules)
				for_mine = for_star = false;
			in_rules = false;
			if (vlen == 1 && *val == '*') {
				for_star = star.named = true;
			} else if (agent_is(val, vlen, ROBOTS_AGENT)) {
				for_mine = mine.named = true;
			}
		} else if (KEY_IS("allow") || KEY_IS("disallow")) {
			in_rules = true;
			/* an empty Disallow allows everything: no rule at all */
			if (vlen) {
				bool allow = KEY_IS("allow");
				if (for_mine)
					strlist_add_owned(allow ? &mine.allow : &mine.disallow,
							  normalize_pattern(val, vlen));
				if (for_star)
					strlist_add_owned(allow ? &star.allow : &star.disallow,
							  normalize_pattern(val, vlen));
			}
		} else if (KEY_IS("sitemap")) {
			if (vlen)
				strlist_add_owned(&r->sitemaps, xstrndup(val, vlen));
		}
		/* other records (Crawl-delay, Host) are ignored, as RFC 9309 says:
		 * they neither start nor end a group */
#undef KEY_IS
		line = next;
	}

	struct ruleset *use = mine.named ? &mine : &star;
	struct ruleset *drop = mine.named ? &star : &mine;
	r->disallow = use->disallow;
	r->allow = use->allow;
	strlist_clear(&drop->disallow);
	strlist_clear(&drop->allow);
}

void robots_release(struct robots *r)
{
	strlist_clear(&r->disallow);
	strlist_clear(&r->allow);
	strlist_clear(&r->sitemaps);
}
