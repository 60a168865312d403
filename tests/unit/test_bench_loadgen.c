/* test_bench_loadgen.c - the load generator (bench/loadgen.c) against a
 * small server on 127.0.0.1 run by the test itself, which answers in
 * fixed ways and counts connections and requests: request counts, ab's
 * failure kinds, keep-alive, URL rotation; also server URL parsing and the
 * URL lists of bench/targets.c. */
#include <errno.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "../../bench/loadgen.h"
#include "../../bench/targets.h"
#include "base/log.h"
#include "unit.h"
#include "base/xalloc.h"

enum mode {
	M_FIXED,    /* 200, "hello", keep-alive unless the request says close */
	M_VARY,     /* 200, a body of 1..3 bytes, changing with every request */
	M_CHUNKED,  /* 200, chunked, written in three pieces */
	M_NOTFOUND, /* 404 for paths containing "missing", else as M_FIXED */
	M_DROP,     /* read the request, close without answering */
	M_SILENT,   /* read the request, never answer */
	M_ONE_SHOT, /* answer, then close the kept-alive connection (no header saying so) */
};

#define MAX_CLIENTS 64

struct test_server {
	int lfd, port;
	enum mode mode;
	pthread_t tid;
	atomic_int stop;
	atomic_int connections, requests;
	char paths[256][64]; /* the request line paths, in order seen (first 256) */
};

/* Answer the one complete request in buf (of a client); false: close it. */
static bool answer(struct test_server *s, int fd, const char *req)
{
	int n = atomic_fetch_add(&s->requests, 1);
	bool close_after = strstr(req, "Connection: close") != NULL;
	if (n < 256)
		sscanf(req, "GET %63s", s->paths[n]);
	char out[512];
	int len;
	switch (s->mode) {
	case M_DROP:
		return false;
	case M_SILENT:
		return true;
	case M_VARY: {
		static const char *const bodies[] = { "a", "bb", "ccc" };
		const char *b = bodies[n % 3];
		len = snprintf(out, sizeof out, "HTTP/1.1 200 OK\r\nContent-Length: %zu\r\n\r\n%s", strlen(b), b);
		break;
	}
	case M_CHUNKED: {
		const char *parts[] = { "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhel",
					"lo\r\n6\r\n world\r\n", "0\r\n\r\n" };
		for (int i = 0; i < 3; i++) {
			if (write(fd, parts[i], strlen(parts[i])) < 0)
				return false;
			usleep(1000);
		}
		return !close_after;
	}
	case M_NOTFOUND:
		if (strstr(req, "missing")) {
			len = snprintf(out, sizeof out, "HTTP/1.1 404 Not Found\r\nContent-Length: 5\r\n\r\nhello");
			break;
		}
		/* fall through */
	default:
		len = snprintf(out, sizeof out, "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n%s\r\nhello",
			       close_after ? "Connection: close\r\n" : "");
		break;
	}
	if (write(fd, out, (size_t)len) != len)
		return false;
	return !close_after && s->mode != M_ONE_SHOT;
}

static void *serve_main(void *arg)
{
	struct test_server *s = arg;
	struct pollfd pfd[MAX_CLIENTS + 1];
	char bufs[MAX_CLIENTS][2048];
	size_t used[MAX_CLIENTS];
	int nclients = 0;
	pfd[0] = (struct pollfd){ s->lfd, POLLIN, 0 };
	while (!atomic_load(&s->stop)) {
		if (poll(pfd, (nfds_t)nclients + 1, 20) <= 0)
			continue;
		if ((pfd[0].revents & POLLIN) && nclients < MAX_CLIENTS) {
			int fd = accept(s->lfd, NULL, NULL);
			if (fd >= 0) {
				atomic_fetch_add(&s->connections, 1);
				pfd[nclients + 1] = (struct pollfd){ fd, POLLIN, 0 };
				used[nclients] = 0;
				nclients++;
			}
		}
		for (int i = 0; i < nclients; i++) {
			if (!(pfd[i + 1].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			ssize_t n = read(pfd[i + 1].fd, bufs[i] + used[i], sizeof bufs[i] - 1 - used[i]);
			bool keep = n > 0;
			if (n > 0) {
				used[i] += (size_t)n;
				bufs[i][used[i]] = '\0';
				char *end = strstr(bufs[i], "\r\n\r\n");
				if (end) {
					keep = answer(s, pfd[i + 1].fd, bufs[i]);
					used[i] = 0;
				}
			}
			if (!keep) {
				close(pfd[i + 1].fd);
				pfd[i + 1] = pfd[nclients];
				memcpy(bufs[i], bufs[nclients - 1], used[nclients - 1]);
				used[i] = used[nclients - 1];
				nclients--;
				i--;
			}
		}
	}
	for (int i = 0; i < nclients; i++)
		close(pfd[i + 1].fd);
	return NULL;
}

static struct test_server *server_start(enum mode mode)
{
	struct test_server *s = xcalloc(1, sizeof *s);
	s->mode = mode;
	s->lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	struct sockaddr_in sa;
	memset(&sa, 0, sizeof sa);
	sa.sin_family = AF_INET;
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	socklen_t len = sizeof sa;
	if (bind(s->lfd, (struct sockaddr *)&sa, sizeof sa) < 0 || listen(s->lfd, 128) < 0 ||
	    getsockname(s->lfd, (struct sockaddr *)&sa, &len) < 0)
		unit_fail(__FILE__, __LINE__, "cannot listen: %s", strerror(errno));
	s->port = ntohs(sa.sin_port);
	pthread_create(&s->tid, NULL, serve_main, s);
	return s;
}

static void server_stop(struct test_server *s)
{
	atomic_store(&s->stop, 1);
	pthread_join(s->tid, NULL);
	close(s->lfd);
	free(s);
}

/* Run the generator against port with the given shape; res is fresh. */
static struct loadgen_result *run_load(int port, char **paths, size_t npaths, long conc, long threads,
				       long long requests, bool keepalive, double timeout_s)
{
	char err[ERR_LEN], url[64];
	struct loadgen_endpoint ep;
	snprintf(url, sizeof url, "http://127.0.0.1:%d/", port);
	struct loadgen_result *res = xcalloc(1, sizeof *res);
	if (loadgen_endpoint_parse(&ep, url, err) < 0) {
		unit_fail(__FILE__, __LINE__, "%s", err);
		return res;
	}
	struct loadgen_config cfg = {
		.endpoint = &ep,
		.paths = paths,
		.npaths = npaths,
		.concurrency = conc,
		.threads = threads,
		.requests = requests,
		.keepalive = keepalive,
		.timeout_s = timeout_s,
	};
	if (loadgen_run(&cfg, res, err) < 0)
		unit_fail(__FILE__, __LINE__, "%s", err);
	loadgen_endpoint_release(&ep);
	return res;
}

static char *root_path[] = { "/" };

static void result_free(struct loadgen_result *r)
{
	loadgen_result_release(r);
	free(r);
}

/* A test's end: the result r and the server s go. */
static void load_done(struct loadgen_result *r, struct test_server *s)
{
	result_free(r);
	server_stop(s);
}

/* All n requests of r were answered, none failed. */
#define CHECK_ALL_DONE(r, n)                          \
	do {                                          \
		CHECK_INT((n), (r)->complete);        \
		CHECK_INT(0, loadgen_failed(r));      \
	} while (0)

TEST(bench_loadgen_keepalive_counts_and_connections)
{
	struct test_server *s = server_start(M_FIXED);
	struct loadgen_result *r = run_load(s->port, root_path, 1, 4, 2, 200, true, 5);
	CHECK_ALL_DONE(r, 200);
	/* Kept alive, 200 requests share at most the 4 connections; fewer when
	 * one thread's connections take the whole budget before the other
	 * thread starts (a loaded machine), so the count is a bound. */
	CHECK(r->connections >= 1 && r->connections <= 4);
	CHECK_INT(r->connections, atomic_load(&s->connections)); /* the server agrees */
	CHECK_INT(200, atomic_load(&s->requests));
	CHECK_INT(200 * 5, r->bytes_body);
	CHECK_INT(200, r->latency.count);
	CHECK_INT(2, r->threads);
	CHECK(r->elapsed_s > 0);
	load_done(r, s);
}

TEST(bench_loadgen_connection_per_request_without_keepalive)
{
	struct test_server *s = server_start(M_FIXED);
	struct loadgen_result *r = run_load(s->port, root_path, 1, 3, 1, 60, false, 5);
	CHECK_ALL_DONE(r, 60);
	CHECK_INT(60, r->connections);
	CHECK_INT(60, atomic_load(&s->connections));
	load_done(r, s);
}

TEST(bench_loadgen_reconnects_when_the_server_closes)
{
	/* The server closes every connection after one answer without saying
	 * so: the next request on it finds it closed and is sent again on a
	 * new connection, not counted as a failure (as ab does). */
	struct test_server *s = server_start(M_ONE_SHOT);
	struct loadgen_result *r = run_load(s->port, root_path, 1, 2, 1, 30, true, 5);
	CHECK_ALL_DONE(r, 30);
	CHECK_INT(30, atomic_load(&s->connections));
	load_done(r, s);
}

TEST(bench_loadgen_length_failures_per_url)
{
	struct test_server *s = server_start(M_VARY);
	/* One connection: bodies 1, 2, 3, 1, 2, 3, ... bytes; the first was 1. */
	struct loadgen_result *r = run_load(s->port, root_path, 1, 1, 1, 9, true, 5);
	CHECK_INT(9, r->complete);
	CHECK_INT(6, r->failed_length);
	CHECK_INT(6, loadgen_failed(r));
	result_free(r);
	/* Three URLs in turn over the same cycle: each URL always gets the
	 * same length, so no length failure at all. */
	char *three[] = { "/a", "/b", "/c" };
	atomic_store(&s->requests, 0);
	r = run_load(s->port, three, 3, 1, 1, 9, true, 5);
	CHECK_INT(9, r->complete);
	CHECK_INT(0, r->failed_length);
	CHECK_STR("/a", s->paths[0]);
	CHECK_STR("/b", s->paths[1]);
	CHECK_STR("/c", s->paths[2]);
	CHECK_STR("/a", s->paths[3]);
	load_done(r, s);
}

TEST(bench_loadgen_chunked_responses)
{
	struct test_server *s = server_start(M_CHUNKED);
	struct loadgen_result *r = run_load(s->port, root_path, 1, 2, 1, 10, true, 5);
	CHECK_ALL_DONE(r, 10);
	CHECK_INT(110, r->bytes_body);
	load_done(r, s);
}

TEST(bench_loadgen_non_2xx_counted_apart)
{
	struct test_server *s = server_start(M_NOTFOUND);
	char *paths[] = { "/ok", "/missing" };
	struct loadgen_result *r = run_load(s->port, paths, 2, 2, 1, 20, true, 5);
	CHECK_INT(20, r->complete);
	CHECK_INT(10, r->non_2xx);
	CHECK_INT(0, loadgen_failed(r));
	/* Per path, in the order given: the requests took them in turn. */
	CHECK_INT(2, r->npaths);
	CHECK_INT(10, r->paths[0].complete);
	CHECK_INT(10, r->paths[1].complete);
	CHECK_INT(10, (long long)r->paths[0].latency.count);
	CHECK_INT(20, (long long)(r->paths[0].latency.count + r->paths[1].latency.count));
	CHECK(r->paths[1].latency.max <= r->latency.max);
	load_done(r, s);
}

TEST(bench_loadgen_no_per_path_results_past_the_limit)
{
	struct test_server *s = server_start(M_FIXED);
	char **paths = xcalloc(LOADGEN_PATHS_MAX + 1, sizeof *paths);
	for (size_t i = 0; i <= LOADGEN_PATHS_MAX; i++)
		paths[i] = "/";
	struct loadgen_result *r = run_load(s->port, paths, LOADGEN_PATHS_MAX, 1, 1, 4, true, 5);
	CHECK_INT(LOADGEN_PATHS_MAX, r->npaths);
	CHECK(r->paths && r->paths[3].complete == 1 && r->paths[4].complete == 0);
	result_free(r);
	r = run_load(s->port, paths, LOADGEN_PATHS_MAX + 1, 1, 1, 4, true, 5);
	CHECK_INT(4, r->complete);
	CHECK_INT(0, r->npaths);
	CHECK(r->paths == NULL);
	result_free(r);
	free(paths);
	server_stop(s);
}

TEST(bench_loadgen_receive_connect_and_timeout_failures)
{
	struct test_server *s = server_start(M_DROP);
	struct loadgen_result *r = run_load(s->port, root_path, 1, 2, 1, 10, false, 5);
	CHECK_INT(0, r->complete);
	CHECK_INT(10, r->failed_receive);
	CHECK_INT(10, loadgen_failed(r));
	CHECK_HAS(r->first_failure, "receive");
	load_done(r, s);

	s = server_start(M_SILENT);
	r = run_load(s->port, root_path, 1, 2, 1, 4, true, 0.2);
	CHECK_INT(0, r->complete);
	CHECK_INT(4, r->failed_exceptions);
	CHECK_INT(4, r->timeouts);
	result_free(r);
	int port = s->port;
	server_stop(s);

	/* Nobody listens on the port any more. */
	r = run_load(port, root_path, 1, 2, 1, 5, true, 5);
	CHECK_INT(5, r->failed_connect);
	CHECK_INT(0, r->complete);
	result_free(r);

	char err[ERR_LEN], url[64];
	struct loadgen_endpoint ep;
	snprintf(url, sizeof url, "http://127.0.0.1:%d/", port);
	CHECK_INT(0, loadgen_endpoint_parse(&ep, url, err));
	CHECK_INT(-1, loadgen_probe(&ep, 1000, err));
	CHECK_HAS(err, "cannot connect to");
	loadgen_endpoint_release(&ep);
}

TEST(bench_loadgen_duration_and_stop_flag)
{
	struct test_server *s = server_start(M_FIXED);
	char err[ERR_LEN], url[64];
	struct loadgen_endpoint ep;
	snprintf(url, sizeof url, "http://127.0.0.1:%d/", s->port);
	CHECK_INT(0, loadgen_endpoint_parse(&ep, url, err));
	struct loadgen_result *r = xcalloc(1, sizeof *r);
	struct loadgen_config cfg = { .endpoint = &ep, .paths = root_path, .npaths = 1,
				      .concurrency = 2, .threads = 1, .duration_s = 0.3,
				      .keepalive = true, .timeout_s = 5 };
	CHECK_INT(0, loadgen_run(&cfg, r, err));
	CHECK(r->elapsed_s > 0.25 && r->elapsed_s < 0.6);
	CHECK(r->complete > 0);
	CHECK(!r->interrupted);
	/* A stop flag already set: the run ends at once, interrupted. */
	volatile sig_atomic_t stop = 1;
	cfg.stop = &stop;
	cfg.duration_s = 30;
	CHECK_INT(0, loadgen_run(&cfg, r, err));
	CHECK(r->interrupted);
	CHECK(r->elapsed_s < 1);
	result_free(r);
	loadgen_endpoint_release(&ep);
	server_stop(s);
}

TEST(bench_loadgen_endpoint_parse_table)
{
	static const struct {
		const char *url;
		int ok;
		const char *host_header, *prefix;
	} cases[] = {
		{ "http://127.0.0.1:8080/", 0, "127.0.0.1:8080", "" },
		{ "http://127.0.0.1:8080", 0, "127.0.0.1:8080", "" },
		{ "HTTP://localhost/wiki/", 0, "localhost", "/wiki" },
		{ "http://[::1]:81/a/b", 0, "[::1]:81", "/a/b" },
		{ "https://127.0.0.1/", -1, NULL, NULL },
		{ "127.0.0.1:80", -1, NULL, NULL },
		{ "http://127.0.0.1:0/", -1, NULL, NULL },
		{ "http://127.0.0.1:99999/", -1, NULL, NULL },
		{ "http://127.0.0.1:x/", -1, NULL, NULL },
		{ "http:///path", -1, NULL, NULL },
		{ "http://127.0.0.1/?q=1", -1, NULL, NULL },
		{ "http://user@127.0.0.1/", -1, NULL, NULL },
		{ "http://[::1/", -1, NULL, NULL },
		{ "http://no-such-host.invalid/", -1, NULL, NULL },
	};
	for (size_t i = 0; i < COUNT(cases); i++) {
		char err[ERR_LEN] = "";
		struct loadgen_endpoint ep;
		int rc = loadgen_endpoint_parse(&ep, cases[i].url, err);
		if (rc != cases[i].ok) {
			unit_fail(__FILE__, __LINE__, "'%s': %d (%s)", cases[i].url, rc, err);
			continue;
		}
		if (rc < 0) {
			CHECK(err[0] != '\0');
			continue;
		}
		CHECK_STR(cases[i].host_header, ep.host_header);
		CHECK_STR(cases[i].prefix, ep.prefix);
		loadgen_endpoint_release(&ep);
	}
}

TEST(bench_loadgen_request_bytes)
{
	char err[ERR_LEN];
	struct loadgen_endpoint ep;
	CHECK_INT(0, loadgen_endpoint_parse(&ep, "http://127.0.0.1:8080/wiki/", err));
	char *r = loadgen_request(&ep, "/doku.php?id=start", false);
	const char *start = "GET /wiki/doku.php?id=start HTTP/1.1\r\nHost: 127.0.0.1:8080\r\n";
	CHECK(!strncmp(r, start, strlen(start)));
	CHECK_HAS(r, "\r\nConnection: close\r\n\r\n");
	free(r);
	r = loadgen_request(&ep, "/", true);
	CHECK(strstr(r, "Connection:") == NULL);
	CHECK(strlen(r) > 4 && !strcmp(r + strlen(r) - 4, "\r\n\r\n"));
	free(r);
	loadgen_endpoint_release(&ep);
}

TEST(bench_targets_sample_is_even_and_deterministic)
{
	struct manifest m = MANIFEST_INIT;
	char target[64];
	for (int i = 0; i < 100; i++) {
		snprintf(target, sizeof target, "/p%03d", i);
		struct manifest_entry *e = manifest_entry_new(target);
		e->status = 200;
		e->key = xasprintf("p%03d.html", i);
		e->content_type = xstrdup(i % 10 == 9 ? "text/css" : "text/html; charset=utf-8");
		manifest_put(&m, e);
	}
	struct manifest_entry *redirect = manifest_entry_new("/old");
	redirect->status = 301;
	redirect->content_type = xstrdup("text/html");
	manifest_put(&m, redirect);

	struct strlist l = STRLIST_INIT;
	size_t total = 0;
	targets_sample(&l, &m, 9, &total);
	CHECK_INT(90, total); /* the css and the redirect are not pages */
	CHECK_INT(9, l.n);
	/* Entries 0, 10, 20, ... of the 90 pages: every 10th. */
	CHECK_STR("/p000", l.items[0]);
	CHECK_STR("/p011", l.items[1]);
	CHECK_STR("/p088", l.items[8]);
	strlist_clear(&l);
	targets_sample(&l, &m, 1000, &total);
	CHECK_INT(90, l.n);
	strlist_clear(&l);
	manifest_release(&m);
}

TEST(bench_targets_read_file)
{
	char path[] = "/tmp/cgisnap-unit-urls.XXXXXX", err[ERR_LEN];
	int fd = mkstemp(path);
	const char *text = "# comment\n/a\n\n  /b?x=1  \r\n/c\n";
	CHECK_INT((long)strlen(text), write(fd, text, strlen(text)));
	close(fd);
	struct strlist l = STRLIST_INIT;
	CHECK_INT(0, targets_read_file(&l, path, err));
	CHECK_INT(3, l.n);
	CHECK_STR("/b?x=1", l.items[1]);
	strlist_clear(&l);
	FILE *f = fopen(path, "w");
	fputs("/ok\nnot-a-path\n", f);
	fclose(f);
	CHECK_INT(-1, targets_read_file(&l, path, err));
	CHECK_HAS(err, ":2: ");
	strlist_clear(&l);
	unlink(path);
	CHECK_INT(-1, targets_read_file(&l, path, err));
	CHECK_INT(-1, targets_check("/a b", err));
	CHECK_INT(0, targets_check("/doku.php?id=a:b", err));
}
