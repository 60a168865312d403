/* serve/fallback.h - pages from the origin when the tree has none
 * (--fallback, optionally storing them with --fill), or for every request
 * (--dynamic).
 *
 * Renders run on render threads of their own (as many as --jobs), never
 * on the libmicrohttpd workers: the request handler suspends its
 * connection, fallback_start() queues the render, and the waiter's done()
 * resumes the connection when the answer is there. A worker thus goes on
 * serving files while the origin takes its time (at most its --timeout).
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
 * added to the manifest: held by meta until the save, within a second,
 * that writes its row and no other (meta_save_if_dirty). --fill holds the tree's lock for the server's
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
	bool look_again;               /* no answer: the tree changed since the request
					* looked the target up (a flight stored it and
					* ended): look it up again */
};

/* Open the origin described by origin_options (origin_defaults()
 * already called) for server s. NULL with err. */
struct fallback *fallback_open(struct server *s, char *err);

/* What the renders run on, as origin_describe says it. */
void fallback_describe(const struct fallback *f, char *buf, size_t len);

/* How long one render may take, in seconds: the origin's --timeout. */
long fallback_timeout_s(const struct fallback *f);

/* A request waiting for a render; the caller owns it and keeps it alive
 * until done() was called. */
struct fallback_waiter {
	struct fallback_waiter *next;  /* fallback's */
	struct fallback_answer answer; /* set when done() is called */
	/* Called once, from a render thread, with answer set; answer is then
	 * the caller's, to hand back with fallback_release(). */
	void (*done)(struct fallback_waiter *w);
};

/* Queue a render of the canonical target for a client (its address, for
 * REMOTE_ADDR), or join the one in flight for target; w->done() follows
 * on a render thread (possibly before fallback_start returns). With
 * check, when none is in flight and meta's generation is no longer
 * seen_gen (the one the target was looked up in), w->done() is called at
 * once with answer.look_again: a flight may have stored the target and
 * ended between the lookup and this call. */
void fallback_start(struct fallback *f, const char *target, const char *client, unsigned seen_gen, bool check,
		    struct fallback_waiter *w);

/* Let the renders in progress finish, answer the queued ones 503 (every
 * waiter's done() has been called on return) and stop the render
 * threads. Before libmicrohttpd stops: it may not hold suspended
 * connections then. Idempotent. */
void fallback_stop(struct fallback *f);

void fallback_release(struct fallback *f, struct fallback_answer *a);

void fallback_close(struct fallback *f);

#endif
