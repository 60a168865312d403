/* serve/respond.c - the small fixed HTML responses (respond.h) that the
 * request handler, the meta pages and the fallback all send. */
#include "respond.h"

#include <stdlib.h>
#include <string.h>

#include "base/log.h"

struct MHD_Response *response_text(const char *html)
{
	return MHD_create_response_from_buffer(strlen(html), (void *)html, MHD_RESPMEM_PERSISTENT);
}

struct fixed_response fixed_html(const char *html)
{
	struct fixed_response f = { response_text(html), (long long)strlen(html) };
	if (!f.r) {
		log_error("cannot create a response: out of memory");
		exit(3);
	}
	MHD_add_response_header(f.r, MHD_HTTP_HEADER_CONTENT_TYPE, "text/html; charset=utf-8");
	return f;
}
