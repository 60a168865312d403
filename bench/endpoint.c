/* bench/endpoint.c - where the load generator sends its requests
 * (loadgen.h): the URL parsed and its address resolved, one connection
 * tried before a run, and the request text. */
#include "loadgen.h"

#include <errno.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

#include "base/log.h"
#include "base/opts.h"
#include "base/xalloc.h"

#ifndef CGISNAP_VERSION
#define CGISNAP_VERSION "unknown"
#endif

int loadgen_endpoint_parse(struct loadgen_endpoint *e, const char *url, char *err)
{
	memset(e, 0, sizeof *e);
	char *host = NULL, *port = NULL;
	int rc = -1;
	if (strncasecmp(url, "http://", 7))
		return err_set(err, "'%s' is not an http:// URL", url);
	const char *h = url + 7, *path = h + strcspn(h, "/?#");
	if (*path == '?' || *path == '#' || strchr(path, '?') || strchr(path, '#'))
		return err_set(err, "'%s': a server URL has no query or fragment", url);
	if (path == h)
		return err_set(err, "'%s' has no host", url);
	char *authority = xstrndup(h, (size_t)(path - h));
	if (strchr(authority, '@')) {
		err_set(err, "'%s': user names in URLs are not supported", url);
		goto out;
	}
	char *colon;
	if (authority[0] == '[') {
		char *close = strchr(authority, ']');
		if (!close || (close[1] && close[1] != ':')) {
			err_set(err, "'%s' has a bad IPv6 address", url);
			goto out;
		}
		host = xstrndup(authority + 1, (size_t)(close - authority - 1));
		colon = close[1] == ':' ? close + 1 : NULL;
	} else {
		colon = strrchr(authority, ':');
		host = xstrndup(authority, colon ? (size_t)(colon - authority) : strlen(authority));
	}
	long portnum = 80;
	if (colon && parse_long(colon + 1, 1, 65535, &portnum) < 0) {
		err_set(err, "'%s' has a bad port", url);
		goto out;
	}
	if (!*host) {
		err_set(err, "'%s' has no host", url);
		goto out;
	}
	port = xasprintf("%ld", portnum);
	struct addrinfo hints, *res = NULL;
	memset(&hints, 0, sizeof hints);
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	int gai = getaddrinfo(host, port, &hints, &res);
	if (gai) {
		err_set(err, "cannot resolve '%s': %s", host, gai_strerror(gai));
		goto out;
	}
	memcpy(&e->addr, res->ai_addr, res->ai_addrlen);
	e->addrlen = res->ai_addrlen;
	freeaddrinfo(res);
	e->url = xstrdup(url);
	e->host_header = xstrdup(authority);
	size_t plen = strlen(path);
	while (plen && path[plen - 1] == '/')
		plen--;
	e->prefix = xstrndup(path, plen);
	rc = 0;
out:
	free(authority);
	free(host);
	free(port);
	return rc;
}

void loadgen_endpoint_release(struct loadgen_endpoint *e)
{
	free(e->url);
	free(e->host_header);
	free(e->prefix);
	memset(e, 0, sizeof *e);
}

int loadgen_probe(const struct loadgen_endpoint *e, int timeout_ms, char *err)
{
	int fd = socket(e->addr.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return err_sys(err, "cannot create a socket");
	int rc = 0;
	if (connect(fd, (const struct sockaddr *)&e->addr, e->addrlen) < 0) {
		if (errno != EINPROGRESS) {
			rc = err_sys(err, "cannot connect to '%s'", e->url);
			goto out;
		}
		struct pollfd pfd = { fd, POLLOUT, 0 };
		int n;
		do
			n = poll(&pfd, 1, timeout_ms);
		while (n < 0 && errno == EINTR);
		if (n == 0) {
			rc = err_set(err, "cannot connect to '%s': no answer within %d ms", e->url,
				     timeout_ms);
			goto out;
		}
		int so = 0;
		socklen_t len = sizeof so;
		if (n < 0 || getsockopt(fd, SOL_SOCKET, SO_ERROR, &so, &len) < 0) {
			rc = err_sys(err, "cannot connect to '%s'", e->url);
			goto out;
		}
		if (so) {
			errno = so;
			rc = err_sys(err, "cannot connect to '%s'", e->url);
		}
	}
out:
	close(fd);
	return rc;
}

char *loadgen_request(const struct loadgen_endpoint *e, const char *path, bool keepalive)
{
	return xasprintf("GET %s%s HTTP/1.1\r\nHost: %s\r\nUser-Agent: cgisnap-bench/%s\r\n"
			 "Accept: */*\r\n%s\r\n",
			 e->prefix, path, e->host_header, CGISNAP_VERSION,
			 keepalive ? "" : "Connection: close\r\n");
}
