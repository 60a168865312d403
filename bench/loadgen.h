/* bench/loadgen.h - the HTTP/1.1 load generator of 'cgisnap bench'.
 *
 * Like ab, with wrk's engine: each client thread runs an epoll loop over
 * its share of the connections (non-blocking sockets). A connection sends
 * a request, reads the whole response (httpresp.h: Content-Length,
 * chunked, until close), records its latency and sends the next one:
 * on the same connection with keep-alive, else on a new connection (the
 * request says "Connection: close"; as with ab, the request then lasts
 * from the connect until the server has closed the connection, or until
 * the response is complete when the server keeps it open). Requests take
 * the paths in turn, round robin over all connections. There is no
 * pipelining.
 *
 * Outcomes are counted as ab counts them:
 *   complete    responses received in full (whatever their status);
 *   connect     the connection could not be made;
 *   receive     the connection was reset or closed before the response
 *               was complete, or the response was not valid HTTP;
 *   length      a complete response whose body length differs from the
 *               first response of the run for the same path (ab compares
 *               with the first response of the whole run; per path is the
 *               same test for a list of URLs). Also counted as complete;
 *   exceptions  timeouts (no answer within timeout_s) and failed writes;
 *   non-2xx     complete responses with a status outside 200-299.
 * A kept-alive connection the server closed before answering the next
 * request is reopened and the request sent again, not counted (ab too).
 * With requests > 0, every request is counted once: complete + connect +
 * receive + exceptions == requests. With a duration, requests still in
 * flight at the end are dropped, as wrk does.
 *
 *     struct loadgen_endpoint ep;
 *     if (loadgen_endpoint_parse(&ep, "http://127.0.0.1:8080/", err) < 0 ||
 *         loadgen_probe(&ep, 5000, err) < 0) ...
 *     struct loadgen_config cfg = { .endpoint = &ep, .paths = ..., ... };
 *     struct loadgen_result *res = xcalloc(1, sizeof *res);
 *     if (loadgen_run(&cfg, res, err) < 0) ...
 *     free(res);
 *     loadgen_endpoint_release(&ep);
 */
#ifndef CGISNAP_BENCH_LOADGEN_H
#define CGISNAP_BENCH_LOADGEN_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/socket.h>

#include "histogram.h"

#define LOADGEN_MAX_THREADS 64
/* A client thread busy this share of its wall time or more may have been
 * the bottleneck of the run: from 70% on, a loaded epoll thread is close
 * enough to its ceiling that the figures can be the client's as much as
 * the server's (issue 15: at 90% the warning came after the damage). */
#define LOADGEN_CPU_WARN 0.70
/* Per-path results are kept for lists of at most this many paths. Each
 * path costs a histogram per thread (histogram.h, allocated zeroed, so
 * only the pages its samples touch take memory). */
#define LOADGEN_PATHS_MAX 1000

/* A server to measure: "http://HOST[:PORT][/PREFIX]". */
struct loadgen_endpoint {
	struct sockaddr_storage addr;
	socklen_t addrlen;
	char *url;         /* as given, for messages */
	char *host_header; /* the Host header: HOST[:PORT] as given */
	char *prefix;      /* put before every path: "" or "/x" (no trailing '/') */
};

/* Parse url and resolve its host (the first address). -1 with err
 * ("'x' is not an http:// URL", "cannot resolve 'x': ..."). */
int loadgen_endpoint_parse(struct loadgen_endpoint *e, const char *url, char *err);
void loadgen_endpoint_release(struct loadgen_endpoint *e);

/* Connect once and hang up: 0 when the server accepts within timeout_ms,
 * else -1 with err "cannot connect to 'URL': REASON". */
int loadgen_probe(const struct loadgen_endpoint *e, int timeout_ms, char *err);

struct loadgen_config {
	const struct loadgen_endpoint *endpoint;
	char *const *paths;       /* request targets, each starting with '/' */
	size_t npaths;
	long concurrency;         /* connections open at once, >= 1 */
	long threads;             /* client threads (at most concurrency, LOADGEN_MAX_THREADS) */
	long long requests;       /* > 0: this many requests in all ... */
	double duration_s;        /* ... else for this long */
	bool keepalive;
	double timeout_s;         /* per request */
	/* Set asynchronously (a signal handler): end the run as soon as
	 * possible; the result says interrupted. NULL: never. */
	volatile sig_atomic_t *stop;
};

/* One path's share of a run. */
struct loadgen_path_result {
	long long complete;       /* complete responses to this path */
	struct histogram latency; /* theirs, microseconds */
};

struct loadgen_result {
	long long complete;
	long long failed_connect, failed_receive, failed_length, failed_exceptions;
	long long timeouts;       /* part of failed_exceptions */
	long long non_2xx;
	long long bytes_total;    /* every byte received (ab's "Total transferred") */
	long long bytes_body;     /* bodies only (ab's "HTML transferred") */
	long long connections;    /* connections opened */
	double elapsed_s;         /* from the start to the last response (or the end of the duration) */
	bool interrupted;
	long threads;             /* client threads used */
	double cpu[LOADGEN_MAX_THREADS]; /* each thread's CPU time / its wall time */
	double cpu_busiest;       /* the largest of cpu[] */
	char first_failure[160];  /* what the first failed request met, "" when none */
	struct histogram latency; /* of complete responses, microseconds */
	/* Per path, in the order of the config's paths: npaths entries when the
	 * run had at most LOADGEN_PATHS_MAX paths, else NULL and 0. Freed by
	 * loadgen_result_release() or the next loadgen_run() on res. */
	struct loadgen_path_result *paths;
	size_t npaths;
};

/* True when a client thread busy cpu (its CPU time / its wall time) of
 * the run may have been the bottleneck: cpu >= LOADGEN_CPU_WARN. */
bool loadgen_thread_saturated(double cpu);

/* Every failure: connect + receive + length + exceptions. */
long long loadgen_failed(const struct loadgen_result *r);

/* Run the load described by cfg; res (caller-allocated and zeroed, or the
 * result of an earlier run; large: see histogram.h) is overwritten with
 * the outcome. -1 with err when the run
 * could not be set up (epoll, threads); failed requests are results, not
 * errors. */
int loadgen_run(const struct loadgen_config *cfg, struct loadgen_result *res, char *err);

/* Free what loadgen_run() allocated in res (the per-path results), not
 * res itself. */
void loadgen_result_release(struct loadgen_result *res);

/* The request sent for path: "GET PREFIX PATH HTTP/1.1" and its headers
 * (fresh string; the caller frees it). */
char *loadgen_request(const struct loadgen_endpoint *e, const char *path, bool keepalive);

#endif
