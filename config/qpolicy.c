/* config/qpolicy.c - the tree's query policy (--ignore-param,
 * --sort-query; url.h site_canonical_query) in the terms a plain server
 * offers: a regular expression that drops one parameter, applied a fixed
 * number of times, and a table from the other orders of the queries the
 * tree holds to their sorted form (config.h). */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "base/hashmap.h"
#include "base/xalloc.h"

bool config_query_policy(const struct site *s)
{
	return s->sort_query || s->ignore_params.n;
}

/* Append one byte as PCRE text matching itself inside a bracket. */
static void bracket_byte(struct buf *out, unsigned char c)
{
	if (isalnum(c) || c == '-' || c >= 0x80)
		buf_addc(out, (char)c);
	else
		buf_addf(out, "\\x%02x", c);
}

/* Where the bracket expression of fnmatch starting at g ('[') ends (its
 * ']'), or NULL when it does not close: then '[' is a plain character. */
static const char *bracket_end(const char *g)
{
	const char *p = g + 1;
	if (*p == '!' || *p == '^')
		p++;
	if (*p == ']')
		p++;
	for (; *p && *p != ']'; p++) {
		if (p[0] == '[' && p[1] == ':') {
			const char *close = strstr(p + 2, ":]");
			if (!close)
				return NULL;
			p = close + 1;
		} else if (p[0] == '\\' && p[1]) {
			p++;
		}
	}
	return *p == ']' ? p : NULL;
}

void config_glob_pcre(struct buf *out, const char *glob)
{
	for (const char *p = glob; *p; p++) {
		const char *end;
		if (*p == '*') {
			buf_adds(out, "[^&=]*");
		} else if (*p == '?') {
			buf_adds(out, "[^&=]");
		} else if (*p == '[' && (end = bracket_end(p))) {
			/* A name holds no '&' nor '=', whatever the set says. */
			buf_adds(out, "(?![&=])[");
			p++;
			if (*p == '!' || *p == '^')
				buf_addc(out, '^'), p++;
			if (*p == ']')
				buf_adds(out, "\\]"), p++;
			for (; p < end; p++) {
				if (p[0] == '[' && p[1] == ':') {
					const char *close = strstr(p + 2, ":]");
					buf_add(out, p, (size_t)(close + 2 - p));
					p = close + 1;
				} else {
					if (p[0] == '\\' && p + 1 < end)
						p++;
					bracket_byte(out, (unsigned char)*p);
				}
			}
			buf_addc(out, ']');
		} else {
			char c[2] = { p[0] == '\\' && p[1] ? *++p : *p, '\0' };
			config_regex_escape(out, c);
		}
	}
}

void config_drop_regex(const struct site *s, struct buf *out)
{
	struct buf ign = BUF_INIT;
	/* An empty parameter, or a name the globs match with its value. */
	buf_adds(&ign, "(?:");
	if (s->ignore_params.n) {
		buf_adds(&ign, "|(?:");
		for (size_t i = 0; i < s->ignore_params.n; i++) {
			if (i)
				buf_addc(&ign, '|');
			config_glob_pcre(&ign, s->ignore_params.items[i]);
		}
		buf_adds(&ign, ")(?:=[^&]*)?");
	}
	buf_adds(&ign, ")");
	/* The first parameter (then what follows its '&' is kept), or one
	 * after a '&' (then that '&' goes with it): "$1$2" never has a stray
	 * '&'. */
	buf_addf(out, "^(.*?)(?:^%s(?:&|$)|&%s(?=&|$))(.*)$", buf_str(&ign), buf_str(&ign));
	buf_release(&ign);
}

/* Append to from/to every order of the n parameters of q (canonical,
 * sorted) that sorts back into q, but q itself; seen holds the orders
 * already listed. */
static void add_orders(const struct site *s, const char *q, struct hashmap *seen, struct strlist *from,
		       struct strlist *to)
{
	struct strlist params = STRLIST_INIT;
	strlist_split(&params, q, '&');
	size_t n = params.n, idx[CONFIG_SORT_MAX_PARAMS], c[CONFIG_SORT_MAX_PARAMS] = { 0 };
	if (n < 2 || n > CONFIG_SORT_MAX_PARAMS)
		goto out;
	for (size_t i = 0; i < n; i++)
		idx[i] = i;
	/* Heap's algorithm: every permutation once, by swaps. */
	for (size_t i = 1; i < n;) {
		if (c[i] < i) {
			size_t j = i % 2 ? c[i] : 0, t = idx[j];
			idx[j] = idx[i];
			idx[i] = t;
			c[i]++;
			i = 1;
			struct buf perm = BUF_INIT;
			for (size_t k = 0; k < n; k++) {
				if (k)
					buf_addc(&perm, '&');
				buf_adds(&perm, params.items[idx[k]]);
			}
			char *sorted = site_canonical_query(s, buf_str(&perm));
			/* Repeated names keep their order: other orders of
			 * them are other queries. */
			if (!strcmp(sorted, q) && strcmp(buf_str(&perm), q) && !hashmap_get(seen, buf_str(&perm))) {
				hashmap_put(seen, buf_str(&perm), (void *)1);
				strlist_add(from, buf_str(&perm));
				strlist_add(to, q);
			}
			free(sorted);
			buf_release(&perm);
		} else {
			c[i] = 0;
			i++;
		}
	}
out:
	strlist_clear(&params);
}

void config_query_orders(const struct treeinfo *ti, struct strlist *from, struct strlist *to)
{
	struct hashmap seen = HASHMAP_INIT;
	if (!ti->site.sort_query)
		return;
	struct strlist qs = STRLIST_INIT;
	for (size_t i = 0; i < ti->queries.n; i++)
		strlist_add(&qs, ti->queries.items[i]);
	strlist_sort(&qs);
	strlist_uniq(&qs);
	for (size_t i = 0; i < qs.n; i++)
		add_orders(&ti->site, qs.items[i], &seen, from, to);
	strlist_clear(&qs);
	hashmap_release(&seen);
}
