/* robots.h - reading robots.txt and matching targets against it.
 *
 * robots.c implements it; it needs no libxml2 and no set-up. A parsed
 * struct robots is only read by robots_allowed(), so threads may share one.
 */
#ifndef CGISNAP_ROBOTS_H
#define CGISNAP_ROBOTS_H

#include <stdbool.h>
#include <stddef.h>

#include "base/buf.h"

/* robots.txt (RFC 9309, as Google reads it): the rules of the groups for
 * user-agent "cgisnap" (merged; "CGISnap/1.0" counts too), or when there are
 * none those for "*"; and every Sitemap: line, whatever its group. Rule
 * patterns are stored percent-encoded the way canonical targets are. */
struct robots {
	struct strlist disallow; /* path prefixes; '*' and a final '$' as Google reads them */
	struct strlist allow;
	struct strlist sitemaps; /* absolute URLs as written */
};

/* Fill r (its old content is not freed) from the first 500 KiB of body;
 * never fails: what cannot be read is ignored. robots_release() frees it. */
void robots_parse(struct robots *r, const char *body, size_t len);
/* Is target (a canonical "/path?query") allowed? The longest matching rule
 * wins; Allow wins a tie; "/robots.txt" is always allowed. */
bool robots_allowed(const struct robots *r, const char *target);
void robots_release(struct robots *r);

#endif
