/* serve/daemons.h - the HTTP daemons: one libmicrohttpd daemon per worker
 * thread, each polling (epoll) its own listening socket of a SO_REUSEPORT
 * group, so the kernel spreads new connections over the threads and an
 * accept wakes one thread, not all of them (with one shared socket every
 * worker woke for every connection, and most accept() calls failed).
 * The connection limits (--max-connections, --max-per-ip) are counted
 * across the daemons, as for one server.
 *
 * Slow clients: libmicrohttpd's --idle-timeout is reset by every byte, so
 * a client trickling its headers would hold a connection forever. Each
 * connection is therefore tracked from libmicrohttpd's STARTED notice to
 * CLOSED with the time its request head began (the connection's start,
 * or the end of its previous response); daemons_tick() cuts those whose
 * head is not complete after --header-timeout (after a response: after
 * --idle-timeout plus --header-timeout). A full table (--max-connections)
 * still takes a new connection by cutting the oldest one not being
 * answered; libmicrohttpd's own limit is higher by daemons_headroom() so
 * that it has room while the cut ones close. Cutting is shutdown(), never
 * close(): the descriptor stays libmicrohttpd's.
 */
#ifndef CGISNAP_SERVE_DAEMONS_H
#define CGISNAP_SERVE_DAEMONS_H

#include "listen.h"
#include "serve.h"

struct daemons;

/* Bind s->cfg.threads sockets to addr (a->text gets the real port) and
 * start a daemon on each; NULL with err ("cannot listen on 'x': Address
 * already in use") when the address cannot be had. */
struct daemons *daemons_start(struct server *s, struct listen_addr *addr, char *err);

/* Connections libmicrohttpd may hold beyond max_connections while the
 * ones cut to make room close (and descriptors to keep for them). */
long daemons_headroom(long max_connections);

/* The request path tells the table where a connection is: its request
 * head is complete and the answer is being made (busy: never cut), or
 * the response is done (a new head may follow, timed from now). */
void daemons_request_busy(struct MHD_Connection *c);
void daemons_request_done(struct MHD_Connection *c);

/* Cut connections past their head deadline; call about once a second. */
void daemons_tick(struct daemons *d);

/* Stop accepting and let requests in flight finish (at most drain_ms). */
void daemons_drain(struct daemons *d, long long drain_ms);

/* Stop every daemon (no connection may be suspended any more) and free d. */
void daemons_stop(struct daemons *d);

#endif
