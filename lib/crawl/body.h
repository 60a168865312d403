/* body.h - a response's body, in memory or in a file: read, hashed,
 * loaded to be parsed, stripped of what --strip names.
 *
 * open_body says where the body is (a file under --root, or one the
 * origin kept: fd >= 0; else rs->body); close_body after. load_body
 * brings it into memory, for the parsers and --strip.
 */
#ifndef CGISNAP_CRAWL_BODY_H
#define CGISNAP_CRAWL_BODY_H

#include <stdbool.h>

#include "base/buf.h"
#include "crawl/crawl.h"
#include "origin/origin.h"

/* Where a body is when it is not in memory: len bytes of fd from off (a
 * static file under --root, or a body the origin kept in a file). */
struct body_file {
	int fd;
	bool owned;    /* opened here: close it */
	long long off, len;
};

/* The body of rs as a file, or fd -1 when it is in rs->body; 0 or -1. */
int open_body(struct origin_response *rs, struct body_file *f, char *err);
void close_body(struct body_file *f);
/* Bring the whole body of rs into rs->body, as if the origin had sent it
 * so (a static file's path is forgotten); 0 or -1 with err. */
int load_body(struct origin_response *rs, char *err);

/* Whether a content type is text (--strip applies), and may have links. */
bool is_text_type(const char *type);
bool has_links(const char *type);
/* Remove every match of the --strip regexes. */
void strip_volatile(const struct crawl_config *cfg, struct buf *body);
/* Whether the response asks not to be stored (Cache-Control). */
bool no_store(const struct origin_response *rs);

#endif
