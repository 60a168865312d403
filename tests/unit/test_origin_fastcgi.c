/* test_origin_fastcgi.c - the FastCGI origin: php-cgi -b on TCP and on
 * a Unix socket, mounts, and a fake server in a thread for the
 * protocol's corners. */
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

/* ---- FastCGI ---- */

static void fastcgi_checks(struct origin *o, const char *label)
{
	struct origin_response rs;
	char err[ERR_LEN];
	int rc;

	/* More requests than PHP_FCGI_MAX_REQUESTS allows a child: its
	 * pooled connection dies and the next render reconnects. */
	for (int i = 0; i < 12; i++) {
		char *target = xasprintf("/echo.php?n=%d", i), *n = xasprintf("%d", i);
		rc = render(o, target, NULL, &rs, err);
		if (rc < 0)
			printf("    %s %s: %s\n", label, target, err);
		CHECK_INT(0, rc);
		CHECK_INT(200, rs.status);
		CHECK_STR("text/plain; charset=utf-8", rs.content_type);
		CHECK_STR(n, origin_header(&rs, "X-N"));
		CHECK_LINE(n, &rs.body, "n");
		CHECK_LINE("example.test:8080", &rs.body, "host");
		CHECK_LINE("/echo.php", &rs.body, "script");
		origin_response_release(&rs);
		free(target);
		free(n);
	}

	struct hammer h[4];
	pthread_t t[4];
	for (int i = 0; i < 4; i++) {
		h[i] = (struct hammer){ o, "/echo.php?n=c", 4, 0, 0, 0 };
		pthread_create(&t[i], NULL, hammer_run, &h[i]);
	}
	for (int i = 0; i < 4; i++) {
		pthread_join(t[i], NULL);
		CHECK_INT(0, h[i].failures);
	}

	CHECK_INT(0, render(o, "/info.php/more?nosession=1", NULL, &rs, err));
	CHECK_LINE("/info.php", &rs.body, "SCRIPT_NAME");
	CHECK_LINE("/more", &rs.body, "PATH_INFO");
	char *filename = xasprintf("%s/info.php", docroot());
	CHECK_LINE(filename, &rs.body, "SCRIPT_FILENAME");
	free(filename);
	CHECK_LINE("/info.php/more?nosession=1", &rs.body, "REQUEST_URI");
	origin_response_release(&rs);

	/* Static files are read from disk, not sent to the server. */
	CHECK_INT(0, render(o, "/style.css", NULL, &rs, err));
	CHECK(rs.static_path != NULL);
	origin_response_release(&rs);
	/* A *.cgi program is no file for FastCGI to run: its source is
	 * never a response (it used to be copied as a static file). */
	CHECK_INT(-1, render(o, "/hello.cgi", NULL, &rs, err));
	CHECK_STR("'hello.cgi' would be published as source: the FastCGI server runs only *.php; "
		  "--static-ext 'cgi' publishes it as it is", err);
	origin_response_release(&rs);
	CHECK_INT(0, render(o, "/nope", NULL, &rs, err));
	CHECK_INT(404, rs.status);
	origin_response_release(&rs);

	/* Large headers, redirects, status, HEAD. */
	rc = render(o, "/echo.php?big=20000", NULL, &rs, err);
	if (rc < 0)
		printf("    %s big header: %s\n", label, err);
	CHECK_INT(0, rc);
	CHECK_INT(20000, origin_header(&rs, "X-Big") ? strlen(origin_header(&rs, "X-Big")) : 0);
	origin_response_release(&rs);
	CHECK_INT(0, render(o, "/echo.php?go=http://example.test/x", NULL, &rs, err));
	CHECK_INT(302, rs.status);
	CHECK_STR("http://example.test/x", rs.location);
	origin_response_release(&rs);
	CHECK_INT(0, render(o, "/echo.php?status=410", NULL, &rs, err));
	CHECK_INT(410, rs.status);
	origin_response_release(&rs);
	CHECK_INT(0, render(o, "/echo.php", "HEAD", &rs, err));
	CHECK_INT(200, rs.status);
	CHECK_INT(0, rs.body.len);
	origin_response_release(&rs);

	/* The script's warnings go to the log, not into the page. */
	struct capture cap;
	capture_begin(&cap);
	rc = render(o, "/echo.php?n=w&warn=1", NULL, &rs, err);
	char *logged = capture_end(&cap);
	CHECK_INT(0, rc);
	CHECK(strstr(logged, "cgisnap: /echo.php?n=w&warn=1: ") && strstr(logged, "a warning for w"));
	CHECK(!strstr(buf_str(&rs.body), "warning"));
	CHECK_LINE("w", &rs.body, "n");
	free(logged);
	origin_response_release(&rs);
}

/* php-cgi started as a FastCGI server on a TCP port, written to *port:
 * its pid; 0 when php-cgi is not installed or did not start (which fails
 * the running test). */
static pid_t start_php_fcgi(int *port)
{
	if (!have_program("php-cgi"))
		return 0;
	pid_t pid = start_server(PHP_FCGI, port);
	CHECK(pid > 0);
	return pid > 0 ? pid : 0;
}

TEST(origin_fastcgi_php_cgi_tcp)
{
	int port = 0;
	pid_t pid = start_php_fcgi(&port);
	if (!pid)
		return;
	struct fixture f = cgi_fixture();
	strlist_add_owned(&f.cfg.fastcgi, xasprintf("127.0.0.1:%d", port));
	f.cfg.timeout_s = 10;
	if (fixture_open(&f, "http://example.test:8080/")) {
		CHECK_INT(ORIGIN_FASTCGI, origin_kind(f.o));
		fastcgi_checks(f.o, "tcp");
	} else {
		CHECK(false);
	}
	fixture_close(&f);
	stop_server(pid);
}

/* Mounts over FastCGI: SCRIPT_FILENAME under the aliased directory, or
 * the mounted *.php program. */
TEST(origin_fastcgi_mounts)
{
	int port = 0;
	pid_t pid = start_php_fcgi(&port);
	if (!pid)
		return;
	struct fixture f = { 0 };
	struct origin_response rs;
	char *dir = unit_temp_dir("fcgi-mount");
	f.cfg.root = xstrdup(dir);
	strlist_add_owned(&f.cfg.fastcgi, xasprintf("127.0.0.1:%d", port));
	f.cfg.timeout_s = 10;
	strlist_add_owned(&f.cfg.path_aliases, xasprintf("/p=%s", docroot()));
	strlist_add_owned(&f.cfg.script_aliases, xasprintf("/blog=%s/info.php", docroot()));
	if (fixture_open(&f, NULL)) {
		char *fn = xasprintf("%s/info.php", docroot());
		CHECK_LINES(&f, "/p/info.php/x%20y?nosession=1", 0,
			    "SCRIPT_NAME", "/p/info.php",
			    "PATH_INFO", "/x y",
			    "SCRIPT_FILENAME", fn,
			    "DOCUMENT_ROOT", dir);
		CHECK_LINES(&f, "/blog/2019/post?nosession=1", 0,
			    "SCRIPT_NAME", "/blog",
			    "PATH_INFO", "/2019/post",
			    "SCRIPT_FILENAME", fn,
			    "REQUEST_URI", "/blog/2019/post?nosession=1");
		CHECK_INT(0, render(f.o, "/p/style.css", NULL, &rs, f.err));
		CHECK(rs.static_path && strstr(rs.static_path, "/docroot/style.css"));
		origin_response_release(&rs);
		free(fn);
	} else {
		CHECK(false);
	}
	fixture_close(&f);
	stop_server(pid);
	unit_drop_dir(dir);
}

TEST(origin_fastcgi_php_cgi_unix_socket)
{
	if (!have_program("php-cgi"))
		return;
	char dir[] = "/tmp/cgisnap-fcgi-XXXXXX";
	CHECK(mkdtemp(dir) != NULL);
	char *sock = xasprintf("%s/php.sock", dir);
	char path_env[PATH_MAX + 8];
	snprintf(path_env, sizeof path_env, "PATH=%s", getenv("PATH") ? getenv("PATH") : "/usr/bin:/bin");
	char *env[] = { path_env, "PHP_FCGI_CHILDREN=2", "PHP_FCGI_MAX_REQUESTS=3", NULL };
	char *argv[] = { "php-cgi", "-b", sock, NULL };
	pid_t pid = spawn_server(argv, env);
	CHECK(pid > 0 && wait_listening(pid, 0, sock));

	struct fixture f = cgi_fixture();
	struct origin_response rs;
	strlist_add_owned(&f.cfg.fastcgi, xasprintf("unix:%s", sock));
	f.cfg.timeout_s = 10;
	f.cfg.max_output_mb = 1;
	if (fixture_open(&f, "http://example.test:8080/")) {
		for (int i = 0; i < 8; i++) {
			CHECK_LINES(&f, "/echo.php?n=u", 0, "n", "u", "host", "example.test:8080");
			/* Too much output: the connection is dropped, the next
			 * render opens another. */
			if (i == 3) {
				CHECK_INT(-1, render(f.o, "/echo.php?fill=2000000", NULL, &rs, f.err));
				CHECK_STR("output over 1 MiB", f.err);
				CHECK(rs.over_max_output);
				origin_response_release(&rs);
			}
		}
	} else {
		CHECK(false);
	}
	fixture_close(&f);
	stop_server(pid);
	unlink(sock);
	rmdir(dir);
	free(sock);
}

/* A fake FastCGI server in a thread, for what php-cgi will not do on
 * demand: close a kept connection after reading a request, refuse one,
 * fail one. It answers with the params it was sent. */
struct fake_fcgi {
	int listen_fd;
	int connections;
	pthread_t thread;
};

static int connections(struct fake_fcgi *s)
{
	return __atomic_load_n(&s->connections, __ATOMIC_SEQ_CST);
}

static int read_full(int fd, void *p, size_t n)
{
	size_t got = 0;
	while (got < n) {
		ssize_t r = read(fd, (char *)p + got, n - got);
		if (r <= 0)
			return -1;
		got += (size_t)r;
	}
	return 0;
}

static size_t param_length(const unsigned char *p, size_t *pos)
{
	if (p[*pos] < 128)
		return p[(*pos)++];
	size_t n = ((size_t)(p[*pos] & 0x7f) << 24) | ((size_t)p[*pos + 1] << 16) |
		   ((size_t)p[*pos + 2] << 8) | p[*pos + 3];
	*pos += 4;
	return n;
}

/* One request's params as "NAME=VALUE" lines; -1 at end of stream. */
static int fake_read_request(int fd, struct buf *lines, bool *keep)
{
	struct buf params = BUF_INIT;
	unsigned char h[8];
	for (;;) {
		if (read_full(fd, h, 8) < 0)
			return buf_release(&params), -1;
		size_t len = (size_t)h[4] << 8 | h[5];
		unsigned char *c = xmalloc(len + h[6] + 1);
		if (read_full(fd, c, len + h[6]) < 0)
			return free(c), buf_release(&params), -1;
		if (h[1] == 1)
			*keep = c[2] & 1;
		else if (h[1] == 4)
			buf_add(&params, c, len);
		free(c);
		if (h[1] == 5 && len == 0)
			break;
	}
	const unsigned char *p = (const unsigned char *)buf_str(&params);
	size_t pos = 0;
	while (pos < params.len) {
		size_t n = param_length(p, &pos);
		size_t v = param_length(p, &pos);
		if (v > 200)
			buf_addf(lines, "%.*s=(%zu bytes)\n", (int)n, p + pos, v);
		else
			buf_addf(lines, "%.*s=%.*s\n", (int)n, p + pos, (int)v, p + pos + n);
		pos += n + v;
	}
	buf_release(&params);
	return 0;
}

static void fake_record(int fd, int type, const char *data, size_t len)
{
	unsigned char h[8] = { 1, (unsigned char)type, 0, 1, (unsigned char)(len >> 8),
			       (unsigned char)len, 0, 0 };
	if (send(fd, h, 8, MSG_NOSIGNAL) != 8 || (len && send(fd, data, len, MSG_NOSIGNAL) != (ssize_t)len))
		return;
}

static void fake_end(int fd, int app_status, int protocol_status)
{
	char body[8] = { 0, 0, 0, (char)app_status, (char)protocol_status, 0, 0, 0 };
	fake_record(fd, 3, body, 8);
}

static void *fake_run(void *arg)
{
	struct fake_fcgi *s = arg;
	for (;;) {
		int fd = accept(s->listen_fd, NULL, NULL);
		if (fd < 0)
			return NULL;
		__atomic_add_fetch(&s->connections, 1, __ATOMIC_SEQ_CST);
		for (;;) {
			struct buf lines = BUF_INIT;
			bool keep = false;
			if (fake_read_request(fd, &lines, &keep) < 0) {
				buf_release(&lines);
				break;
			}
			if (strstr(lines.data, "QUERY_STRING=mode=drop")) {
				/* Read, then hang up: the client must retry elsewhere. */
				buf_release(&lines);
				break;
			}
			if (strstr(lines.data, "QUERY_STRING=mode=overloaded")) {
				fake_end(fd, 0, 2);
			} else if (strstr(lines.data, "QUERY_STRING=mode=fails-silently")) {
				fake_record(fd, 6, NULL, 0);
				fake_end(fd, 6, 0);
			} else if (strstr(lines.data, "QUERY_STRING=mode=fails")) {
				fake_record(fd, 6, "Content-Type: text/plain\r\n\r\nx", 29);
				fake_end(fd, 5, 0);
			} else {
				const char *head = "Content-Type: text/plain\r\nX-Keep: ";
				fake_record(fd, 6, head, strlen(head));
				fake_record(fd, 6, keep ? "1\r\n\r\n" : "0\r\n\r\n", 5);
				/* A record for another request id is ignored. */
				unsigned char other[8] = { 1, 6, 0, 2, 0, 0, 0, 0 };
				if (send(fd, other, 8, MSG_NOSIGNAL) != 8)
					break;
				for (size_t off = 0; off < lines.len; off += 1000) {
					size_t n = lines.len - off < 1000 ? lines.len - off : 1000;
					fake_record(fd, 6, lines.data + off, n);
				}
				if (strstr(lines.data, "QUERY_STRING=warn"))
					fake_record(fd, 7, "fake warning\n", 13);
				fake_record(fd, 6, NULL, 0);
				fake_end(fd, 0, 0);
			}
			buf_release(&lines);
		}
		close(fd);
	}
}

TEST(origin_fastcgi_protocol_against_a_fake_server)
{
	char dir[] = "/tmp/cgisnap-fake-XXXXXX";
	CHECK(mkdtemp(dir) != NULL);
	char *sock = xasprintf("%s/fake.sock", dir);
	struct fake_fcgi s = { -1, 0, 0 };
	struct sockaddr_un sun = { 0 };
	sun.sun_family = AF_UNIX;
	snprintf(sun.sun_path, sizeof sun.sun_path, "%s", sock);
	s.listen_fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	CHECK_INT(0, bind(s.listen_fd, (struct sockaddr *)&sun, sizeof sun));
	CHECK_INT(0, listen(s.listen_fd, 8));
	/* The origin's test connection at open is the first one accepted. */
	pthread_create(&s.thread, NULL, fake_run, &s);

	struct fixture f = { 0 };
	struct origin_response rs;
	struct capture cap;
	cgi_config(&f.cfg);
	strlist_add(&f.cfg.fastcgi, sock);
	f.cfg.timeout_s = 5;
	char *long_value = xmalloc(70001);
	memset(long_value, 'v', 70000);
	long_value[70000] = '\0';
	char *huge = xasprintf("HUGE=%s", long_value);
	strlist_add(&f.cfg.env, huge);
	strlist_add(&f.cfg.env, "MEDIUM=0123456789012345678901234567890123456789012345678901234567890123456789"
				"0123456789012345678901234567890123456789012345678901234567890123456789");
	free(huge);
	free(long_value);
	CHECK(fixture_open(&f, NULL));

	capture_begin(&cap);
	int rc = render(f.o, "/echo.php?warn", NULL, &rs, f.err);
	char *logged = capture_end(&cap);
	CHECK_INT(0, rc);
	CHECK_STR("1", origin_header(&rs, "X-Keep"));
	CHECK_LINE("/echo.php?warn", &rs.body, "REQUEST_URI");
	CHECK_LINE("warn", &rs.body, "QUERY_STRING");
	CHECK_LINE("(70000 bytes)", &rs.body, "HUGE");
	CHECK_LINE("0123456789012345678901234567890123456789012345678901234567890123456789"
		   "0123456789012345678901234567890123456789012345678901234567890123456789",
		   &rs.body, "MEDIUM");
	CHECK_STR("cgisnap: /echo.php?warn: fake warning\n", logged);
	free(logged);
	origin_response_release(&rs);
	CHECK_INT(2, connections(&s));

	/* The kept connection is reused... */
	CHECK_INT(0, render(f.o, "/echo.php?a=2", NULL, &rs, f.err));
	CHECK_INT(2, connections(&s));
	origin_response_release(&rs);
	/* ...and when the server hangs up on it before the end of the
	 * request, the render is tried once on a fresh connection, which the
	 * fake drops too: the error stands. */
	CHECK_INT(-1, render(f.o, "/echo.php?mode=drop", NULL, &rs, f.err));
	CHECK_INT(3, connections(&s));
	char *closed = xasprintf("FastCGI server '%s' closed the connection", sock);
	CHECK_STR(closed, f.err);
	free(closed);
	origin_response_release(&rs);
	/* A fresh connection answers the next render. */
	CHECK_INT(0, render(f.o, "/echo.php?a=3", NULL, &rs, f.err));
	CHECK_INT(4, connections(&s));
	CHECK_LINE("a=3", &rs.body, "QUERY_STRING");
	origin_response_release(&rs);

	CHECK_INT(-1, render(f.o, "/echo.php?mode=overloaded", NULL, &rs, f.err));
	CHECK_STR("FastCGI server refused the request (overloaded)", f.err);
	origin_response_release(&rs);
	/* A complete response with a non-zero application status is the
	 * response, with a warning; no response at all is a failure. */
	CHECK_INT(0, render(f.o, "/echo.php?mode=fails", NULL, &rs, f.err));
	CHECK_STR("x", buf_str(&rs.body));
	CHECK_STR("the FastCGI application ended with status 5 after a complete response", rs.warning);
	origin_response_release(&rs);
	CHECK_INT(-1, render(f.o, "/echo.php?mode=fails-silently", NULL, &rs, f.err));
	CHECK_STR("exited with status 6", f.err);
	origin_response_release(&rs);
	/* Both ended their requests properly: the connection stays. */
	CHECK_INT(0, render(f.o, "/echo.php?a=4", NULL, &rs, f.err));
	CHECK_INT(4, connections(&s));
	origin_response_release(&rs);

	fixture_close(&f);
	shutdown(s.listen_fd, SHUT_RDWR);
	close(s.listen_fd);
	pthread_join(s.thread, NULL);
	unlink(sock);
	rmdir(dir);
	free(sock);
}
