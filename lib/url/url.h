/* url.h - URLs as cgisnap sees them: RFC 3986 resolution and normalisation
 * (url.c), and the site's canonical request targets (site.c).
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
 *    percent-encoded ('[' and ']' stay raw: browsers send PHP's "a[]=1"
 *    that way); '#' ends the URL;
 *  - dot segments are removed (RFC 3986 5.2.4), also in targets, after the
 *    escapes of unreserved characters are decoded ("%2e%2E" is ".."); an
 *    encoded slash "%2F" stays as it is; '+' is left alone;
 *  - an empty query ("/a?") is dropped.
 * Hosts are names of letters, digits and "-._~" (escapes of those
 * decoded) or IPv6 literals kept in brackets ("[::1]"); ports 1..65535.
 * Absolute URLs and references are first read as browsers read an href:
 * leading and trailing spaces and controls dropped, tabs and newlines
 * removed.
 * Only http and https URLs exist for cgisnap: every function returns NULL
 * for anything else (mailto:, javascript:, data:, ftp:, an empty host,
 * non-ASCII host names, bad or out-of-range ports).
 */
#ifndef CGISNAP_URL_H
#define CGISNAP_URL_H

#include <stdbool.h>

#include "base/buf.h"
#include "base/rewrite.h"

/* The normalised form of an absolute http(s) URL (fresh string); NULL when
 * it is not one. */
char *url_normalize(const char *url);

/* Resolve ref against base (an absolute URL) as RFC 3986 5.2 says and
 * normalise the result (fresh string); NULL when the result is not an
 * http(s) URL. A reference with the base's scheme and no authority
 * ("http:g") is read as relative, the backward-compatible reading 5.2.2
 * allows and browsers use. */
char *url_resolve(const char *base, const char *ref);

/* url_normalize and url_resolve, saying why on NULL: *why is a static
 * string, "not an http or https URL" (another scheme, or none), "no
 * host", "bad host", "bad port" (not digits) or "port out of range" (0,
 * or over 65535). */
char *url_normalize_why(const char *url, const char **why);
char *url_resolve_why(const char *base, const char *ref, const char **why);

/* "scheme://host[:port]" of a normalised URL (fresh string); NULL when url
 * has no "://". */
char *url_origin(const char *url);

/* "/path?query" of a normalised URL (fresh string); NULL as url_origin. */
char *url_target(const char *url);

/* The byte of the %XX escape starting s[0..len) ("%4A" is 'J'), or -1
 * when s does not start with one. */
int url_escape_at(const char *s, size_t len);

/* Decode %XX escapes of s[0..len) into out (which is reset first). Bytes
 * that are not part of a valid escape are copied as they are. */
void url_decode(struct buf *out, const char *s, size_t len);

/* A site: the public address(es) it calls itself, its query policy and
 * its --canonical rules. Fill it with site_init(), then site_add_alias()
 * / site_add_canonical() / the policy fields. */
struct site {
	char *url;                    /* normalised --site-url, e.g. "http://localhost/" */
	char *origin;                 /* its "scheme://host[:port]" */
	struct strlist aliases;       /* origins of --alias URLs, also internal */
	struct strlist ignore_params; /* --ignore-param globs (fnmatch), on parameter names */
	bool sort_query;              /* --sort-query: parameters sorted by name (stable) */
	struct rewrite *canonical;    /* --canonical rules, in order (rewrite.h) */
	size_t ncanonical;
};

/* Set the site's address, every other field empty (s is overwritten, not
 * released); -1 with err when url is not an http(s) URL ("invalid site
 * URL 'http://a:99999/': port out of range"), s then empty. */
int site_init(struct site *s, const char *url, char *err);
/* Add the origin of url as an alias (its path is ignored; the site's own
 * origin and repeats are skipped); -1 with err when not an http(s) URL. */
int site_add_alias(struct site *s, const char *url, char *err);
/* Add a --canonical 'REGEX => URL' rule (rewrite.h syntax): URL, with
 * $1..$9 for the groups, must be a target ("/..."). -1 with err naming the
 * rule: "bad --canonical rule 'x': expected 'REGEX => URL'", "... the URL
 * 'y' must start with '/'", "bad --canonical regex in 'x': why". */
int site_add_canonical(struct site *s, const char *spec, char *err);
/* -1 with err when a rule whose URL has no '$' (the same replacement for
 * every match) names a URL that a rule matches: every request would be
 * redirected again ("... its URL '/x' is matched by --canonical 'z': a
 * redirect loop"). Call once the rules are added. */
int site_check_canonical(const struct site *s, char *err);
/* The redirect a --canonical rule makes of a canonical target: the first
 * rule matching target, its URL expanded and canonicalised
 * (site_canonical_target) - fresh - with *rule its index; NULL when no rule
 * matches. */
char *site_canonical_redirect(const struct site *s, const char *target, size_t *rule);
/* Free everything; s is left zeroed (site_init may follow). */
void site_release(struct site *s);

/* The canonical target of an absolute URL when it belongs to the site (its
 * origin or an alias), else NULL. */
char *site_target(const struct site *s, const char *absurl);

/* Canonicalise a request target as a client sent it ("/a/./b?utm_source=x&b=1"):
 * normalised (any bytes: what may not stay raw is escaped; a '#' and what
 * follows is dropped), then the query policy applied, a query left empty
 * removed with its '?'. NULL when it is not a valid origin-form target
 * (must start with '/'). The caller frees the result. */
char *site_canonical_target(const struct site *s, const char *raw_target);

/* The site's absolute URL for a canonical target (origin + target; fresh). */
char *site_url_for(const struct site *s, const char *target);

/* Apply the query policy to a normalised query string (without '?');
 * returns a fresh string, "" when every parameter was dropped. With a
 * policy (ignore_params or sort_query set) the query is split at '&',
 * empty parameters ("a=1&&b=2", a trailing '&') are dropped, names (the
 * raw text before the first '=') matching an ignore_params glob are
 * dropped, and with sort_query the rest are sorted by name, byte order,
 * stable (repeated names keep their order); rejoined with '&'. Without a
 * policy the query comes back unchanged. */
char *site_canonical_query(const struct site *s, const char *query);

#endif
