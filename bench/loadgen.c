/* bench/loadgen.c - the epoll load generator (loadgen.h): the run, its
 * threads and their connections. Where requests go is endpoint.c's. */
#include "loadgen.h"

#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <unistd.h>

#include "httpresp.h"
#include "base/log.h"
#include "base/xalloc.h"

#define READ_BUF (64 * 1024)
#define MAX_EVENTS 512
/* How often a thread looks for requests past their timeout. */
#define TIMEOUT_SCAN_NS (100 * 1000 * 1000LL)

long long loadgen_failed(const struct loadgen_result *r)
{
	return r->failed_connect + r->failed_receive + r->failed_length + r->failed_exceptions;
}

/* the run */

/* Monotonic time in nanoseconds. */
static int64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* CPU time (user + system) the calling thread used so far, in nanoseconds. */
static int64_t thread_cpu_ns(void)
{
	struct rusage ru;
	if (getrusage(RUSAGE_THREAD, &ru) < 0)
		return 0;
	return ((int64_t)ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000000LL +
	       ((int64_t)ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1000LL;
}

/* C_CLOSING: the response to a "Connection: close" request is complete;
 * like ab, the request ends when the server has closed the connection. */
enum conn_state { C_IDLE, C_CONNECTING, C_WRITING, C_READING, C_CLOSING, C_RESTART, C_DONE };
enum failure { F_CONNECT, F_RECEIVE, F_EXCEPTION, F_TIMEOUT };

struct conn {
	int fd;
	enum conn_state state;
	uint32_t events;     /* what epoll watches for fd (0: not added) */
	size_t path;         /* index of the request being made */
	size_t written;
	bool reused;         /* fd already carried a complete response */
	bool retried;        /* this request was resent after a keep-alive close */
	int64_t start_ns, deadline_ns;
	struct httpresp resp;
};

/* What the threads of one run share. */
struct shared {
	const struct loadgen_config *cfg;
	char **requests;     /* the request bytes per path */
	size_t *request_len;
	atomic_llong issued; /* requests handed out so far */
	atomic_llong *first_len; /* per path: body length of its first response, -1 */
	int64_t t0_ns, end_ns; /* end_ns: 0 without a duration */
	pthread_mutex_t failure_lock;
	char first_failure[160];
};

struct worker {
	struct shared *sh;
	pthread_t tid;
	bool started;
	int ep;
	struct conn *conns;
	long nconns, active;
	/* Connections whose request failed: their next request starts from the
	 * main loop. A connection re-queued while the queue is being worked
	 * through may appear twice in the array: room for 2 * nconns. */
	struct conn **restart;
	size_t nrestart;
	char *rbuf;
	struct loadgen_result *stats; /* this thread's counts (its own allocation) */
	int64_t finished_ns;
	double cpu;
};

/* Is it time to hand out no more requests (stop flag, end of the duration)? */
static bool stopping(struct worker *w)
{
	const struct loadgen_config *cfg = w->sh->cfg;
	if (cfg->stop && *cfg->stop)
		return true;
	return w->sh->end_ns && now_ns() >= w->sh->end_ns;
}

/* Remember the first failure of the run, for the report. */
static void note_failure(struct worker *w, const char *what, const char *detail)
{
	struct shared *sh = w->sh;
	pthread_mutex_lock(&sh->failure_lock);
	if (!sh->first_failure[0])
		snprintf(sh->first_failure, sizeof sh->first_failure, "%s: %s", what, detail);
	pthread_mutex_unlock(&sh->failure_lock);
}

/* Close c's connection, if any; c itself stays usable. */
static void conn_close(struct conn *c)
{
	if (c->fd >= 0)
		close(c->fd); /* also leaves the epoll set */
	c->fd = -1;
	c->events = 0;
	c->reused = false;
}

/* Make epoll watch c->fd for events (adding it the first time). */
static int watch(struct worker *w, struct conn *c, uint32_t events)
{
	if (c->events == events)
		return 0;
	struct epoll_event ev = { .events = events, .data.ptr = c };
	int op = c->events ? EPOLL_CTL_MOD : EPOLL_CTL_ADD;
	if (epoll_ctl(w->ep, op, c->fd, &ev) < 0)
		return -1;
	c->events = events;
	return 0;
}

/* The request on c failed: count it, drop the connection and queue c to
 * start the next request from the main loop (never recursively). */
static void fail_request(struct worker *w, struct conn *c, enum failure f, const char *detail)
{
	struct loadgen_result *s = w->stats;
	switch (f) {
	case F_CONNECT:
		s->failed_connect++;
		note_failure(w, "connect", detail);
		break;
	case F_RECEIVE:
		s->failed_receive++;
		note_failure(w, "receive", detail);
		break;
	case F_TIMEOUT:
		s->timeouts++;
		s->failed_exceptions++;
		note_failure(w, "exception", detail);
		break;
	case F_EXCEPTION:
		s->failed_exceptions++;
		note_failure(w, "exception", detail);
		break;
	}
	conn_close(c);
	c->state = C_RESTART;
	w->restart[w->nrestart++] = c;
}

static void do_write(struct worker *w, struct conn *c);

/* Open a new connection for c's request. */
static void open_conn(struct worker *w, struct conn *c)
{
	const struct loadgen_endpoint *e = w->sh->cfg->endpoint;
	c->fd = socket(e->addr.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (c->fd < 0) {
		fail_request(w, c, F_CONNECT, strerror(errno));
		return;
	}
	c->reused = false;
	c->events = 0;
	w->stats->connections++;
	int one = 1;
	setsockopt(c->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
	if (connect(c->fd, (const struct sockaddr *)&e->addr, e->addrlen) == 0) {
		c->state = C_WRITING;
		do_write(w, c);
		return;
	}
	if (errno != EINPROGRESS) {
		fail_request(w, c, F_CONNECT, strerror(errno));
		return;
	}
	c->state = C_CONNECTING;
	if (watch(w, c, EPOLLOUT) < 0)
		fail_request(w, c, F_EXCEPTION, strerror(errno));
}

/* Send c's request: on its kept-alive connection, or a new one. */
static void begin_request(struct worker *w, struct conn *c)
{
	c->start_ns = now_ns();
	c->deadline_ns = c->start_ns + (int64_t)(w->sh->cfg->timeout_s * 1e9);
	c->written = 0;
	httpresp_reset(&c->resp);
	if (c->fd >= 0) {
		c->state = C_WRITING;
		do_write(w, c);
	} else {
		open_conn(w, c);
	}
}

/* Hand c the next request, or retire it when the run has enough. */
static void next_request(struct worker *w, struct conn *c)
{
	const struct loadgen_config *cfg = w->sh->cfg;
	c->retried = false;
	if (!stopping(w)) {
		long long n = atomic_fetch_add_explicit(&w->sh->issued, 1, memory_order_relaxed);
		if (cfg->requests <= 0 || n < cfg->requests) {
			c->path = (size_t)(n % (long long)cfg->npaths);
			begin_request(w, c);
			return;
		}
	}
	conn_close(c);
	c->state = C_DONE;
	w->active--;
}

/* The server closed a kept-alive connection before answering: the request
 * goes again on a fresh connection, once. */
static bool retry_on_new_connection(struct worker *w, struct conn *c)
{
	if (!c->reused || c->retried || c->resp.total_bytes)
		return false;
	c->retried = true;
	conn_close(c);
	begin_request(w, c);
	return true;
}

/* Write (the rest of) c's request, then wait for the response. */
static void do_write(struct worker *w, struct conn *c)
{
	const char *req = w->sh->requests[c->path];
	size_t len = w->sh->request_len[c->path];
	while (c->written < len) {
		ssize_t n = send(c->fd, req + c->written, len - c->written, MSG_NOSIGNAL);
		if (n > 0) {
			c->written += (size_t)n;
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN) {
			if (watch(w, c, EPOLLOUT) < 0)
				fail_request(w, c, F_EXCEPTION, strerror(errno));
			return;
		}
		if (retry_on_new_connection(w, c))
			return;
		fail_request(w, c, F_EXCEPTION, n < 0 ? strerror(errno) : "write returned 0");
		return;
	}
	c->state = C_READING;
	if (watch(w, c, EPOLLIN) < 0)
		fail_request(w, c, F_EXCEPTION, strerror(errno));
}

/* c's response is complete; reusable says whether the connection may
 * carry the next request. */
static void complete(struct worker *w, struct conn *c, bool reusable)
{
	struct loadgen_result *s = w->stats;
	const struct httpresp *r = &c->resp;
	int64_t t = now_ns();
	uint64_t us = (uint64_t)((t - c->start_ns) / 1000);
	histogram_add(&s->latency, us);
	s->complete++;
	if (s->paths) {
		s->paths[c->path].complete++;
		histogram_add(&s->paths[c->path].latency, us);
	}
	s->bytes_total += r->total_bytes;
	s->bytes_body += r->body_bytes;
	if (r->status < 200 || r->status > 299)
		s->non_2xx++;
	atomic_llong *first = &w->sh->first_len[c->path];
	long long want = atomic_load_explicit(first, memory_order_relaxed);
	if (want < 0 && atomic_compare_exchange_strong(first, &want, r->body_bytes))
		want = r->body_bytes;
	if (want != r->body_bytes)
		s->failed_length++;
	if (reusable && w->sh->cfg->keepalive && r->keep_alive)
		c->reused = true;
	else
		conn_close(c);
	next_request(w, c);
}

/* read_conn's "nothing to read yet": wait for the next event. */
#define READ_LATER (-2)

/* One read of c's socket into w->rbuf, EINTR retried: the bytes read, 0
 * at its end, -1 on an error, or READ_LATER. */
static ssize_t read_conn(struct worker *w, struct conn *c)
{
	ssize_t n;
	do
		n = read(c->fd, w->rbuf, READ_BUF);
	while (n < 0 && errno == EINTR);
	return n < 0 && errno == EAGAIN ? READ_LATER : n;
}

/* After a complete response without keep-alive: wait for the server to
 * close, reading (and dropping) anything it still sends. */
static void do_closing(struct worker *w, struct conn *c)
{
	for (;;) {
		ssize_t n = read_conn(w, c);
		if (n == READ_LATER)
			return;
		if (n <= 0) {
			/* Closed (or reset: the response was whole all the same). */
			complete(w, c, false);
			return;
		}
	}
}

/* Read what the server sent for c's request and act on the response. */
static void do_read(struct worker *w, struct conn *c)
{
	for (;;) {
		ssize_t n = read_conn(w, c);
		if (n == READ_LATER)
			return;
		if (n <= 0) {
			if (retry_on_new_connection(w, c))
				return;
			if (n == 0 && httpresp_eof(&c->resp) == HTTPRESP_DONE) {
				complete(w, c, false);
				return;
			}
			fail_request(w, c, F_RECEIVE, n < 0 ? strerror(errno) : c->resp.error);
			return;
		}
		size_t used = 0;
		int r = httpresp_feed(&c->resp, w->rbuf, (size_t)n, &used);
		if (r == HTTPRESP_DONE) {
			if (!w->sh->cfg->keepalive && !c->resp.keep_alive) {
				c->state = C_CLOSING;
				do_closing(w, c);
				return;
			}
			/* Bytes after the response: the server sent more than one
			 * answer; do not trust the connection further. */
			complete(w, c, used == (size_t)n);
			return;
		}
		if (r == HTTPRESP_ERROR) {
			fail_request(w, c, F_RECEIVE, c->resp.error);
			return;
		}
		if (n < READ_BUF)
			return; /* level-triggered: epoll says when there is more */
	}
}

/* epoll says c's socket is ready: move its request on. */
static void on_event(struct worker *w, struct conn *c)
{
	switch (c->state) {
	case C_CONNECTING: {
		int so = 0;
		socklen_t len = sizeof so;
		if (getsockopt(c->fd, SOL_SOCKET, SO_ERROR, &so, &len) < 0)
			so = errno;
		if (so) {
			fail_request(w, c, F_CONNECT, strerror(so));
			return;
		}
		c->state = C_WRITING;
		do_write(w, c);
		return;
	}
	case C_WRITING:
		do_write(w, c);
		return;
	case C_READING:
		do_read(w, c);
		return;
	case C_CLOSING:
		do_closing(w, c);
		return;
	default:
		return;
	}
}

/* Fail the requests past their deadline (and end the waits for a close). */
static void check_timeouts(struct worker *w, int64_t now)
{
	for (long i = 0; i < w->nconns; i++) {
		struct conn *c = &w->conns[i];
		if (now <= c->deadline_ns)
			continue;
		if (c->state == C_CLOSING)
			complete(w, c, false); /* whole, but the server never closed */
		else if (c->state == C_CONNECTING || c->state == C_WRITING || c->state == C_READING)
			fail_request(w, c, F_TIMEOUT, "no answer within the timeout");
	}
}

/* One client thread: its connections' event loop until the run ends. */
static void *worker_main(void *arg)
{
	struct worker *w = arg;
	struct shared *sh = w->sh;
	struct epoll_event events[MAX_EVENTS];
	int64_t cpu0 = thread_cpu_ns(), wall0 = now_ns();
	int64_t next_scan = wall0 + TIMEOUT_SCAN_NS;

	for (long i = 0; i < w->nconns; i++)
		w->restart[w->nrestart++] = &w->conns[i];
	while (w->active > 0) {
		/* Start the requests of connections that are free (at first all
		 * of them, then those whose request failed). */
		size_t pending = w->nrestart;
		for (size_t i = 0; i < pending; i++)
			next_request(w, w->restart[i]);
		memmove(w->restart, w->restart + pending, (w->nrestart - pending) * sizeof *w->restart);
		w->nrestart -= pending;
		if (w->active <= 0)
			break;

		int64_t now = now_ns();
		if ((sh->cfg->stop && *sh->cfg->stop) || (sh->end_ns && now >= sh->end_ns))
			break;
		int64_t wake = next_scan;
		if (sh->end_ns && sh->end_ns < wake)
			wake = sh->end_ns;
		int timeout_ms = w->nrestart ? 0 : (int)((wake - now + 999999) / 1000000);
		if (timeout_ms < 0)
			timeout_ms = 0;
		int n = epoll_wait(w->ep, events, MAX_EVENTS, timeout_ms);
		for (int i = 0; i < n; i++)
			on_event(w, events[i].data.ptr);
		now = now_ns();
		if (now >= next_scan) {
			check_timeouts(w, now);
			next_scan = now + TIMEOUT_SCAN_NS;
		}
	}
	w->finished_ns = now_ns();
	int64_t wall = w->finished_ns - wall0;
	w->cpu = wall > 0 ? (double)(thread_cpu_ns() - cpu0) / (double)wall : 0;
	for (long i = 0; i < w->nconns; i++)
		conn_close(&w->conns[i]);
	return NULL;
}

/* Add one thread's counts and latencies to the run's. */
static void add_counts(struct loadgen_result *into, const struct loadgen_result *from)
{
	into->complete += from->complete;
	into->failed_connect += from->failed_connect;
	into->failed_receive += from->failed_receive;
	into->failed_length += from->failed_length;
	into->failed_exceptions += from->failed_exceptions;
	into->timeouts += from->timeouts;
	into->non_2xx += from->non_2xx;
	into->bytes_total += from->bytes_total;
	into->bytes_body += from->bytes_body;
	into->connections += from->connections;
	histogram_merge(&into->latency, &from->latency);
	for (size_t i = 0; into->paths && i < into->npaths; i++) {
		into->paths[i].complete += from->paths[i].complete;
		histogram_merge(&into->paths[i].latency, &from->paths[i].latency);
	}
}

bool loadgen_thread_saturated(double cpu)
{
	return cpu >= LOADGEN_CPU_WARN;
}

void loadgen_result_release(struct loadgen_result *res)
{
	free(res->paths);
	res->paths = NULL;
	res->npaths = 0;
}

/* Zeroed per-path results for a run of npaths, or NULL past the limit.
 * calloc's zeroes are empty histograms (histogram_init clears them), and
 * untouched pages of a large allocation cost no memory. */
static struct loadgen_path_result *alloc_paths(size_t npaths)
{
	return npaths <= LOADGEN_PATHS_MAX ? xcalloc(npaths, sizeof(struct loadgen_path_result)) : NULL;
}

int loadgen_run(const struct loadgen_config *cfg, struct loadgen_result *res, char *err)
{
	loadgen_result_release(res);
	memset(res, 0, sizeof *res);
	histogram_init(&res->latency);
	if (!cfg->npaths || cfg->concurrency < 1)
		return err_set(err, "nothing to request");
	long nthreads = cfg->threads < 1 ? 1 : cfg->threads;
	if (nthreads > cfg->concurrency)
		nthreads = cfg->concurrency;
	if (nthreads > LOADGEN_MAX_THREADS)
		nthreads = LOADGEN_MAX_THREADS;

	struct shared sh;
	memset(&sh, 0, sizeof sh);
	sh.cfg = cfg;
	sh.requests = xcalloc(cfg->npaths, sizeof *sh.requests);
	sh.request_len = xcalloc(cfg->npaths, sizeof *sh.request_len);
	sh.first_len = xcalloc(cfg->npaths, sizeof *sh.first_len);
	for (size_t i = 0; i < cfg->npaths; i++) {
		sh.requests[i] = loadgen_request(cfg->endpoint, cfg->paths[i], cfg->keepalive);
		sh.request_len[i] = strlen(sh.requests[i]);
		atomic_init(&sh.first_len[i], -1);
	}
	atomic_init(&sh.issued, 0);
	res->paths = alloc_paths(cfg->npaths);
	res->npaths = res->paths ? cfg->npaths : 0;
	pthread_mutex_init(&sh.failure_lock, NULL);

	int rc = 0;
	struct worker *workers = xcalloc((size_t)nthreads, sizeof *workers);
	for (long t = 0; t < nthreads; t++)
		workers[t].ep = -1;
	for (long t = 0; t < nthreads; t++) {
		struct worker *w = &workers[t];
		w->sh = &sh;
		w->nconns = cfg->concurrency / nthreads + (t < cfg->concurrency % nthreads);
		w->active = w->nconns;
		w->conns = xcalloc((size_t)w->nconns, sizeof *w->conns);
		for (long i = 0; i < w->nconns; i++) {
			w->conns[i].fd = -1;
			httpresp_init(&w->conns[i].resp);
		}
		w->restart = xcalloc(2 * (size_t)w->nconns + 1, sizeof *w->restart);
		w->rbuf = xmalloc(READ_BUF);
		w->stats = xcalloc(1, sizeof *w->stats);
		histogram_init(&w->stats->latency);
		w->stats->paths = res->npaths ? alloc_paths(res->npaths) : NULL;
		w->stats->npaths = res->npaths;
		w->ep = epoll_create1(EPOLL_CLOEXEC);
		if (w->ep < 0) {
			rc = err_sys(err, "cannot create an epoll instance");
			goto out;
		}
	}

	sh.t0_ns = now_ns();
	if (cfg->requests <= 0)
		sh.end_ns = sh.t0_ns + (int64_t)(cfg->duration_s * 1e9);
	for (long t = 0; t < nthreads; t++) {
		int e = pthread_create(&workers[t].tid, NULL, worker_main, &workers[t]);
		if (e) {
			errno = e;
			rc = err_sys(err, "cannot start a client thread");
			/* The threads already started end with the run. */
			break;
		}
		workers[t].started = true;
	}
	int64_t last = sh.t0_ns;
	for (long t = 0; t < nthreads; t++) {
		if (!workers[t].started)
			continue;
		pthread_join(workers[t].tid, NULL);
		add_counts(res, workers[t].stats);
		res->cpu[t] = workers[t].cpu;
		if (workers[t].cpu > res->cpu_busiest)
			res->cpu_busiest = workers[t].cpu;
		if (workers[t].finished_ns > last)
			last = workers[t].finished_ns;
	}
	if (sh.end_ns && last > sh.end_ns)
		last = sh.end_ns;
	res->elapsed_s = (double)(last - sh.t0_ns) / 1e9;
	res->threads = nthreads;
	res->interrupted = cfg->stop && *cfg->stop;
	memcpy(res->first_failure, sh.first_failure, sizeof res->first_failure);
out:
	for (long t = 0; t < nthreads; t++) {
		struct worker *w = &workers[t];
		if (w->ep >= 0)
			close(w->ep);
		for (long i = 0; w->conns && i < w->nconns; i++)
			httpresp_release(&w->conns[i].resp);
		free(w->conns);
		free(w->restart);
		free(w->rbuf);
		if (w->stats)
			loadgen_result_release(w->stats);
		free(w->stats);
	}
	free(workers);
	for (size_t i = 0; i < cfg->npaths; i++)
		free(sh.requests[i]);
	free(sh.requests);
	free(sh.request_len);
	free(sh.first_len);
	pthread_mutex_destroy(&sh.failure_lock);
	return rc;
}
