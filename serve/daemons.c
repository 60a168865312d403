/* serve/daemons.c - one libmicrohttpd daemon per thread on a SO_REUSEPORT
 * group of listening sockets, with connection limits counted across them. */
#include "daemons.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "hashmap.h"
#include "log.h"
#include "xalloc.h"

/* Per-connection memory: request line and headers must fit in part of it
 * (libmicrohttpd answers 431/414 beyond). libmicrohttpd clears the pool
 * of every new connection: 16 KiB keeps that cheap and still takes the
 * 8 KiB of headers nginx accepts by default. */
#define CONNECTION_MEMORY (16 * 1024)
#define LISTEN_BACKLOG 1024

struct daemons {
	struct server *s;
	struct MHD_Daemon **d;
	size_t n;
	atomic_long connections;
	pthread_mutex_t ip_lock;
	struct hashmap per_ip; /* client address -> open connections (counted only with --max-per-ip) */
};

static void mhd_logger(void *cls, const char *fmt, va_list ap)
{
	char msg[512];
	(void)cls;
	vsnprintf(msg, sizeof msg, fmt, ap);
	msg[strcspn(msg, "\n")] = '\0';
	log_debug("libmicrohttpd: %s", msg);
}

/* The client's address as text, the key of the per-address count. */
static void addr_key(const struct sockaddr *sa, char *out, size_t len)
{
	out[0] = '\0';
	if (sa->sa_family == AF_INET)
		inet_ntop(AF_INET, &((const struct sockaddr_in *)sa)->sin_addr, out, (socklen_t)len);
	else if (sa->sa_family == AF_INET6)
		inet_ntop(AF_INET6, &((const struct sockaddr_in6 *)sa)->sin6_addr, out, (socklen_t)len);
}

/* libmicrohttpd asks before taking a connection: refused ones are closed
 * at once. The counts grow when the connection starts (notify below). */
static enum MHD_Result accept_policy(void *cls, const struct sockaddr *sa, socklen_t len)
{
	struct daemons *d = cls;
	(void)len;
	if (atomic_load(&d->connections) >= d->s->cfg.max_connections)
		return MHD_NO;
	if (d->s->cfg.max_per_ip <= 0)
		return MHD_YES;
	char key[INET6_ADDRSTRLEN];
	addr_key(sa, key, sizeof key);
	pthread_mutex_lock(&d->ip_lock);
	long open = (long)(intptr_t)hashmap_get(&d->per_ip, key);
	pthread_mutex_unlock(&d->ip_lock);
	return open >= d->s->cfg.max_per_ip ? MHD_NO : MHD_YES;
}

static void count_ip(struct daemons *d, struct MHD_Connection *c, long delta)
{
	const union MHD_ConnectionInfo *ci = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
	char key[INET6_ADDRSTRLEN];
	if (!ci || !ci->client_addr)
		return;
	addr_key(ci->client_addr, key, sizeof key);
	pthread_mutex_lock(&d->ip_lock);
	long open = (long)(intptr_t)hashmap_get(&d->per_ip, key) + delta;
	if (open > 0)
		hashmap_put(&d->per_ip, key, (void *)(intptr_t)open);
	else
		hashmap_remove(&d->per_ip, key);
	pthread_mutex_unlock(&d->ip_lock);
}

static void notify_connection(void *cls, struct MHD_Connection *c, void **socket_context,
			      enum MHD_ConnectionNotificationCode code)
{
	struct daemons *d = cls;
	long delta = code == MHD_CONNECTION_NOTIFY_STARTED ? 1 : -1;
	(void)socket_context;
	atomic_fetch_add(&d->connections, delta);
	if (d->s->cfg.max_per_ip > 0)
		count_ip(d, c, delta);
}

static struct MHD_Daemon *start_one(struct daemons *d, int lfd)
{
	struct server *s = d->s;
	unsigned flags = MHD_USE_EPOLL_INTERNAL_THREAD | MHD_USE_TURBO | MHD_USE_ITC | MHD_USE_ERROR_LOG;
	struct MHD_OptionItem opts[12];
	size_t n = 0;
#define OPT(o, v, p) (opts[n++] = (struct MHD_OptionItem){ (o), (intptr_t)(v), (p) })
	OPT(MHD_OPTION_LISTEN_SOCKET, lfd, NULL);
	OPT(MHD_OPTION_CONNECTION_TIMEOUT, s->cfg.idle_timeout_s, NULL);
	OPT(MHD_OPTION_CONNECTION_LIMIT, s->cfg.max_connections, NULL);
	OPT(MHD_OPTION_CONNECTION_MEMORY_LIMIT, CONNECTION_MEMORY, NULL);
	OPT(MHD_OPTION_URI_LOG_CALLBACK, handler_begin, s);
	OPT(MHD_OPTION_NOTIFY_COMPLETED, handler_completed, s);
	OPT(MHD_OPTION_NOTIFY_CONNECTION, notify_connection, d);
	OPT(MHD_OPTION_END, 0, NULL);
#undef OPT
	return MHD_start_daemon(flags, 0, accept_policy, d, handler_request, s,
				/* First, so that it also hears about the options. */
				MHD_OPTION_EXTERNAL_LOGGER, mhd_logger, NULL,
				MHD_OPTION_ARRAY, opts, MHD_OPTION_END);
}

struct daemons *daemons_start(struct server *s, struct listen_addr *addr, char *err)
{
	struct daemons *d = xcalloc(1, sizeof *d);
	d->s = s;
	d->n = s->cfg.threads > 0 ? (size_t)s->cfg.threads : 1;
	d->d = xcalloc(d->n, sizeof *d->d);
	pthread_mutex_init(&d->ip_lock, NULL);

	int *fds = xcalloc(d->n, sizeof *fds);
	if (listen_open_group(addr, LISTEN_BACKLOG, fds, d->n, err) < 0) {
		free(fds);
		d->n = 0;
		daemons_stop(d, 0);
		return NULL;
	}
	for (size_t i = 0; i < d->n; i++) {
		d->d[i] = start_one(d, fds[i]);
		if (!d->d[i]) {
			for (size_t j = i; j < d->n; j++)
				close(fds[j]);
			err_set(err, "cannot start the HTTP server on '%s'", addr->text);
			free(fds);
			daemons_stop(d, 0);
			return NULL;
		}
	}
	free(fds);
	return d;
}

static long long now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void daemons_stop(struct daemons *d, long long drain_ms)
{
	if (!d)
		return;
	for (size_t i = 0; i < d->n; i++) {
		if (!d->d[i])
			continue;
		MHD_socket lfd = MHD_quiesce_daemon(d->d[i]);
		if (lfd != MHD_INVALID_SOCKET)
			close(lfd);
	}
	long long deadline = now_ms() + drain_ms;
	while (atomic_load(&d->s->inflight) > 0 && now_ms() < deadline) {
		struct timespec ts = { 0, 5 * 1000 * 1000 };
		nanosleep(&ts, NULL);
	}
	for (size_t i = 0; i < d->n; i++)
		if (d->d[i])
			MHD_stop_daemon(d->d[i]);
	hashmap_release(&d->per_ip);
	pthread_mutex_destroy(&d->ip_lock);
	free(d->d);
	free(d);
}
