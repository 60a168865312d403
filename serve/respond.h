/* serve/respond.h - responses with a small fixed HTML body (400, 404,
 * 405, ...), made for the request handler (handler.c), the meta pages
 * (meta.c) and the fallback (fallback.c), none of which owns them.
 */
#ifndef CGISNAP_SERVE_RESPOND_H
#define CGISNAP_SERVE_RESPOND_H

#include <microhttpd.h>

/* A response made once and queued many times, and its body's size (for
 * the access log). */
struct fixed_response {
	struct MHD_Response *r;
	long long len;
};

/* A response with a small fixed HTML body; html is not copied: it must
 * outlive the response (a literal). NULL when out of memory. */
struct MHD_Response *response_text(const char *html);
/* The same as a fixed_response with Content-Type text/html; exits when
 * out of memory (only used at start-up and reloads). */
struct fixed_response fixed_html(const char *html);

#endif
