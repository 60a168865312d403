/* charset.h - which charset a document is in, and decoding it to UTF-8.
 *
 * charset.c owns it, for the link extraction (links.c): libxml2 is handed
 * only clean UTF-8. The order of evidence is a browser's: a BOM wins, then
 * the charset of the Content-Type, then what the document declares (<meta
 * charset> or http-equiv in the first 4 KiB of HTML, the XML declaration);
 * undeclared XML is UTF-8, undeclared HTML is UTF-8 unless it has more
 * invalid bytes than valid multi-byte sequences, then windows-1252. The
 * labels WHATWG maps to windows-1252 (iso-8859-1, latin1, us-ascii, ...)
 * are read as windows-1252; an unknown label counts as none.
 *
 * No state: every function may run in several threads at once.
 */
#ifndef CGISNAP_CHARSET_H
#define CGISNAP_CHARSET_H

#include <stdbool.h>
#include <stddef.h>

#include "base/buf.h"

/* Room for a charset label, its NUL included; longer labels are ignored. */
#define CHARSET_NAME_MAX 40

enum charset_doc { CHARSET_HTML, CHARSET_XML };

/* Appends s[0..len), a document of the given kind, to out as UTF-8 in which
 * every invalid byte and every NUL is U+FFFD; a BOM is dropped. charset is
 * the Content-Type's (or NULL). Never fails. */
void charset_decode(struct buf *out, const char *s, size_t len, const char *charset,
		    enum charset_doc kind);
/* s[0..len) as charset_decode would make it, without a copy when it is
 * UTF-8 already (a BOM skipped): a pointer into s, or into scratch
 * (emptied first) when it had to be decoded; its length in *n. */
const char *charset_text(struct buf *scratch, const char *s, size_t len, const char *charset,
			 enum charset_doc kind, size_t *n);

/* The charset parameter of a Content-Type value (charset=utf-8, quoted or
 * not, any case) copied lower-case into name (CHARSET_NAME_MAX bytes);
 * returns name, or NULL when there is none or it does not fit. */
const char *charset_of_type(const char *content_type, char *name);

#endif
