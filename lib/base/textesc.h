/* textesc.h - text written into the formats the reports use: a JSON
 * string (quotes added) and HTML text or attribute values. Both write
 * to a stdio stream; bench and verify share them. */
#ifndef CGISNAP_TEXTESC_H
#define CGISNAP_TEXTESC_H

#include <stddef.h>
#include <stdio.h>

/* s as a JSON string, quotes included: '"' and '\' escaped, control
 * bytes as \u00XX, UTF-8 as it is, any other byte as \ufffd (JSON is
 * UTF-8: a Latin-1 page's bytes must not break it). */
void json_string(FILE *out, const char *s);
/* The length of the valid UTF-8 character of two to four bytes at p; 0
 * when p holds none (ASCII included: the caller handles it). */
size_t utf8_char_len(const unsigned char *p);
/* s with &, <, > and " escaped. */
void html_escaped(FILE *out, const char *s);

#endif
