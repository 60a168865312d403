/* url.h - URLs as cgisnap sees them: RFC 3986 resolution and normalisation,
 * and the site's canonical request targets.
 *
 * Two kinds of string travel through the program:
 *  - absolute URLs, "http://host[:port]/path?query", always normalised by
 *    url_normalize() (RFC 3986 section 6.2.2 syntax-based and 6.2.3
 *    scheme-based normalisation; the fragment is dropped);
 *  - request targets, "/path?query": what the crawler requests from the
 *    origin, what the manifest is keyed by, what urlkey.h maps to a file.
 *    A target is canonical when it is the path and query of a normalised
 *    URL after the site's query policy (--ignore-param, --sort-query).
 *
 * Normalisation, precisely (docs/url-keys.md repeats it with examples):
 *  - scheme and host lower-cased; the default port (80 for http, 443 for
 *    https) removed; an empty path becomes "/"; userinfo is dropped;
 *  - percent-encodings get upper-case hex; %XX of an unreserved character
 *    (ALPHA DIGIT - . _ ~) is decoded; any byte that may not appear raw
 *    in its component (space, '"', '<', '>', '\', '^', '`', '{', '|', '}',
 *    controls, bytes >= 0x80, a '%' not followed by two hex digits) is
 *    percent-encoded; '#' ends the URL;
 *  - dot segments are removed (RFC 3986 5.2.4), also in targets;
 *  - an empty query ("/a?") is dropped.
 * Only http and https URLs exist for cgisnap: every function returns NULL
 * for anything else (mailto:, javascript:, data:, malformed hosts/ports).
 */
#ifndef CGISNAP_URL_H
#define CGISNAP_URL_H

#include <stdbool.h>

#include "buf.h"

/* The normalised form of an absolute http(s) URL; NULL when it is not one. */
char *url_normalize(const char *url);

/* Resolve ref against base (an absolute URL) as RFC 3986 5.2 says and
 * normalise the result; NULL when the result is not an http(s) URL. */
char *url_resolve(const char *base, const char *ref);

/* "scheme://host[:port]" of a normalised URL (fresh string). */
char *url_origin(const char *url);

/* "/path?query" of a normalised URL (fresh string). */
char *url_target(const char *url);

/* Decode %XX escapes of s[0..len) into out (which is reset first). Bytes
 * that are not part of a valid escape are copied as they are. */
void url_decode(struct buf *out, const char *s, size_t len);

/* A site: the public address(es) it calls itself, and its query policy.
 * Fill it with site_init(), then site_add_alias() / the policy fields. */
struct site {
	char *url;                    /* normalised --site-url, e.g. "http://localhost/" */
	char *origin;                 /* its "scheme://host[:port]" */
	struct strlist aliases;       /* origins of --alias URLs, also internal */
	struct strlist ignore_params; /* --ignore-param globs (fnmatch), on parameter names */
	bool sort_query;              /* --sort-query: parameters sorted by name (stable) */
};

/* Set the site's address; -1 with err when url is not an http(s) URL. */
int site_init(struct site *s, const char *url, char *err);
int site_add_alias(struct site *s, const char *url, char *err);
void site_release(struct site *s);

/* The canonical target of an absolute URL when it belongs to the site (its
 * origin or an alias), else NULL. */
char *site_target(const struct site *s, const char *absurl);

/* Canonicalise a request target as a client sent it ("/a/./b?utm_source=x&b=1"):
 * normalised, then the query policy applied. NULL when it is not a valid
 * origin-form target (must start with '/'). */
char *site_canonical_target(const struct site *s, const char *raw_target);

/* The site's absolute URL for a canonical target (origin + target). */
char *site_url_for(const struct site *s, const char *target);

/* Apply the query policy to a query string (without '?'); returns a fresh
 * string, "" when every parameter was dropped. */
char *site_canonical_query(const struct site *s, const char *query);

#endif
