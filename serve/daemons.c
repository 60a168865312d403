/* serve/daemons.c - one libmicrohttpd daemon per thread on a SO_REUSEPORT
 * group of listening sockets, with connection limits counted across them,
 * and the table of open connections that bounds slow clients. */
#include "daemons.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "base/clock.h"
#include "base/hashmap.h"
#include "base/log.h"
#include "base/xalloc.h"

/* Per-connection memory: request line and headers must fit in part of it
 * (libmicrohttpd answers 431/414 beyond). libmicrohttpd clears the pool
 * of every new connection: 16 KiB keeps that cheap and still takes the
 * 8 KiB of headers nginx accepts by default. */
#define CONNECTION_MEMORY (16 * 1024)
#define LISTEN_BACKLOG 1024
#define HEAD_SEEN_SLACK_MS 50

enum conn_state {
	CONN_HEAD, /* reading a request head (the first, or after a response) */
	CONN_BUSY, /* a request is being answered: never cut by the table */
};

/* One open connection, from libmicrohttpd's STARTED notice to CLOSED.
 * Linked into its worker's list; state and since change on the request
 * path without the lock (atomics), the links only under it. */
struct conn {
	struct conn *prev, *next;
	struct worker *w;
	int fd;
	bool shut;               /* shutdown() already sent (under the lock) */
	atomic_bool keepalive;   /* since: end of a response, not the connection's start */
	atomic_int state;
	atomic_llong since;      /* ms: when the state was entered */
	long long head_seen;     /* ms: when the next head was first seen coming after a
				  * response (daemons_tick, under the lock); 0: not yet */
};

/* A daemon and the connections it owns. */
struct worker {
	struct daemons *d;
	struct MHD_Daemon *mhd;
	pthread_mutex_t lock;
	struct conn *head;
};

struct daemons {
	struct server *s;
	struct worker *w;
	size_t n;
	long headroom;           /* connections beyond the limit while victims close */
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

/* Cut the connection not being answered whose state is oldest, to make
 * room for a new one. shutdown(), not close(): the descriptor stays
 * libmicrohttpd's, which sees the end of the stream and closes it (and
 * tells notify_connection, which unlinks it under the same lock, so the
 * descriptor cannot be closed and reused while one is shutting it). */
static bool drop_oldest_idle(struct daemons *d)
{
	struct conn *victim = NULL;
	long long oldest = 0;
	size_t at = 0;
	for (size_t i = 0; i < d->n; i++) {
		pthread_mutex_lock(&d->w[i].lock);
		for (struct conn *c = d->w[i].head; c; c = c->next) {
			long long since = atomic_load_explicit(&c->since, memory_order_relaxed);
			if (c->shut || atomic_load_explicit(&c->state, memory_order_relaxed) == CONN_BUSY)
				continue;
			if (!victim || since < oldest) {
				victim = c;
				oldest = since;
				at = i;
			}
		}
		pthread_mutex_unlock(&d->w[i].lock);
	}
	if (!victim)
		return false;
	/* The victim may have closed in between: look for it again. */
	bool done = false;
	pthread_mutex_lock(&d->w[at].lock);
	for (struct conn *c = d->w[at].head; c; c = c->next) {
		if (c == victim && !c->shut && atomic_load(&c->state) != CONN_BUSY) {
			shutdown(c->fd, SHUT_RDWR);
			c->shut = true;
			done = true;
			break;
		}
	}
	pthread_mutex_unlock(&d->w[at].lock);
	if (done)
		log_debug("connection table full: dropped the oldest idle connection");
	return done;
}

/* libmicrohttpd asks before taking a connection: refused ones are closed
 * at once. The counts grow when the connection starts (notify below).
 * A full table makes room by cutting the oldest connection that is not
 * being answered (idle keep-alive, or a slow request head): a flood of
 * connections then pushes out its own oldest, not the new client. */
static enum MHD_Result accept_policy(void *cls, const struct sockaddr *sa, socklen_t len)
{
	struct worker *w = cls;
	struct daemons *d = w->d;
	(void)len;
	if (d->s->cfg.max_per_ip > 0) {
		char key[INET6_ADDRSTRLEN];
		addr_key(sa, key, sizeof key);
		pthread_mutex_lock(&d->ip_lock);
		long open = (long)(intptr_t)hashmap_get(&d->per_ip, key);
		pthread_mutex_unlock(&d->ip_lock);
		if (open >= d->s->cfg.max_per_ip)
			return MHD_NO;
	}
	long open = atomic_load(&d->connections);
	if (open < d->s->cfg.max_connections)
		return MHD_YES;
	if (open >= d->s->cfg.max_connections + d->headroom)
		return MHD_NO;
	return drop_oldest_idle(d) ? MHD_YES : MHD_NO;
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
	struct worker *w = cls;
	struct daemons *d = w->d;
	long delta = code == MHD_CONNECTION_NOTIFY_STARTED ? 1 : -1;
	atomic_fetch_add(&d->connections, delta);
	if (d->s->cfg.max_per_ip > 0)
		count_ip(d, c, delta);

	struct conn *k = *socket_context;
	if (code == MHD_CONNECTION_NOTIFY_STARTED) {
		const union MHD_ConnectionInfo *ci = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
		k = xcalloc(1, sizeof *k);
		k->w = w;
		k->fd = ci ? ci->connect_fd : -1;
		k->shut = k->fd < 0;
		atomic_init(&k->keepalive, false);
		atomic_init(&k->state, CONN_HEAD);
		atomic_init(&k->since, now_ms_coarse());
		pthread_mutex_lock(&w->lock);
		k->next = w->head;
		if (w->head)
			w->head->prev = k;
		w->head = k;
		pthread_mutex_unlock(&w->lock);
		*socket_context = k;
		return;
	}
	if (!k)
		return;
	pthread_mutex_lock(&w->lock);
	if (k->prev)
		k->prev->next = k->next;
	else
		w->head = k->next;
	if (k->next)
		k->next->prev = k->prev;
	pthread_mutex_unlock(&w->lock);
	*socket_context = NULL;
	free(k);
}

static struct conn *conn_of(struct MHD_Connection *c)
{
	const union MHD_ConnectionInfo *ci = MHD_get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
	return ci ? ci->socket_context : NULL;
}

void daemons_request_busy(struct MHD_Connection *c)
{
	struct conn *k = conn_of(c);
	if (k)
		atomic_store_explicit(&k->state, CONN_BUSY, memory_order_relaxed);
}

void daemons_request_done(struct MHD_Connection *c)
{
	struct conn *k = conn_of(c);
	if (!k)
		return;
	/* Under the lock, so that the tick never sees the new state with
	 * the last head's data taken for the next one's. */
	pthread_mutex_lock(&k->w->lock);
	k->head_seen = 0;
	atomic_store_explicit(&k->since, now_ms_coarse(), memory_order_relaxed);
	atomic_store_explicit(&k->keepalive, true, memory_order_relaxed);
	atomic_store_explicit(&k->state, CONN_HEAD, memory_order_relaxed);
	pthread_mutex_unlock(&k->w->lock);
}

/* When a kept-alive connection's next head began coming, as near as the
 * kernel says (the last data it received, told by the tick that first
 * sees it: at most a tick late); 0 while nothing came since the
 * response ended at since. libmicrohttpd reads the bytes at once and
 * tells nothing until the head is whole. */
static long long next_head_seen(struct conn *k, long long now, long long since)
{
	if (k->head_seen)
		return k->head_seen;
	struct tcp_info ti;
	socklen_t len = sizeof ti;
	if (getsockopt(k->fd, IPPROTO_TCP, TCP_INFO, &ti, &len) < 0 || len < sizeof ti)
		return 0;
	/* The answered request's own bytes came just before since: the
	 * clocks' grains (a jiffy, a coarse ms) must not make them the next
	 * head's. A later byte of a trickled head is seen by a later tick. */
	long long last = now - (long long)ti.tcpi_last_data_recv;
	if (last > since + HEAD_SEEN_SLACK_MS)
		k->head_seen = last;
	return k->head_seen;
}

void daemons_tick(struct daemons *d)
{
	const struct serve_config *cfg = &d->s->cfg;
	long long now = now_ms_coarse();
	long long head = cfg->header_timeout_s * 1000LL;
	/* After a response the client may idle (libmicrohttpd closes it
	 * after --idle-timeout of silence); once its next head starts
	 * coming, that head has --header-timeout, as the first had: trickled
	 * bytes keep the idle timer from firing but not this one. Should
	 * the kernel not say when data came, idle and header time in all. */
	long long after_response = (cfg->idle_timeout_s + cfg->header_timeout_s) * 1000LL;
	size_t cut = 0;
	for (size_t i = 0; i < d->n; i++) {
		struct worker *w = &d->w[i];
		pthread_mutex_lock(&w->lock);
		for (struct conn *k = w->head; k; k = k->next) {
			if (k->shut || atomic_load_explicit(&k->state, memory_order_relaxed) == CONN_BUSY)
				continue;
			long long since = atomic_load_explicit(&k->since, memory_order_relaxed);
			bool kept = atomic_load_explicit(&k->keepalive, memory_order_relaxed);
			long long seen = kept ? next_head_seen(k, now, since) : 0;
			if (seen ? now - seen > head : now - since > (kept ? after_response : head)) {
				shutdown(k->fd, SHUT_RDWR);
				k->shut = true;
				cut++;
			}
		}
		pthread_mutex_unlock(&w->lock);
	}
	if (cut)
		log_debug("closed %zu connection%s whose request head took over %ld s", cut,
			  cut == 1 ? "" : "s", cfg->header_timeout_s);
}

static struct MHD_Daemon *start_one(struct worker *w, int lfd)
{
	struct server *s = w->d->s;
	unsigned flags = MHD_USE_EPOLL_INTERNAL_THREAD | MHD_USE_TURBO | MHD_USE_ITC | MHD_USE_ERROR_LOG;
	/* Renders suspend their connection (fallback.h) so that the worker
	 * goes on serving files. */
	if (s->fallback)
		flags |= MHD_ALLOW_SUSPEND_RESUME;
	struct MHD_OptionItem opts[12];
	size_t n = 0;
#define OPT(o, v, p) (opts[n++] = (struct MHD_OptionItem){ (o), (intptr_t)(v), (p) })
	OPT(MHD_OPTION_LISTEN_SOCKET, lfd, NULL);
	OPT(MHD_OPTION_CONNECTION_TIMEOUT, s->cfg.idle_timeout_s, NULL);
	/* The limit is ours (accept_policy); libmicrohttpd's leaves room
	 * for the connections being cut to make space. */
	OPT(MHD_OPTION_CONNECTION_LIMIT, s->cfg.max_connections + w->d->headroom, NULL);
	OPT(MHD_OPTION_CONNECTION_MEMORY_LIMIT, CONNECTION_MEMORY, NULL);
	OPT(MHD_OPTION_URI_LOG_CALLBACK, handler_begin, s);
	OPT(MHD_OPTION_NOTIFY_COMPLETED, handler_completed, s);
	OPT(MHD_OPTION_NOTIFY_CONNECTION, notify_connection, w);
	OPT(MHD_OPTION_END, 0, NULL);
#undef OPT
	return MHD_start_daemon(flags, 0, accept_policy, w, handler_request, s,
				/* First, so that it also hears about the options. */
				MHD_OPTION_EXTERNAL_LOGGER, mhd_logger, NULL,
				MHD_OPTION_ARRAY, opts, MHD_OPTION_END);
}

long daemons_headroom(long max_connections)
{
	return max_connections / 8 + 16;
}

struct daemons *daemons_start(struct server *s, struct listen_addr *addr, char *err)
{
	struct daemons *d = xcalloc(1, sizeof *d);
	d->s = s;
	d->n = s->cfg.threads > 0 ? (size_t)s->cfg.threads : 1;
	d->headroom = daemons_headroom(s->cfg.max_connections);
	d->w = xcalloc(d->n, sizeof *d->w);
	for (size_t i = 0; i < d->n; i++) {
		d->w[i].d = d;
		pthread_mutex_init(&d->w[i].lock, NULL);
	}
	pthread_mutex_init(&d->ip_lock, NULL);

	int *fds = xcalloc(d->n, sizeof *fds);
	if (listen_open_group(addr, LISTEN_BACKLOG, fds, d->n, err) < 0) {
		free(fds);
		daemons_stop(d);
		return NULL;
	}
	for (size_t i = 0; i < d->n; i++) {
		d->w[i].mhd = start_one(&d->w[i], fds[i]);
		if (!d->w[i].mhd) {
			for (size_t j = i; j < d->n; j++)
				close(fds[j]);
			err_set(err, "cannot start the HTTP server on '%s'", addr->text);
			free(fds);
			daemons_stop(d);
			return NULL;
		}
	}
	free(fds);
	return d;
}

void daemons_drain(struct daemons *d, long long drain_ms)
{
	if (!d)
		return;
	for (size_t i = 0; i < d->n; i++) {
		if (!d->w[i].mhd)
			continue;
		MHD_socket lfd = MHD_quiesce_daemon(d->w[i].mhd);
		if (lfd != MHD_INVALID_SOCKET)
			close(lfd);
	}
	long long deadline = now_ms_coarse() + drain_ms;
	while (atomic_load(&d->s->inflight) > 0 && now_ms_coarse() < deadline) {
		struct timespec ts = { 0, 5 * 1000 * 1000 };
		nanosleep(&ts, NULL);
	}
}

void daemons_stop(struct daemons *d)
{
	if (!d)
		return;
	for (size_t i = 0; i < d->n; i++)
		if (d->w[i].mhd)
			MHD_stop_daemon(d->w[i].mhd);
	for (size_t i = 0; i < d->n; i++)
		pthread_mutex_destroy(&d->w[i].lock);
	hashmap_release(&d->per_ip);
	pthread_mutex_destroy(&d->ip_lock);
	free(d->w);
	free(d);
}
