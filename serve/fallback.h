/* serve/fallback.h - pages from the origin when the tree has none
 * (--fallback, optionally storing them with --fill), or for every request
 * (--dynamic).
 *
 * A render runs on the libmicrohttpd worker that received the request and
 * blocks it until the origin answers (at most the origin's --timeout).
 * With --fallback, concurrent requests for the same target share one
 * render: the first starts it, the others wait for its answer ("single
 * flight", no stampede on a slow page). --dynamic renders every request,
 * so that it measures the origin as it is.
 *
 * The origin's answer is passed on with its status, Content-Type,
 * Location and other end-to-end headers; Set-Cookie (a snapshot serves the
 * same bytes to everyone) and hop-by-hop headers are dropped. With --fill,
 * a 2xx answer whose target has a key (urlkey.h) is published into the
 * tree (publish.h: temp file + rename, .gz beside compressible types) and
 * added to the manifest, which the server writes out atomically within a
 * second (manifest_save). --fill holds the tree's lock for the server's
 * lifetime, so a snapshot or watch cannot write the tree at the same time.
 */
#ifndef CGISNAP_SERVE_FALLBACK_H
#define CGISNAP_SERVE_FALLBACK_H

#include <microhttpd.h>

#include "serve.h"

struct fallback;
struct flight;

/* An answer to queue, then to hand back with fallback_release(). */
struct fallback_answer {
	struct MHD_Response *response; /* NULL only when out of memory */
	unsigned status;
	long long bytes;               /* body size, for the access log */
	struct flight *flight;         /* shared with concurrent requests, or NULL */
};

/* Open the origin described by origin_config (origin_config_defaults()
 * already called) for server s. NULL with err. */
struct fallback *fallback_open(struct server *s, char *err);

/* Render the canonical target for a client (its address, for
 * REMOTE_ADDR) into a. */
void fallback_answer(struct fallback *f, const char *target, const char *client,
		     struct fallback_answer *a);

void fallback_release(struct fallback *f, struct fallback_answer *a);

void fallback_close(struct fallback *f);

#endif
