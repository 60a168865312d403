/* serve/http.h - the pure parts of HTTP that 'cgisnap serve' needs:
 * validators (RFC 9110 section 13), byte ranges (section 14), dates
 * (section 5.6.7) and gzip negotiation (section 12.5.3).
 *
 * No I/O and no allocation: the request handler calls these on header
 * values as MHD hands them over, so they must be cheap, and they are
 * table-tested in tests/unit/test_serve_http.c.
 */
#ifndef CGISNAP_SERVE_HTTP_H
#define CGISNAP_SERVE_HTTP_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

/* Room for "Sun, 06 Nov 1994 08:49:37 GMT" (29 bytes) and its NUL. */
#define HTTP_DATE_LEN 40

enum http_range {
	HTTP_RANGE_NONE,          /* no usable Range: send the whole 200 */
	HTTP_RANGE_ONE,           /* one satisfiable range: send 206 */
	HTTP_RANGE_UNSATISFIABLE, /* send 416 with "Content-Range: bytes *\/SIZE" */
};

/* Read a Range header value for a representation of size bytes. A single
 * "bytes=" range that fits gives HTTP_RANGE_ONE with *first and *len set;
 * one that starts past the end (or a zero suffix) is unsatisfiable. Other
 * units, syntax errors and requests for several ranges give
 * HTTP_RANGE_NONE: RFC 9110 lets a server ignore them and send 200. */
enum http_range http_parse_range(const char *value, uint64_t size, uint64_t *first,
				 uint64_t *len);

/* True when the entity-tag list of an If-None-Match (weak = true: weak
 * comparison, W/"x" matches "x") or If-Match (weak = false: strong
 * comparison) header matches etag, a quoted strong tag such as "\"a1\"".
 * "*" matches any tag. A malformed list matches nothing. */
bool http_etag_matches(const char *list, const char *etag, bool weak);

/* Write t as an IMF-fixdate ("Sun, 06 Nov 1994 08:49:37 GMT") into out. */
void http_format_date(time_t t, char out[HTTP_DATE_LEN]);

/* Parse an HTTP date in any of the three formats a server must accept
 * (IMF-fixdate, RFC 850, asctime); 0 and *out set, or -1. */
int http_parse_date(const char *s, time_t *out);

/* True when an Accept-Encoding value accepts gzip: "gzip" or "x-gzip"
 * listed with a non-zero q, or "*" with a non-zero q and gzip not refused. */
bool http_accepts_gzip(const char *accept_encoding);

#endif
