/* fcgi.c - a FastCGI client (the FastCGI 1.0 specification, responder
 * role): php-fpm, or "php-cgi -b ADDR", renders the scripts that the CGI
 * origin would run itself.
 *
 * One request per connection at a time (request id 1), FCGI_KEEP_CONN so
 * that a connection serves many requests; idle connections wait in a
 * pool. A FastCGI server gives each connection a worker until the
 * connection closes, so idle connections must not starve new ones that
 * wait in the server's backlog: while a request on a fresh connection has
 * no answer yet, connections that come free are closed, not pooled. A
 * connection that breaks before the end of a request is replaced once
 * (see RETRY below).
 *
 * A traced worker of cgisnap's own (workers.c) is different: each request
 * has a connection of its own, without FCGI_KEEP_CONN, so that the worker
 * goes back to accept between requests, where the tracer marks the
 * boundary (a one-shot pool); no test connection, no second try (the
 * worker counts connections, and a broken one means a dead worker, which
 * workers.c replaces); and the tracer's pipe is read while the request
 * waits, lest a worker blocked on a full pipe never answer (the side
 * channel).
 */
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "base/clock.h"
#include "base/log.h"
#include "origin/origin_impl.h"
#include "origin/stderrlog.h"
#include "trace/protocol.h"
#include "base/xalloc.h"

#define FCGI_VERSION_1 1
#define FCGI_BEGIN_REQUEST 1
#define FCGI_END_REQUEST 3
#define FCGI_PARAMS 4
#define FCGI_STDIN 5
#define FCGI_STDOUT 6
#define FCGI_STDERR 7
#define FCGI_RESPONDER 1
#define FCGI_KEEP_CONN 1
#define FCGI_REQUEST_COMPLETE 0
#define REQUEST_ID 1
#define RECORD_MAX 65535

struct fcgi_pool {
	pthread_mutex_t lock;
	char *addr;                     /* as the user wrote it, for messages */
	struct sockaddr_storage sa;
	socklen_t salen;
	int *idle;                      /* connections ready for a request */
	size_t nidle, cap;
	int fresh_waiting;              /* requests on new connections not yet answered */
	bool one_shot;                  /* a connection per request, see the top */
};

/* How a request went: RETRY means the connection broke before the end of
 * the request (EOF or reset), which a server does to a kept connection
 * when its worker exits: php-cgi's children leave after
 * PHP_FCGI_MAX_REQUESTS, and one that leaves with our empty FCGI_STDIN
 * record unread resets the connection, losing the end of a response it
 * had written. Pages are GET or HEAD requests, so the render is tried
 * once more on a fresh connection. */
enum { DONE = 0, FAILED = -1, RETRY = -2 };

static int parse_addr(struct fcgi_pool *p, const char *addr, char *err)
{
	const char *path = !strncmp(addr, "unix:", 5) ? addr + 5 : addr[0] == '/' ? addr : NULL;
	if (path) {
		struct sockaddr_un *un = (struct sockaddr_un *)&p->sa;
		if (!*path || strlen(path) >= sizeof un->sun_path)
			return err_set(err, "bad FastCGI address '%s' (socket path empty or too long)", addr);
		un->sun_family = AF_UNIX;
		strcpy(un->sun_path, path);
		p->salen = sizeof *un;
		return 0;
	}

	const char *colon = strrchr(addr, ':');
	if (!colon || colon == addr || !colon[1])
		return err_set(err, "bad FastCGI address '%s' (expected unix:/path or HOST:PORT)", addr);
	char *host = xstrndup(addr, (size_t)(colon - addr));
	if (host[0] == '[' && host[strlen(host) - 1] == ']') {
		memmove(host, host + 1, strlen(host));
		host[strlen(host) - 1] = '\0';
	}
	struct addrinfo hints = { 0 }, *res = NULL;
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = AI_NUMERICSERV;
	int rc = getaddrinfo(host, colon + 1, &hints, &res);
	if (rc) {
		err_set(err, "bad FastCGI address '%s': %s", addr, gai_strerror(rc));
		free(host);
		return -1;
	}
	memcpy(&p->sa, res->ai_addr, res->ai_addrlen);
	p->salen = res->ai_addrlen;
	freeaddrinfo(res);
	free(host);
	return 0;
}

/* Milliseconds left before deadline, at least 0, at most a minute. */
static int ms_left(long long deadline)
{
	long long left = deadline - now_ms();
	return left < 0 ? 0 : left > 60000 ? 60000 : (int)left;
}

/* Name a Unix socket's own end for conn_id (fcgi_side's): the abstract
 * TRACE_CONN_NAME followed by the id, which the server's accept returns as
 * its peer. A name that cannot be had leaves the end unnamed (the trace
 * then never tells the connection's lines). */
static void name_own_end(int fd, unsigned long conn_id)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int n = snprintf(sa.sun_path + 1, sizeof sa.sun_path - 1, TRACE_CONN_NAME "%lu", conn_id);
	bind(fd, (struct sockaddr *)&sa, (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + (size_t)n));
}

/* A new connection, non-blocking; -1 with err. */
static int connect_fresh(struct fcgi_pool *p, const struct fcgi_side *side, long long deadline, char *err)
{
	int fd = socket(p->sa.ss_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return err_sys(err, "cannot make a socket for '%s'", p->addr);
	if (side && side->conn_id && p->sa.ss_family == AF_UNIX)
		name_own_end(fd, side->conn_id);
	for (;;) {
		if (connect(fd, (struct sockaddr *)&p->sa, p->salen) == 0)
			break;
		if (errno == EINTR)
			continue;
		if (errno == EAGAIN && p->sa.ss_family == AF_UNIX && ms_left(deadline) > 0) {
			/* A Unix socket's backlog is full: the server is busy. */
			struct timespec ts = { 0, 5000000 };
			nanosleep(&ts, NULL);
			continue;
		}
		if (errno != EINPROGRESS)
			goto fail;
		struct pollfd pfd = { fd, POLLOUT, 0 };
		int ready = poll(&pfd, 1, ms_left(deadline));
		if (ready < 0 && errno == EINTR)
			continue;
		int soerr = 0;
		socklen_t len = sizeof soerr;
		if (ready == 0)
			errno = ETIMEDOUT;
		else if (ready > 0 && getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &len) == 0)
			errno = soerr;
		if (ready <= 0 || soerr)
			goto fail;
		break;
	}
	if (p->sa.ss_family != AF_UNIX) {
		int one = 1;
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
	}
	return fd;
fail:
	err_sys(err, "cannot connect to FastCGI server '%s'", p->addr);
	close(fd);
	return -1;
}

/* An idle connection the server has not closed, or -1. */
static int take_idle(struct fcgi_pool *p)
{
	for (;;) {
		pthread_mutex_lock(&p->lock);
		int fd = p->nidle ? p->idle[--p->nidle] : -1;
		pthread_mutex_unlock(&p->lock);
		if (fd < 0)
			return -1;
		char c;
		ssize_t r = recv(fd, &c, 1, MSG_PEEK | MSG_DONTWAIT);
		if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return fd;
		close(fd); /* closed by the server, or talking out of turn */
	}
}

static void give_back(struct fcgi_pool *p, int fd)
{
	pthread_mutex_lock(&p->lock);
	if (p->fresh_waiting > 0) {
		pthread_mutex_unlock(&p->lock);
		close(fd);
		return;
	}
	if (p->nidle == p->cap) {
		p->cap = p->cap ? p->cap * 2 : 8;
		p->idle = xrealloc(p->idle, p->cap * sizeof *p->idle);
	}
	p->idle[p->nidle++] = fd;
	pthread_mutex_unlock(&p->lock);
}

static void count_waiting(struct fcgi_pool *p, int delta)
{
	pthread_mutex_lock(&p->lock);
	p->fresh_waiting += delta;
	pthread_mutex_unlock(&p->lock);
}

static void add_record(struct buf *b, int type, const char *data, size_t len)
{
	size_t pad = (8 - len % 8) % 8;
	unsigned char h[8] = { FCGI_VERSION_1, (unsigned char)type, 0, REQUEST_ID,
			       (unsigned char)(len >> 8), (unsigned char)(len & 0xff),
			       (unsigned char)pad, 0 };
	static const char zeros[8];
	buf_add(b, h, sizeof h);
	buf_add(b, data, len);
	buf_add(b, zeros, pad);
}

/* A name-value pair's length: one byte below 128, else four with the
 * top bit set. */
static void add_length(struct buf *b, size_t n)
{
	if (n < 128) {
		buf_addc(b, (char)n);
		return;
	}
	unsigned char l[4] = { (unsigned char)((n >> 24) | 0x80), (unsigned char)(n >> 16),
			       (unsigned char)(n >> 8), (unsigned char)n };
	buf_add(b, l, sizeof l);
}

/* The whole request: BEGIN_REQUEST, the params, an empty STDIN. */
static void build_request(struct buf *req, const struct strlist *env, bool keep)
{
	const char begin[8] = { 0, FCGI_RESPONDER, keep ? FCGI_KEEP_CONN : 0, 0, 0, 0, 0, 0 };
	struct buf params = BUF_INIT;

	add_record(req, FCGI_BEGIN_REQUEST, begin, sizeof begin);
	for (size_t i = 0; i < env->n; i++) {
		const char *s = env->items[i], *eq = strchr(s, '=');
		size_t nlen = (size_t)(eq - s), vlen = strlen(eq + 1);
		add_length(&params, nlen);
		add_length(&params, vlen);
		buf_add(&params, s, nlen);
		buf_add(&params, eq + 1, vlen);
	}
	/* The stream may split anywhere, pairs included. */
	for (size_t off = 0; off < params.len; off += RECORD_MAX) {
		size_t n = params.len - off < RECORD_MAX ? params.len - off : RECORD_MAX;
		add_record(req, FCGI_PARAMS, params.data + off, n);
	}
	add_record(req, FCGI_PARAMS, NULL, 0);
	add_record(req, FCGI_STDIN, NULL, 0);
	buf_release(&params);
}

struct exchange {
	struct fcgi_pool *pool;
	int fd;
	long long deadline;
	long timeout_s;
	size_t max_output;
	struct spill *out;
	struct origin_log *log;
	bool waiting;           /* counted in pool->fresh_waiting until an answer */
	bool complete;          /* END_REQUEST came: the connection can serve again */
	unsigned long app_status; /* END_REQUEST's application status */
	const struct fcgi_side *side; /* NULL: none */
};

/* Wait until the connection is ready for events, or the deadline; the
 * side channel is read meanwhile. As poll: 0 at the deadline. */
static int wait_conn(struct exchange *x, short events)
{
	const struct fcgi_side *side = x->side;
	for (;;) {
		struct pollfd pfd[2] = { { x->fd, events, 0 }, { side ? side->fd : -1, POLLIN, 0 } };
		int ready = poll(pfd, side && side->fd >= 0 ? 2 : 1, ms_left(x->deadline));
		if (ready <= 0 || !pfd[1].revents)
			return ready;
		char chunk[65536];
		ssize_t r = read(side->fd, chunk, sizeof chunk);
		if (r < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		side->feed(side->arg, chunk, r > 0 ? (size_t)r : 0);
		if (r <= 0)
			x->side = side = NULL; /* at its end: the connection alone */
		if (pfd[0].revents)
			return 1;
	}
}

static int timed_out(struct exchange *x, char *err)
{
	err_set(err, "timed out after %ld s", x->timeout_s);
	return FAILED;
}

static int send_all(struct exchange *x, const struct buf *req, char *err)
{
	size_t off = 0;
	while (off < req->len) {
		ssize_t w = send(x->fd, req->data + off, req->len - off, MSG_NOSIGNAL);
		if (w > 0) {
			off += (size_t)w;
			continue;
		}
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
			if (wait_conn(x, POLLOUT) == 0 && !ms_left(x->deadline))
				return timed_out(x, err);
			continue;
		}
		err_sys(err, "cannot send to FastCGI server '%s'", x->pool->addr);
		return RETRY;
	}
	return DONE;
}

/* Read more bytes into in: DONE when some came, else FAILED or RETRY. */
static int receive(struct exchange *x, struct buf *in, char *err)
{
	for (;;) {
		buf_grow(in, 65536);
		ssize_t r = recv(x->fd, in->data + in->len, 65536, 0);
		if (r > 0) {
			in->len += (size_t)r;
			in->data[in->len] = '\0';
			if (x->waiting) {
				count_waiting(x->pool, -1);
				x->waiting = false;
			}
			return DONE;
		}
		if (r == 0) {
			err_set(err, "FastCGI server '%s' closed the connection", x->pool->addr);
			return RETRY;
		}
		if (errno == EINTR)
			continue;
		if (errno != EAGAIN && errno != EWOULDBLOCK) {
			err_sys(err, "cannot read from FastCGI server '%s'", x->pool->addr);
			return RETRY;
		}
		if (wait_conn(x, POLLIN) == 0 && !ms_left(x->deadline))
			return timed_out(x, err);
	}
}

/* One record's content, by type: DONE, or FAILED with err. */
static int handle_record(struct exchange *x, int type, const unsigned char *c, size_t len, char *err)
{
	static const char *const refusals[] = { NULL, "cannot multiplex connections",
						"overloaded", "unknown role" };
	switch (type) {
	case FCGI_STDOUT:
		if (spill_add(x->out, c, len, err) < 0)
			return FAILED;
		if ((unsigned long long)x->out->len > x->max_output) {
			err_set(err, "output over %zu MiB", x->max_output >> 20);
			return FAILED;
		}
		return DONE;
	case FCGI_STDERR:
		origin_log_feed(x->log, (const char *)c, len);
		return DONE;
	case FCGI_END_REQUEST:
		if (len < 8) {
			err_set(err, "bad FastCGI end-of-request record");
			return FAILED;
		}
		x->complete = true;
		unsigned long app = (unsigned long)c[0] << 24 | (unsigned long)c[1] << 16 |
				    (unsigned long)c[2] << 8 | c[3];
		if (c[4] != FCGI_REQUEST_COMPLETE) {
			err_set(err, "FastCGI server refused the request (%s)",
				c[4] < 4 ? refusals[c[4]] : "unknown reason");
			return FAILED;
		}
		/* Not a failure by itself: what the application wrote is the
		 * response; the caller weighs the status. */
		x->app_status = app;
		return DONE;
	default:
		return DONE; /* nothing else is meant for a responder's client */
	}
}

/* Send the request and read records until END_REQUEST. */
static int exchange(struct exchange *x, const struct buf *req, char *err)
{
	struct buf in = BUF_INIT;
	size_t pos = 0;
	int rc = send_all(x, req, err);

	buf_grow(&in, 65536);

	while (rc == DONE && !x->complete) {
		const unsigned char *h = (const unsigned char *)in.data + pos;
		size_t avail = in.len - pos;
		size_t clen = avail >= 8 ? (size_t)h[4] << 8 | h[5] : 0;
		if (avail < 8 || avail < 8 + clen + h[6]) {
			/* Keep the partial record at the start, then read more. */
			memmove(in.data, in.data + pos, avail);
			buf_truncate(&in, avail);
			pos = 0;
			rc = receive(x, &in, err);
			continue;
		}
		if (h[0] != FCGI_VERSION_1) {
			err_set(err, "bad FastCGI record from '%s'", x->pool->addr);
			rc = FAILED;
			break;
		}
		if (((int)h[2] << 8 | h[3]) == REQUEST_ID)
			rc = handle_record(x, h[1], h + 8, clen, err);
		pos += 8 + clen + h[6];
	}
	buf_release(&in);
	return rc;
}

int fcgi_run(struct fcgi_pool *p, const char *target, const struct strlist *env,
	     long timeout_s, size_t max_output, struct spill *out, unsigned long *app_status,
	     char *err)
{
	return fcgi_run_side(p, target, env, timeout_s, max_output, out, app_status, NULL, err);
}

int fcgi_run_side(struct fcgi_pool *p, const char *target, const struct strlist *env,
		  long timeout_s, size_t max_output, struct spill *out, unsigned long *app_status,
		  const struct fcgi_side *side, char *err)
{
	struct buf req = BUF_INIT;
	struct origin_log log;
	long long deadline = now_ms() + timeout_s * 1000LL;
	int rc = FAILED;

	*app_status = 0;
	origin_log_init(&log, target);
	build_request(&req, env, !p->one_shot);
	bool gone = false;
	for (int attempt = 0; attempt < 2; attempt++) {
		struct exchange x = { p, -1, deadline, timeout_s, max_output, out, &log,
				      false, false, 0, side };
		x.fd = attempt == 0 && !p->one_shot ? take_idle(p) : -1;
		if (x.fd < 0) {
			if ((x.fd = connect_fresh(p, side, deadline, err)) < 0) {
				rc = FAILED;
				gone = true;
				break;
			}
			count_waiting(p, 1);
			x.waiting = true;
		}
		rc = exchange(&x, &req, err);
		if (x.waiting)
			count_waiting(p, -1);
		/* After END_REQUEST the connection is ready for another
		 * request, even when this one failed. */
		if (x.complete && !p->one_shot)
			give_back(p, x.fd);
		else
			close(x.fd);
		*app_status = x.app_status;
		if (rc == RETRY && p->one_shot)
			rc = FAILED;
		if (rc != RETRY)
			break;
		gone = attempt == 1; /* broken on a fresh connection too */
		spill_reset(out);
	}
	origin_log_flush(&log);
	buf_release(&req);
	return rc == DONE ? 0 : gone ? FCGI_GONE : -1;
}

struct fcgi_pool *fcgi_open_one_shot(const char *addr, char *err)
{
	struct fcgi_pool *p = xcalloc(1, sizeof *p);
	pthread_mutex_init(&p->lock, NULL);
	p->addr = xstrdup(addr);
	p->one_shot = true;
	if (parse_addr(p, addr, err) < 0) {
		fcgi_close(p);
		return NULL;
	}
	return p;
}

struct fcgi_pool *fcgi_open(const char *addr, char *err)
{
	struct fcgi_pool *p = xcalloc(1, sizeof *p);
	pthread_mutex_init(&p->lock, NULL);
	p->addr = xstrdup(addr);
	if (parse_addr(p, addr, err) < 0)
		goto fail;
	/* The server must answer now, not at the first page. */
	int fd = connect_fresh(p, NULL, now_ms() + 5000, err);
	if (fd < 0)
		goto fail;
	close(fd);
	return p;
fail:
	fcgi_close(p);
	return NULL;
}

void fcgi_close(struct fcgi_pool *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->nidle; i++)
		close(p->idle[i]);
	free(p->idle);
	free(p->addr);
	pthread_mutex_destroy(&p->lock);
	free(p);
}
