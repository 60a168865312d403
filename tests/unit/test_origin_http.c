/* test_origin_http.c - the HTTP origin against php -S, renders from many
 * threads at once. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "helpers.h"
#include "originfix.h"
#include "base/log.h"
#include "origin/origin.h"
#include "cli/originopts.h"
#include "unit.h"
#include "url/url.h"
#include "url/urlkey.h"
#include "base/xalloc.h"

/* ---- HTTP ---- */

struct http_hammer {
	struct origin *o;
	int first, count;
	int failures;
};

static void *http_hammer_run(void *arg)
{
	struct http_hammer *h = arg;
	for (int i = h->first; i < h->first + h->count; i++) {
		struct origin_response rs;
		char err[ERR_LEN];
		char *target = xasprintf("/echo.php?n=%d", i), *n = xasprintf("%d", i);
		char *body_n = NULL, *host = NULL;
		if (render(h->o, target, NULL, &rs, err) < 0) {
			printf("    %s: %s\n", target, err);
			h->failures++;
		} else {
			body_n = line_value(&rs.body, "n");
			host = line_value(&rs.body, "host");
			const char *xn = origin_header(&rs, "X-N");
			if (rs.status != 200 || !xn || strcmp(xn, n) || !body_n || strcmp(body_n, n) ||
			    !host || strcmp(host, "example.test:8080"))
				h->failures++;
		}
		free(body_n);
		free(host);
		free(target);
		free(n);
		origin_response_release(&rs);
	}
	return NULL;
}

TEST(origin_http_php_builtin_server)
{
	if (!have_program("php"))
		return;
	int port = 0;
	pid_t pid = start_server(PHP_HTTP, &port);
	CHECK(pid > 0);
	if (pid <= 0)
		return;
	struct fixture f = { 0 };
	struct origin_response rs;
	f.cfg.origin_url = xasprintf("http://127.0.0.1:%d/", port);
	f.cfg.jobs = 4;
	f.cfg.timeout_s = 10;
	if (!fixture_open(&f, "http://example.test:8080/")) {
		CHECK(false);
		fixture_close(&f);
		stop_server(pid);
		return;
	}
	CHECK_INT(ORIGIN_HTTP, origin_kind(f.o));

	struct http_hammer h[4];
	pthread_t t[4];
	for (int i = 0; i < 4; i++) {
		h[i] = (struct http_hammer){ f.o, i * 6, 6, 0 };
		pthread_create(&t[i], NULL, http_hammer_run, &h[i]);
	}
	for (int i = 0; i < 4; i++) {
		pthread_join(t[i], NULL);
		CHECK_INT(0, h[i].failures);
	}

	CHECK_INT(0, render(f.o, "/echo.php?status=301&go=http://example.test:8080/there", NULL, &rs, f.err));
	CHECK_INT(301, rs.status);
	CHECK_STR("http://example.test:8080/there", rs.location);
	CHECK_STR("text/plain; charset=utf-8", rs.content_type);
	origin_response_release(&rs);
	CHECK_STATUS(&f, "/echo.php?status=404", 404);
	CHECK_INT(0, render(f.o, "/echo.php", "HEAD", &rs, f.err));
	CHECK_INT(200, rs.status);
	CHECK_INT(0, rs.body.len);
	origin_response_release(&rs);
	CHECK_INT(0, render(f.o, "/style.css", NULL, &rs, f.err));
	CHECK_STR("body { color: red; }\n", buf_str(&rs.body));
	CHECK(rs.static_path == NULL);
	origin_response_release(&rs);
	fixture_close(&f);

	/* The output cap holds for HTTP too. */
	memset(&f, 0, sizeof f);
	f.cfg.origin_url = xasprintf("http://127.0.0.1:%d/", port);
	f.cfg.max_output_mb = 1;
	CHECK(fixture_open(&f, NULL));
	CHECK_INT(-1, render(f.o, "/echo.php?fill=2000000", NULL, &rs, f.err));
	CHECK_STR("output over 1 MiB", f.err);
	CHECK(rs.over_max_output);
	origin_response_release(&rs);
	CHECK_STATUS(&f, "/echo.php?fill=1000000", 200);
	fixture_close(&f);
	stop_server(pid);
}

/* What renders run on, as bench and serve say it; opening starts no
 * process (workers start at their first render). */
