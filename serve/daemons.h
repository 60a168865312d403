/* serve/daemons.h - the HTTP daemons: one libmicrohttpd daemon per worker
 * thread, each polling (epoll) its own listening socket of a SO_REUSEPORT
 * group, so the kernel spreads new connections over the threads and an
 * accept wakes one thread, not all of them (with one shared socket every
 * worker woke for every connection, and most accept() calls failed).
 * The connection limits (--max-connections, --max-per-ip) are counted
 * across the daemons, as for one server.
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

/* Stop accepting, let requests in flight finish (at most drain_ms), then
 * stop every daemon and free d. */
void daemons_stop(struct daemons *d, long long drain_ms);

#endif
