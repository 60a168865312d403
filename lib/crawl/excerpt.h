/* excerpt.h - the first lines of text of a response body, for messages:
 * what a failed page said ("could not find config-localhost.php") is
 * shown to the user at -v and in the summary, not thrown away.
 *
 * For HTML (html true) tags are removed, the contents of <script>, <style>
 * and <title> (it repeats the status) skipped, a few entities (&amp; &lt; &gt; &quot; &#39; &nbsp;)
 * decoded and a block tag (<p>, <br>, <h1>, <div>, <li>, <tr>, <title>
 * ...) ends a line. Every line has its runs of spaces and tabs collapsed
 * and its ends trimmed; empty lines are skipped; bytes below 0x20 and
 * 0x7f are written as \xNN; a line longer than max_chars bytes is cut
 * and ends in "...". Pure functions: no I/O, nothing printed.
 */
#ifndef CGISNAP_EXCERPT_H
#define CGISNAP_EXCERPT_H

#include <stdbool.h>
#include <stddef.h>

#include "base/buf.h"

/* Lines shown of a failed response at -v, and their length. */
#define EXCERPT_LINES 5
#define EXCERPT_LINE_MAX 200
/* How much of a body is looked at: the text that explains a failure is
 * at its start. */
#define EXCERPT_SCAN_MAX 16384

/* Append at most max_lines lines of the text of data[0..len) to out. */
void excerpt_lines(const char *data, size_t len, bool html, size_t max_lines, size_t max_chars,
		   struct strlist *out);

/* The first line of text, or NULL when there is none; the caller frees it. */
char *excerpt_first_line(const char *data, size_t len, bool html, size_t max_chars);

/* Whether a body of this Content-Type is text worth quoting (text/..., XML,
 * JSON, JavaScript; NULL: unknown, no), and whether it is HTML. */
bool excerpt_is_text(const char *content_type);
bool excerpt_is_html(const char *content_type);

#endif
