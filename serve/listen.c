/* serve/listen.c - parse and bind the listening address (see listen.h). */
#include "listen.h"

#include <arpa/inet.h>
#include <stdbool.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "base/log.h"
#include "base/opts.h"

/* Write "ADDR:PORT" of the socket address into a->text. */
static void describe(struct listen_addr *a)
{
	char host[INET6_ADDRSTRLEN];
	if (a->sa.ss_family == AF_INET6) {
		const struct sockaddr_in6 *s6 = (const struct sockaddr_in6 *)&a->sa;
		inet_ntop(AF_INET6, &s6->sin6_addr, host, sizeof host);
		snprintf(a->text, sizeof a->text, "[%s]:%u", host, ntohs(s6->sin6_port));
	} else {
		const struct sockaddr_in *s4 = (const struct sockaddr_in *)&a->sa;
		inet_ntop(AF_INET, &s4->sin_addr, host, sizeof host);
		snprintf(a->text, sizeof a->text, "%s:%u", host, ntohs(s4->sin_port));
	}
}

int listen_parse(const char *spec, struct listen_addr *a, char *err)
{
	char host[256];
	const char *colon, *port_text;
	long port;

	memset(a, 0, sizeof *a);
	if (spec[0] == '[') {
		const char *close = strchr(spec, ']');
		if (!close || close[1] != ':' || (size_t)(close - spec - 1) >= sizeof host)
			goto bad;
		memcpy(host, spec + 1, (size_t)(close - spec - 1));
		host[close - spec - 1] = '\0';
		port_text = close + 2;
	} else {
		colon = strrchr(spec, ':');
		if (!colon || (size_t)(colon - spec) >= sizeof host || memchr(spec, ':', (size_t)(colon - spec)))
			goto bad;
		memcpy(host, spec, (size_t)(colon - spec));
		host[colon - spec] = '\0';
		port_text = colon + 1;
	}
	if (parse_long(port_text, 0, 65535, &port) < 0)
		goto bad;

	if (!host[0] || !strcmp(host, "*")) {
		struct sockaddr_in *s4 = (struct sockaddr_in *)&a->sa;
		s4->sin_family = AF_INET;
		s4->sin_addr.s_addr = htonl(INADDR_ANY);
		s4->sin_port = htons((unsigned short)port);
		a->len = sizeof *s4;
	} else {
		struct addrinfo hints, *res = NULL;
		memset(&hints, 0, sizeof hints);
		hints.ai_family = AF_UNSPEC;
		hints.ai_socktype = SOCK_STREAM;
		hints.ai_flags = AI_PASSIVE | (spec[0] == '[' ? AI_NUMERICHOST : 0);
		int rc = getaddrinfo(host, NULL, &hints, &res);
		if (rc || !res) {
			if (!rc)
				freeaddrinfo(res);
			return err_set(err, "invalid listen address '%s' (%s)", spec,
				       rc ? gai_strerror(rc) : "no address");
		}
		memcpy(&a->sa, res->ai_addr, res->ai_addrlen);
		a->len = res->ai_addrlen;
		freeaddrinfo(res);
		if (a->sa.ss_family == AF_INET6)
			((struct sockaddr_in6 *)&a->sa)->sin6_port = htons((unsigned short)port);
		else
			((struct sockaddr_in *)&a->sa)->sin_port = htons((unsigned short)port);
	}
	describe(a);
	return 0;
bad:
	return err_set(err, "invalid listen address '%s' (expected ADDR:PORT, e.g. 127.0.0.1:8080)",
		       spec);
}

/* A bound, listening socket; reuseport joins a SO_REUSEPORT group. */
static int open_socket(struct listen_addr *a, int backlog, bool reuseport, char *err)
{
	int fd = socket(a->sa.ss_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return err_sys(err, "cannot listen on '%s'", a->text);
	int one = 1;
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
	if (reuseport && setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &one, sizeof one) < 0) {
		err_sys(err, "cannot listen on '%s'", a->text);
		close(fd);
		return -1;
	}
	if (a->sa.ss_family == AF_INET6) {
		/* "[::]" means every interface, IPv4 included. */
		int zero = 0;
		setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof zero);
	}
	if (bind(fd, (struct sockaddr *)&a->sa, a->len) < 0 || listen(fd, backlog) < 0) {
		err_sys(err, "cannot listen on '%s'", a->text);
		close(fd);
		return -1;
	}
	socklen_t len = sizeof a->sa;
	if (getsockname(fd, (struct sockaddr *)&a->sa, &len) == 0) {
		a->len = len;
		describe(a);
	}
	return fd;
}

int listen_open(struct listen_addr *a, int backlog, char *err)
{
	return open_socket(a, backlog, false, err);
}

int listen_open_group(struct listen_addr *a, int backlog, int *fds, size_t n, char *err)
{
	int probe = open_socket(a, backlog, false, err);
	if (probe < 0)
		return -1;
	close(probe);
	for (size_t i = 0; i < n; i++) {
		fds[i] = open_socket(a, backlog, true, err);
		if (fds[i] < 0) {
			while (i--)
				close(fds[i]);
			return -1;
		}
	}
	return 0;
}
