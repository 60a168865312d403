/* textesc.h - text written into the formats the reports use: a JSON
 * string (quotes added) and HTML text or attribute values. Both write
 * to a stdio stream; bench and verify share them. */
#ifndef CGISNAP_TEXTESC_H
#define CGISNAP_TEXTESC_H

#include <stdio.h>

/* s as a JSON string, quotes included: '"' and '\' escaped, control
 * bytes as \u00XX; other bytes as they are (UTF-8 passes). */
void json_string(FILE *out, const char *s);
/* s with &, <, > and " escaped. */
void html_escaped(FILE *out, const char *s);

#endif
