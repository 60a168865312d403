/* url_impl.h - what url.c shares with site.c: the pieces of normalisation
 * that a canonical target is made of. Not for use outside lib/url/. */
#ifndef CGISNAP_URL_IMPL_H
#define CGISNAP_URL_IMPL_H

#include <stddef.h>

#include "base/buf.h"

/* Append s[0..len) with RFC 3986 6.2.2 percent-encoding normalisation. */
void url_add_normalized(struct buf *out, const char *s, size_t len);
/* Append the normalised path (escapes, then dot segments; "" becomes "/"). */
void url_add_path(struct buf *out, const char *path, size_t len);
/* Length of "scheme://authority" at the start of url; 0 without "://". */
size_t url_origin_length(const char *url);

#endif
