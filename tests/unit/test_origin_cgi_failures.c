/* test_origin_cgi_failures.c - the CGI origin when a program misbehaves
 * or says more than a page: a script's source never published, failures,
 * the timeout and the output cap, big bodies in a file, stderr in the log,
 * the tracer's pipe, concurrent renders. */
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

extern char **environ;

struct failure_case {
	const char *target;
	const char *err;
};

static void write_text(const char *dir, const char *name, const char *text)
{
	char *path = xasprintf("%s/%s", dir, name);
	FILE *fp = fopen(path, "w");
	CHECK(fp != NULL);
	if (fp) {
		fputs(text, fp);
		fclose(fp);
	}
	free(path);
}

TEST(origin_cgi_never_serves_a_scripts_source)
{
	char dir[] = "/tmp/cgisnap-root-XXXXXX";
	CHECK(mkdtemp(dir) != NULL);
	char *sub = xasprintf("%s/sub", dir);
	CHECK_INT(0, mkdir(sub, 0755));
	write_text(dir, "index.php", "<?php echo getenv('DB_PASSWORD');\n");
	write_text(dir, "page.html", "<p>#! is fine inside</p>\n");
	write_text(dir, "notes.txt", "#!/usr/bin/env python3\nprint(1)\n");
	write_text(dir, "run", "#!/bin/sh\necho hi\n");
	write_text(dir, "dl.sh", "echo no shebang\n");
	write_text(dir, "tool.Py", "print(2)\n");
	write_text(sub, "x.pl", "print 3;\n");
	write_text(sub, "db.inc", "<?php $pw = 'x';\n");
	write_text(dir, "config.php.bak", "<?PHP $pw = 'y';\n");
	char *link = xasprintf("%s/readme.txt", dir);
	CHECK_INT(0, symlink("index.php", link));

	struct fixture f = { 0 };
	struct origin_response rs;
	f.cfg.root = xstrdup(dir);
	CHECK(fixture_open(&f, NULL));
	static const struct failure_case refused[] = {
		{ "/", "'index.php' would be published as source: add --cgi php=php-cgi" },
		{ "/index.php?a=1", "'index.php' would be published as source: add --cgi php=php-cgi" },
		{ "/run", "'run' would be published as source: add --cgi EXT=PROGRAM" },
		{ "/notes.txt", "'notes.txt' would be published as source: add --cgi txt=PROGRAM" },
		{ "/dl.sh", "'dl.sh' would be published as source: add --cgi sh=sh" },
		{ "/tool.Py", "'tool.Py' would be published as source: add --cgi Py=python3" },
		{ "/sub/x.pl", "'sub/x.pl' would be published as source: add --cgi pl=perl" },
		{ "/sub/db.inc", "'sub/db.inc' would be published as source: add --cgi inc=PROGRAM" },
		/* Under another name: a link, a backup copy. */
		{ "/readme.txt", "'readme.txt' would be published as source: add --cgi php=php-cgi" },
		{ "/config.php.bak", "'config.php.bak' would be published as source: it starts with "
				     "'<?php'; --static-ext 'bak' publishes it as it is" },
	};
	for (size_t i = 0; i < COUNT(refused); i++) {
		CHECK_INT(-1, render(f.o, refused[i].target, NULL, &rs, f.err));
		CHECK_STR(refused[i].err, f.err);
		CHECK(rs.static_path == NULL);
		origin_response_release(&rs);
	}
	CHECK_INT(0, render(f.o, "/page.html", NULL, &rs, f.err));
	CHECK(rs.static_path != NULL);
	origin_response_release(&rs);
	fixture_close(&f);

	/* --static-ext allows an extension, in any case; "" the files without. */
	f.cfg.root = xstrdup(dir);
	strlist_add(&f.cfg.static_exts, ".SH");
	strlist_add(&f.cfg.static_exts, "");
	strlist_add(&f.cfg.static_exts, "txt");
	CHECK(fixture_open(&f, NULL));
	CHECK_INT(-1, render(f.o, "/readme.txt", NULL, &rs, f.err)); /* the file it names is not */
	origin_response_release(&rs);
	CHECK_INT(0, render(f.o, "/dl.sh", NULL, &rs, f.err));
	CHECK(rs.static_path && strstr(rs.static_path, "/dl.sh"));
	origin_response_release(&rs);
	CHECK_INT(0, render(f.o, "/run", NULL, &rs, f.err));
	CHECK(rs.static_path != NULL);
	origin_response_release(&rs);
	CHECK_INT(0, render(f.o, "/notes.txt", NULL, &rs, f.err));
	CHECK(rs.static_path != NULL);
	origin_response_release(&rs);
	CHECK_INT(-1, render(f.o, "/tool.Py", NULL, &rs, f.err));
	origin_response_release(&rs);
	fixture_close(&f);

	/* A front controller that would be copied is a set-up error; one
	 * with a handler runs. */
	f.cfg.root = xstrdup(dir);
	f.cfg.front_controller = xstrdup("/index.php");
	CHECK_OPEN_FAILS(&f, "front controller '/index.php' would be published as source: add --cgi php=php-cgi");
	f.cfg.root = xstrdup(dir);
	f.cfg.front_controller = xstrdup("/index.php");
	strlist_add(&f.cfg.cgi, "php=/bin/cat");
	CHECK(fixture_open(&f, NULL));
	fixture_close(&f);

	f.cfg.root = xstrdup(dir);
	strlist_add(&f.cfg.static_exts, "a.b");
	CHECK_OPEN_FAILS(&f, "bad --static-ext value 'a.b' (expected an extension, e.g. sh)");

	unlink(link);
	free(link);
	const char *names[] = { "index.php", "page.html", "notes.txt", "run", "dl.sh", "tool.Py",
				"sub/x.pl", "sub/db.inc", "config.php.bak" };
	for (size_t i = 0; i < COUNT(names); i++) {
		char *path = xasprintf("%s/%s", dir, names[i]);
		unlink(path);
		free(path);
	}
	rmdir(sub);
	rmdir(dir);
	free(sub);
}

TEST(origin_cgi_failures)
{
	struct fixture f = cgi_fixture();
	struct origin_response rs;
	CHECK(fixture_open(&f, NULL));
	char *noexec = xasprintf("cannot run '%s/noexec.cgi': Permission denied", docroot());
	const struct failure_case cases[] = {
		{ "/crash.cgi", "killed by signal 11 (SIGSEGV)" },
		{ "/garbage.cgi", "malformed header from script: 'this is not a header'" },
		{ "/notype.cgi", "no Content-Type" },
		{ "/exit2-garbage.cgi", "exited with status 2" },
		{ "/loop.cgi", "local redirect loop" },
		{ "/noexec.cgi", noexec },
	};
	for (size_t i = 0; i < COUNT(cases); i++) {
		strcpy(f.err, "(none)");
		CHECK_INT(-1, render(f.o, cases[i].target, NULL, &rs, f.err));
		CHECK_STR(cases[i].err, f.err);
		CHECK_INT(0, rs.nheaders);
		CHECK_INT(0, rs.body.len);
		origin_response_release(&rs);
	}
	free(noexec);

	/* What a failed program wrote is kept for the messages. */
	CHECK_INT(-1, render(f.o, "/exit2-garbage.cgi", NULL, &rs, f.err));
	CHECK_STR("not a header\n", rs.failed_output);
	origin_response_release(&rs);
	CHECK_INT(-1, render(f.o, "/crash.cgi", NULL, &rs, f.err));
	CHECK_STR("Content-Type: text/html\n\n<html><body>half", rs.failed_output);
	origin_response_release(&rs);
	CHECK_INT(-1, render(f.o, "/loop.cgi", NULL, &rs, f.err));
	CHECK(rs.failed_output == NULL);
	origin_response_release(&rs);

	/* A complete response is the response, whatever the exit status
	 * (RFC 3875): taken as sent, with a warning. */
	CHECK_INT(0, render(f.o, "/exit3.cgi", NULL, &rs, f.err));
	CHECK_INT(200, rs.status);
	CHECK_STR("fine\n", buf_str(&rs.body));
	CHECK_STR("the CGI program exited with status 3 after a complete response", rs.warning);
	CHECK(rs.failed_output == NULL);
	origin_response_release(&rs);
	CHECK_INT(0, render(f.o, "/exit1-404.cgi", NULL, &rs, f.err));
	CHECK_INT(404, rs.status);
	CHECK_STR("<p>could not find config-localhost.php</p>\n", buf_str(&rs.body));
	CHECK_STR("the CGI program exited with status 1 after a complete response", rs.warning);
	origin_response_release(&rs);
	CHECK_INT(0, render(f.o, "/hello.cgi", NULL, &rs, f.err));
	CHECK(rs.warning == NULL);
	origin_response_release(&rs);

	CHECK_INT(0, render(f.o, "/status.cgi", NULL, &rs, f.err));
	CHECK_INT(404, rs.status);
	CHECK_STR("<h1>gone</h1>\n", buf_str(&rs.body));
	origin_response_release(&rs);

	CHECK_INT(0, render(f.o, "/nonutf8.cgi", NULL, &rs, f.err));
	CHECK_INT(200, rs.status);
	CHECK_INT(7, rs.body.len);
	CHECK(rs.body.len == 7 && !memcmp(rs.body.data, "\377\376caf\351\n", 7));
	origin_response_release(&rs);

	CHECK_INT(0, render(f.o, "/away.cgi", NULL, &rs, f.err));
	CHECK_INT(302, rs.status);
	CHECK_STR("http://example.org/elsewhere", rs.location);
	origin_response_release(&rs);

	/* A local redirect is rendered by the origin itself. */
	CHECK_INT(0, render(f.o, "/local.cgi", NULL, &rs, f.err));
	CHECK_INT(200, rs.status);
	CHECK(rs.location == NULL);
	CHECK_LINE("/hello.cgi?from=local", &rs.body, "REQUEST_URI");
	CHECK_LINE("/hello.cgi", &rs.body, "SCRIPT_NAME");
	origin_response_release(&rs);
	fixture_close(&f);
}

TEST(origin_cgi_timeout_and_output_cap)
{
	struct fixture f = cgi_fixture();
	struct origin_response rs;
	f.cfg.timeout_s = 1;
	f.cfg.max_output_mb = 1;
	CHECK(fixture_open(&f, NULL));

	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	CHECK_INT(-1, render(f.o, "/hang.cgi", NULL, &rs, f.err));
	clock_gettime(CLOCK_MONOTONIC, &t1);
	CHECK_STR("timed out after 1 s", f.err);
	double took = (double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;
	CHECK(took >= 0.9 && took < 3);
	CHECK(!rs.over_max_output);
	origin_response_release(&rs);

	CHECK_INT(-1, render(f.o, "/huge.cgi", NULL, &rs, f.err));
	CHECK_STR("output over 1 MiB", f.err);
	CHECK(rs.over_max_output);
	origin_response_release(&rs);
	fixture_close(&f);
}

TEST(origin_cgi_body_over_the_memory_limit_goes_to_a_file)
{
	struct fixture f = { 0 };
	struct origin_response small, big;
	cgi_config(&f.cfg);
	CHECK(fixture_open(&f, NULL));
	CHECK_INT(0, render(f.o, "/hello.cgi", NULL, &small, f.err));
	CHECK(!small.body_in_file);
	origin_close(f.o);

	f.cfg.memory_max = 64;
	f.o = origin_open(&f.cfg, &f.site, f.err);
	CHECK(f.o != NULL);
	CHECK_INT(0, render(f.o, "/hello.cgi", NULL, &big, f.err));
	CHECK(big.body_in_file);
	CHECK_INT(0, big.body.len);
	CHECK_STR("world", origin_header(&big, "X-Hello"));
	CHECK_INT(small.body.len, origin_body_size(&big));
	CHECK_INT(0, origin_body_load(&big, f.err));
	CHECK_STR(buf_str(&small.body), buf_str(&big.body));
	origin_response_release(&big);

	/* HEAD: no body, in memory or in a file. */
	CHECK_INT(0, render(f.o, "/hello.cgi", "HEAD", &big, f.err));
	CHECK(!big.body_in_file);
	CHECK_INT(0, origin_body_size(&big));
	origin_response_release(&big);
	origin_response_release(&small);
	fixture_close(&f);
}

TEST(origin_cgi_stderr_goes_to_the_log)
{
	struct fixture f = { 0 };
	struct origin_response rs;
	struct capture cap;
	cgi_config(&f.cfg);
	CHECK(fixture_open(&f, NULL));
	capture_begin(&cap);
	int rc = render(f.o, "/stderr.cgi?x", NULL, &rs, f.err);
	char *logged = capture_end(&cap);
	CHECK_INT(0, rc);
	CHECK_STR("ok\n", buf_str(&rs.body));
	struct buf want = BUF_INIT;
	buf_adds(&want, "cgisnap: /stderr.cgi?x: first warning\n"
			"cgisnap: /stderr.cgi?x: second\n"
			"cgisnap: /stderr.cgi?x: ");
	for (int i = 0; i < 2000; i++)
		buf_addc(&want, 'x');
	buf_adds(&want, "...\ncgisnap: /stderr.cgi?x: no newline at the end\n");
	CHECK_STR(want.data, logged);
	buf_release(&want);
	free(logged);
	origin_response_release(&rs);
	fixture_close(&f);
}

TEST(origin_cgi_trace_pipe)
{
	struct fixture f = cgi_fixture();
	struct origin_response rs;
	/* Preloading libc again is harmless: the fixture writes the trace. */
	f.cfg.trace_lib = "libc.so.6";
	CHECK(fixture_open(&f, NULL));
	CHECK_INT(0, render(f.o, "/trace.cgi", NULL, &rs, f.err));
	CHECK_LINE("libc.so.6", &rs.body, "LD_PRELOAD");
	/* fd 3 and the pipe's inode: the tracer writes to that pipe only */
	char *fdv = line_value(&rs.body, "CGISNAP_TRACE_FD");
	CHECK(fdv && !strncmp(fdv, "3:", 2) && fdv[2] >= '1' && fdv[2] <= '9' && strspn(fdv + 2, "0123456789") == strlen(fdv + 2));
	free(fdv);
	CHECK(rs.untraced == NULL); /* the H line came, no X line */
	char *data = xasprintf("%s/data/page.txt", docroot());
	CHECK_INT(2, rs.deps_read.n);
	if (rs.deps_read.n == 2) {
		/* Sorted and unique: where the checkout lies decides the order. */
		const char *first = strcmp(data, "/etc/hostname") < 0 ? data : "/etc/hostname";
		const char *second = first == data ? "/etc/hostname" : data;
		CHECK_STR(first, rs.deps_read.items[0]);
		CHECK_STR(second, rs.deps_read.items[1]);
	}
	free(data);
	CHECK_INT(1, rs.deps_listed.n);
	CHECK_STR("/srv/a", rs.deps_listed.n ? rs.deps_listed.items[0] : NULL);
	CHECK_INT(1, rs.deps_written.n);
	CHECK_STR("/tmp/cache/x", rs.deps_written.n ? rs.deps_written.items[0] : NULL);
	origin_response_release(&rs);

	/* An X line: the trace is incomplete, the program and the reason
	 * (printable) say why. */
	char *script = xasprintf("%s/trace.cgi", docroot());
	CHECK_INT(0, render(f.o, "/trace.cgi?lost", NULL, &rs, f.err));
	CHECK_STR(script, rs.untraced);
	CHECK_STR("closed?the trace", rs.untraced_why);
	CHECK_INT(2, rs.deps_read.n); /* what came before it still counts */
	origin_response_release(&rs);
	/* No H line: the tracer never ran in it (a script: not an ELF) */
	CHECK_INT(0, render(f.o, "/trace.cgi?nohello", NULL, &rs, f.err));
	CHECK_STR(script, rs.untraced);
	CHECK_STR("ran without the tracer (LD_PRELOAD had no effect)", rs.untraced_why);
	origin_response_release(&rs);
	free(script);
	fixture_close(&f);

	/* Without tracing there is no fd 3 and no preload. */
	cgi_config(&f.cfg);
	CHECK(fixture_open(&f, NULL));
	CHECK_INT(0, render(f.o, "/trace.cgi", NULL, &rs, f.err));
	CHECK_LINE("", &rs.body, "LD_PRELOAD");
	CHECK_INT(0, rs.deps_read.n);
	CHECK(rs.untraced == NULL); /* nothing to judge */
	origin_response_release(&rs);
	fixture_close(&f);
}

TEST(origin_cgi_concurrent_renders_do_not_share_pipes)
{
	struct fixture f = cgi_fixture();
	CHECK(fixture_open(&f, NULL));
	/* A slow program next to fast ones; each lists its open files: had
	 * a program inherited another render's pipe, that render would wait
	 * for it to end. */
	struct hammer h[4] = { { f.o, "/sleep.cgi", 1, 0, 0, 0 },
			       { f.o, "/fds.cgi", 10, 0, 0, 0 },
			       { f.o, "/fds.cgi/b", 10, 0, 0, 0 },
			       { f.o, "/fds.cgi/c", 10, 0, 0, 0 } };
	pthread_t t[4];
	for (int i = 0; i < 4; i++)
		pthread_create(&t[i], NULL, hammer_run, &h[i]);
	for (int i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	for (int i = 0; i < 4; i++)
		CHECK_INT(0, h[i].failures);
	CHECK(h[0].slowest_ms >= 500);
	for (int i = 1; i < 4; i++) {
		CHECK_INT(2, h[i].pipes_seen);
		if (h[i].slowest_ms >= 2000)
			printf("    %s took %ld ms\n", h[i].target, h[i].slowest_ms);
		CHECK(h[i].slowest_ms < 2000);
	}
	fixture_close(&f);
}
