/* serve/listen.h - the address the server listens on: "ADDR:PORT" parsed
 * and bound by us rather than by libmicrohttpd, so that a bad address or a
 * port in use gets a clear one-line error ("cannot listen on
 * '127.0.0.1:8080': Address already in use") instead of a bare failure.
 *
 * Accepted forms: "127.0.0.1:8080", "[::1]:8080", "localhost:8080" (a name
 * is resolved, first address wins), "*:8080" or ":8080" (every IPv4
 * interface), "[::]:8080" (every interface, IPv6 and IPv4). Port 0 asks
 * the kernel for a free port; listen_open() then reports the real one.
 */
#ifndef CGISNAP_SERVE_LISTEN_H
#define CGISNAP_SERVE_LISTEN_H

#include <stddef.h>
#include <sys/socket.h>

struct listen_addr {
	struct sockaddr_storage sa;
	socklen_t len;
	char text[80]; /* "127.0.0.1:8080" or "[::1]:8080", for messages and URLs */
};

/* Parse spec into a; -1 with err "invalid listen address 'x' (...)". */
int listen_parse(const char *spec, struct listen_addr *a, char *err);

/* A listening, non-blocking, close-on-exec TCP socket bound to a (with
 * SO_REUSEADDR, so a restart does not wait for TIME_WAIT); a->text is
 * updated with the port actually bound. -1 with err. */
int listen_open(struct listen_addr *a, int backlog, char *err);

/* n listening sockets bound to a as one SO_REUSEPORT group (the kernel
 * spreads connections over them). First a plain socket is bound, so that a
 * port another program holds (even with SO_REUSEPORT) is reported as in
 * use, and so that port 0 picks the group's port; it then makes way for
 * the group. 0, or -1 with err. */
int listen_open_group(struct listen_addr *a, int backlog, int *fds, size_t n, char *err);

#endif
