/* css.h - finding the URL references in a stylesheet.
 *
 * css.c owns it, for the link extraction (links.c), which resolves what it
 * reports. A reference is the value of a url(...) (quoted or not), the
 * string after @import, or a string directly inside image-set() or
 * -webkit-image-set(); nothing in comments or other strings. Escapes are
 * decoded (a NUL, a surrogate or a code point past U+10FFFF becomes
 * U+FFFD); bad strings and bad urls, as CSS Syntax defines them, are no
 * references, and the end of the text ends an open url( as ')' would.
 *
 * No state: css_scan may run in several threads at once.
 */
#ifndef CGISNAP_CSS_H
#define CGISNAP_CSS_H

#include <stddef.h>

#include "base/buf.h"

/* Called for each reference, as written with its escapes decoded and not
 * resolved: ref[0..len) (NUL-terminated, possibly empty) is valid only
 * during the call. */
typedef void (*css_ref_fn)(void *arg, const char *ref, size_t len);

/* Calls fn for each reference in s[0..len), in the order they appear. The
 * text is UTF-8 or ASCII-compatible and may hold NULs; a BOM is the
 * caller's to skip. */
void css_scan(const char *s, size_t len, css_ref_fn fn, void *arg);

#endif
