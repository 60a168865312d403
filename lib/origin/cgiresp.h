/* cgiresp.h - parse a CGI response (RFC 3875 section 6): the header block
 * up to the first empty line, then the body. CGI programs run directly and
 * FastCGI servers both answer in this form.
 *
 * What the parser accepts: CRLF or LF line ends; header folding (a line
 * starting with a space or tab continues the previous header); "Status:
 * 404 Not Found" or a bare "Status: 404"; "Location:" as a client redirect
 * (an absolute URL: status 302 unless a Status header says otherwise) or a
 * local redirect (a path starting with '/' and no Status: the server must
 * render that target itself, RFC 3875 section 6.2.2). A response with a
 * body must say its Content-Type unless it is a redirect.
 *
 * What it refuses, with err: "malformed header from script: 'LINE'" (as
 * Apache says it) for a line without a colon, an empty or invalid header
 * name, a control byte but a tab anywhere in a line (a bare CR too), a header block that never ends
 * (the last line is quoted) or one over CGIRESP_MAX_HEADER bytes (the line
 * crossing the limit is quoted); "empty response" when there was no output
 * at all; "no Content-Type". LINE is cut to 60 bytes (then "...") and its
 * bytes outside printable ASCII are written as \xNN.
 */
#ifndef CGISNAP_CGIRESP_H
#define CGISNAP_CGIRESP_H

#include "base/buf.h"
#include "origin/origin.h"
#include "base/spill.h"

#define CGIRESP_MAX_HEADER (64 * 1024)

enum cgiresp_kind {
	CGIRESP_DOCUMENT = 0,       /* a page, an error page or a client redirect */
	CGIRESP_LOCAL_REDIRECT = 1, /* rs->location is a local path to render instead */
};

/* Parse raw, a CGI program's whole output, into rs (which the caller has
 * initialised): status, content_type, location, every header but Status in
 * order (Set-Cookie included), body. raw's memory is reused for rs->body
 * and raw is left empty. Returns a cgiresp_kind, or -1 with err; on error
 * rs may hold part of the headers (release it as usual). */
int cgiresp_parse(struct buf *raw, struct origin_response *rs, char *err);

/* The same for output collected in a spill: in memory it is cgiresp_parse;
 * in a file, the header block is read from the file's start and the body
 * stays in the file, which rs then owns (rs->body_in_file, body_off past
 * the header block); raw is left empty either way. */
int cgiresp_parse_spill(struct spill *raw, struct origin_response *rs, char *err);

/* Write line[0..len) into out as a quotable excerpt: at most max bytes of
 * it, bytes outside printable ASCII as \xNN, "..." when it was cut. */
void cgiresp_quote(struct buf *out, const char *line, size_t len, size_t max);

#endif
