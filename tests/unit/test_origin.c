/* test_origin.c - the origins with real processes: CGI programs from
 * tests/fixtures/cgi/docroot, php-cgi, a FastCGI server (php-cgi -b, and a
 * fake one in a thread for the protocol's corners) and an HTTP server
 * (php -S), all on 127.0.0.1 or Unix sockets. */
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
#include "base/log.h"
#include "origin/origin.h"
#include "cli/originopts.h"
#include "unit.h"
#include "url/url.h"
#include "url/urlkey.h"
#include "base/xalloc.h"

#define DOCROOT "tests/fixtures/cgi/docroot"

extern char **environ;

static const char *docroot(void)
{
	static char path[PATH_MAX];
	if (!path[0] && !realpath(DOCROOT, path))
		snprintf(path, sizeof path, "%s", DOCROOT);
	return path;
}

static bool have_program(const char *name)
{
	char *cmd = xasprintf("command -v %s >/dev/null 2>&1", name);
	int rc = system(cmd);
	free(cmd);
	if (rc)
		printf("    # skipped: '%s' is not installed\n", name);
	return rc == 0;
}

/* A CGI configuration on the fixture docroot. */
static void cgi_config(struct origin_config *cfg)
{
	memset(cfg, 0, sizeof *cfg);
	cfg->root = xstrdup(docroot());
}

struct fixture {
	struct origin_config cfg;
	struct site site;
	struct origin *o;
	char err[ERR_LEN];
};

/* Open the origin of f->cfg for site_url (NULL: the default). */
static bool fixture_open(struct fixture *f, const char *site_url)
{
	if (site_url)
		f->cfg.site_url = xstrdup(site_url);
	origin_defaults(&f->cfg);
	memset(&f->site, 0, sizeof f->site);
	if (site_init(&f->site, f->cfg.site_url, f->err) < 0)
		return false;
	f->o = origin_open(&f->cfg, &f->site, f->err);
	if (!f->o)
		printf("    origin_open: %s\n", f->err);
	return f->o != NULL;
}

static void fixture_close(struct fixture *f)
{
	origin_close(f->o);
	origin_config_release(&f->cfg);
	site_release(&f->site);
}

static int render(struct origin *o, const char *target, const char *method,
		  struct origin_response *rs, char *err)
{
	struct origin_request rq = { target, method, NULL };
	return origin_render(o, &rq, rs, err);
}

/* The value of a "KEY=VALUE" line of a body (fresh), or NULL. */
static char *line_value(const struct buf *body, const char *key)
{
	const char *s = buf_str(body);
	size_t n = strlen(key);
	while (s && *s) {
		if (!strncmp(s, key, n) && s[n] == '=') {
			const char *end = strchr(s + n + 1, '\n');
			return end ? xstrndup(s + n + 1, (size_t)(end - s - n - 1)) : xstrdup(s + n + 1);
		}
		s = strchr(s, '\n');
		if (s)
			s++;
	}
	return NULL;
}

#define CHECK_LINE(expected, body, key)                 \
	do {                                            \
		char *v_ = line_value((body), (key));   \
		CHECK_STR((expected), v_);              \
		free(v_);                               \
	} while (0)

/* stderr into a file while the log is watched. */
struct capture {
	char path[64];
	int saved;
};

static void capture_begin(struct capture *c)
{
	snprintf(c->path, sizeof c->path, "/tmp/cgisnap-log-XXXXXX");
	fflush(stderr);
	int fd = mkstemp(c->path);
	c->saved = dup(2);
	dup2(fd, 2);
	close(fd);
}

/* What was logged (fresh). */
static char *capture_end(struct capture *c)
{
	struct buf b = BUF_INIT;
	fflush(stderr);
	dup2(c->saved, 2);
	close(c->saved);
	int fd = open(c->path, O_RDONLY);
	if (fd >= 0) {
		buf_read_fd(&b, fd, (size_t)1 << 30);
		close(fd);
	}
	unlink(c->path);
	return buf_detach(&b, NULL);
}

/* ---- CGI ---- */

/* The origin answers for its limits: what was configured, else the
 * defaults. */
TEST(origin_limits)
{
	struct fixture f = { 0 };
	cgi_config(&f.cfg);
	f.cfg.timeout_s = 7;
	f.cfg.max_output_mb = 3;
	if (fixture_open(&f, NULL)) {
		CHECK_INT(7, origin_timeout_s(f.o));
		CHECK_INT(3, origin_max_output_mb(f.o));
	} else {
		CHECK(false);
	}
	fixture_close(&f);

	struct fixture d = { 0 };
	cgi_config(&d.cfg);
	if (fixture_open(&d, NULL)) {
		CHECK_INT(ORIGIN_TIMEOUT_S, origin_timeout_s(d.o));
		CHECK_INT(ORIGIN_MAX_OUTPUT_MB, origin_max_output_mb(d.o));
	} else {
		CHECK(false);
	}
	fixture_close(&d);
}

TEST(origin_cgi_environment)
{
	struct fixture f = { 0 };
	struct origin_response rs;
	cgi_config(&f.cfg);
	strlist_add(&f.cfg.env, "CUSTOM=from --env");
	strlist_add(&f.cfg.env, "HTTP_USER_AGENT=overridden");
	if (!fixture_open(&f, "http://Example.ORG:8080/")) {
		CHECK(false);
		fixture_close(&f);
		return;
	}
	CHECK_INT(ORIGIN_CGI, origin_kind(f.o));
	CHECK_INT(0, render(f.o, "/hello.cgi?x=1&y=%20", NULL, &rs, f.err));
	CHECK_INT(200, rs.status);
	CHECK_STR("text/plain", rs.content_type);
	CHECK_STR("world", origin_header(&rs, "x-hello"));
	CHECK_STR("a=1", origin_header(&rs, "Set-Cookie"));
	CHECK_INT(4, rs.nheaders);
	CHECK(rs.static_path == NULL);
	CHECK_LINE("CGI/1.1", &rs.body, "GATEWAY_INTERFACE");
	CHECK_LINE("HTTP/1.1", &rs.body, "SERVER_PROTOCOL");
	CHECK_LINE("cgisnap/" CGISNAP_VERSION, &rs.body, "SERVER_SOFTWARE");
	CHECK_LINE("example.org", &rs.body, "SERVER_NAME");
	CHECK_LINE("8080", &rs.body, "SERVER_PORT");
	CHECK_LINE("example.org:8080", &rs.body, "HTTP_HOST");
	CHECK_LINE("GET", &rs.body, "REQUEST_METHOD");
	CHECK_LINE("/hello.cgi?x=1&y=%20", &rs.body, "REQUEST_URI");
	CHECK_LINE("/hello.cgi", &rs.body, "SCRIPT_NAME");
	CHECK_LINE("(unset)", &rs.body, "PATH_INFO");
	CHECK_LINE("x=1&y=%20", &rs.body, "QUERY_STRING");
	CHECK_LINE("127.0.0.1", &rs.body, "REMOTE_ADDR");
	CHECK_LINE("http", &rs.body, "REQUEST_SCHEME");
	CHECK_LINE("200", &rs.body, "REDIRECT_STATUS");
	CHECK_LINE("(unset)", &rs.body, "HTTPS");
	CHECK_LINE("overridden", &rs.body, "HTTP_USER_AGENT");
	CHECK_LINE("from --env", &rs.body, "CUSTOM");
	CHECK_LINE(docroot(), &rs.body, "cwd");
	/* Nothing of cgisnap's own environment but PATH. */
	CHECK_LINE("CUSTOM DOCUMENT_ROOT GATEWAY_INTERFACE HTTP_HOST HTTP_USER_AGENT PATH "
		   "QUERY_STRING REDIRECT_STATUS REMOTE_ADDR REQUEST_METHOD REQUEST_SCHEME "
		   "REQUEST_URI SCRIPT_FILENAME SCRIPT_NAME SERVER_NAME SERVER_PORT "
		   "SERVER_PROTOCOL SERVER_SOFTWARE ",
		   &rs.body, "names");
	CHECK(rs.render_ms >= 0 && rs.render_ms < 5000);
	origin_response_release(&rs);

	/* HEAD reaches the program; the body is dropped as a server would. */
	CHECK_INT(0, render(f.o, "/hello.cgi", "HEAD", &rs, f.err));
	CHECK_INT(200, rs.status);
	CHECK_STR("HEAD", origin_header(&rs, "X-Method"));
	CHECK_INT(0, rs.body.len);
	origin_response_release(&rs);
	CHECK_INT(0, render(f.o, "/pathinfo.cgi", "HEAD", &rs, f.err));
	origin_response_release(&rs);
	fixture_close(&f);
}

TEST(origin_cgi_https_site_and_default_port)
{
	struct fixture f = { 0 };
	struct origin_response rs;
	cgi_config(&f.cfg);
	CHECK(fixture_open(&f, "https://secure.example/"));
	CHECK_INT(0, render(f.o, "/hello.cgi", NULL, &rs, f.err));
	CHECK_LINE("on", &rs.body, "HTTPS");
	CHECK_LINE("https", &rs.body, "REQUEST_SCHEME");
	CHECK_LINE("443", &rs.body, "SERVER_PORT");
	CHECK_LINE("secure.example", &rs.body, "HTTP_HOST");
	CHECK_LINE("", &rs.body, "QUERY_STRING");
	origin_response_release(&rs);
	fixture_close(&f);
}

TEST(origin_cgi_files_and_directories)
{
	struct fixture f = { 0 };
	struct origin_response rs;
	char *path;
	cgi_config(&f.cfg);
	CHECK(fixture_open(&f, "http://localhost:8080/"));

	CHECK_INT(0, render(f.o, "/style.css", NULL, &rs, f.err));
	CHECK_INT(200, rs.status);
	path = xasprintf("%s/style.css", docroot());
	CHECK_STR(path, rs.static_path);
	free(path);
	CHECK_INT(21, rs.static_size);
	CHECK_INT(0, rs.body.len);
	CHECK_STR(mime_from_name("style.css"), rs.content_type);
	origin_response_release(&rs);

	/* Apache's DirectorySlash: absolute on the site, query kept. */
	CHECK_INT(0, render(f.o, "/sub", NULL, &rs, f.err));
	CHECK_INT(301, rs.status);
	CHECK_STR("http://localhost:8080/sub/", rs.location);
	origin_response_release(&rs);
	CHECK_INT(0, render(f.o, "/sub?a=1", NULL, &rs, f.err));
	CHECK_STR("http://localhost:8080/sub/?a=1", rs.location);
	origin_response_release(&rs);

	CHECK_INT(0, render(f.o, "/sub/", NULL, &rs, f.err));
	CHECK_INT(200, rs.status);
	path = xasprintf("%s/sub/index.html", docroot());
	CHECK_STR(path, rs.static_path);
	free(path);
	origin_response_release(&rs);
	CHECK_INT(0, render(f.o, "/sub/page.html", NULL, &rs, f.err));
	CHECK(rs.static_path && strstr(rs.static_path, "/sub/page.html"));
	origin_response_release(&rs);

	/* The root has no index: no file, no front controller, 404. */
	const char *missing[] = { "/", "/nope", "/nope/deeper", "/style.css/extra", "/.hidden",
				  "/sub/%2e%2e/hello.cgi", "/%2e%2e/etc/passwd", "/sub/..%2fhello.cgi",
				  "/hello.cgi%00x", "/sub/.%2e/.hidden" };
	for (size_t i = 0; i < sizeof missing / sizeof missing[0]; i++) {
		CHECK_INT(0, render(f.o, missing[i], NULL, &rs, f.err));
		if (rs.status != 404)
			printf("    %s gave %d\n", missing[i], rs.status);
		CHECK_INT(404, rs.status);
		CHECK_STR("text/html", rs.content_type);
		CHECK_STR("Not Found", buf_str(&rs.body));
		CHECK(rs.static_path == NULL);
		origin_response_release(&rs);
	}
	CHECK_INT(0, render(f.o, "/nope", "HEAD", &rs, f.err));
	CHECK_INT(404, rs.status);
	CHECK_INT(0, rs.body.len);
	origin_response_release(&rs);
	CHECK_INT(-1, render(f.o, "no-slash", NULL, &rs, f.err));
	CHECK_STR("bad target 'no-slash'", f.err);
	fixture_close(&f);

	/* Index names are tried in order, spaces around them ignored. */
	cgi_config(&f.cfg);
	f.cfg.index = xstrdup(" nope.html , page.html,index.html");
	CHECK(fixture_open(&f, NULL));
	CHECK_INT(0, render(f.o, "/sub/", NULL, &rs, f.err));
	CHECK(rs.static_path && strstr(rs.static_path, "/sub/page.html"));
	origin_response_release(&rs);
	fixture_close(&f);
}

TEST(origin_cgi_path_info)
{
	struct fixture f = { 0 };
	struct origin_response rs;
	cgi_config(&f.cfg);
	CHECK(fixture_open(&f, NULL));
	CHECK_INT(0, render(f.o, "/pathinfo.cgi/a/b%20c/?q=1", NULL, &rs, f.err));
	CHECK_LINE("/pathinfo.cgi", &rs.body, "SCRIPT_NAME");
	CHECK_LINE("/a/b c/", &rs.body, "PATH_INFO");
	char *translated = xasprintf("%s/a/b c/", docroot());
	CHECK_LINE(translated, &rs.body, "PATH_TRANSLATED");
	free(translated);
	CHECK_LINE("/pathinfo.cgi/a/b%20c/?q=1", &rs.body, "REQUEST_URI");
	CHECK_LINE("q=1", &rs.body, "QUERY_STRING");
	origin_response_release(&rs);

	CHECK_INT(0, render(f.o, "/pathinfo.cgi", NULL, &rs, f.err));
	CHECK_LINE("(unset)", &rs.body, "PATH_INFO");
	CHECK_LINE("(unset)", &rs.body, "PATH_TRANSLATED");
	origin_response_release(&rs);
	fixture_close(&f);
}

/* --script-alias and --path-alias, as Apache's ScriptAlias and Alias. */
TEST(origin_cgi_mounts)
{
	struct fixture f = { 0 };
	struct origin_response rs;
	cgi_config(&f.cfg);
	char *spec = xasprintf("/tool=%s/pathinfo.cgi", docroot());
	strlist_add_owned(&f.cfg.script_aliases, spec);
	strlist_add_owned(&f.cfg.path_aliases, xasprintf("/m=%s/sub", docroot()));
	strlist_add_owned(&f.cfg.path_aliases, xasprintf("/m/app/=%s/app", docroot()));
	strlist_add_owned(&f.cfg.path_aliases, xasprintf("/cgi=%s", docroot()));
	CHECK(fixture_open(&f, NULL));

	/* The rest of the path, decoded as a web server passes it: spaces,
	 * UTF-8 and an encoded slash. REQUEST_URI stays as it came. */
	CHECK_INT(0, render(f.o, "/tool/a%20b/%C3%A9t%C3%A9/x%2Fy?q=1", NULL, &rs, f.err));
	CHECK_INT(200, rs.status);
	CHECK_LINE("/tool", &rs.body, "SCRIPT_NAME");
	CHECK_LINE("/a b/\xc3\xa9t\xc3\xa9/x/y", &rs.body, "PATH_INFO");
	char *translated = xasprintf("%s/a b/\xc3\xa9t\xc3\xa9/x/y", docroot());
	CHECK_LINE(translated, &rs.body, "PATH_TRANSLATED");
	free(translated);
	CHECK_LINE("/tool/a%20b/%C3%A9t%C3%A9/x%2Fy?q=1", &rs.body, "REQUEST_URI");
	CHECK_LINE("q=1", &rs.body, "QUERY_STRING");
	origin_response_release(&rs);
	/* The prefix itself runs the program with no PATH_INFO; /tool/ has "/". */
	CHECK_INT(0, render(f.o, "/tool?x", NULL, &rs, f.err));
	CHECK_LINE("/tool", &rs.body, "SCRIPT_NAME");
	CHECK_LINE("(unset)", &rs.body, "PATH_INFO");
	origin_response_release(&rs);
	CHECK_INT(0, render(f.o, "/tool/", NULL, &rs, f.err));
	CHECK_LINE("/", &rs.body, "PATH_INFO");
	origin_response_release(&rs);
	/* Only at a segment boundary; a NUL in PATH_INFO is refused. */
	CHECK_INT(0, render(f.o, "/toolbox", NULL, &rs, f.err));
	CHECK_INT(404, rs.status);
	origin_response_release(&rs);
	CHECK_INT(0, render(f.o, "/tool/a%00b", NULL, &rs, f.err));
	CHECK_INT(404, rs.status);
	origin_response_release(&rs);

	/* A directory: redirected to its slash, then its index; the longest
	 * prefix wins; dotfiles stay refused. */
	CHECK_INT(0, render(f.o, "/m?a=1", NULL, &rs, f.err));
	CHECK_INT(301, rs.status);
	CHECK_STR("http://localhost/m/?a=1", rs.location);
	origin_response_release(&rs);
	CHECK_INT(0, render(f.o, "/m/", NULL, &rs, f.err));
	CHECK(rs.static_path && strstr(rs.static_path, "/sub/index.html"));
	origin_response_release(&rs);
	CHECK_INT(0, render(f.o, "/m/page.html", NULL, &rs, f.err));
	CHECK(rs.static_path && strstr(rs.static_path, "/sub/page.html"));
	origin_response_release(&rs);
	CHECK_INT(0, render(f.o, "/m/app/front.cgi/x%20y", NULL, &rs, f.err));
	CHECK_LINE("/m/app/front.cgi", &rs.body, "SCRIPT_NAME");
	CHECK_LINE("/x y", &rs.body, "PATH_INFO");
	origin_response_release(&rs);
	CHECK_INT(0, render(f.o, "/cgi/.hidden", NULL, &rs, f.err));
	CHECK_INT(404, rs.status);
	origin_response_release(&rs);
	CHECK_INT(0, render(f.o, "/m/nope.html", NULL, &rs, f.err));
	CHECK_INT(404, rs.status);
	origin_response_release(&rs);
	/* Scripts under a mounted directory: SCRIPT_NAME under the prefix. */
	CHECK_INT(0, render(f.o, "/cgi/pathinfo.cgi/p", NULL, &rs, f.err));
	CHECK_LINE("/cgi/pathinfo.cgi", &rs.body, "SCRIPT_NAME");
	CHECK_LINE("/p", &rs.body, "PATH_INFO");
	origin_response_release(&rs);
	CHECK_INT(-1, render(f.o, "/cgi/noexec.cgi", NULL, &rs, f.err));
	origin_response_release(&rs);
	fixture_close(&f);
}

/* A link in a mounted directory is followed, into --root too; with
 * --no-follow-symlinks it may not lead out of the directory. */
TEST(origin_cgi_path_alias_links)
{
	struct fixture f = { 0 };
	struct origin_response rs;
	char *dir = unit_temp_dir("mount");
	unit_put(dir, "in.txt", "inside\n");
	char *target = xasprintf("%s/style.css", docroot()), *link = xasprintf("%s/out.css", dir);
	char *inner = xasprintf("%s/in-link.txt", dir);
	CHECK_INT(0, symlink(target, link));
	CHECK_INT(0, symlink("in.txt", inner));
	for (int no_follow = 0; no_follow < 2; no_follow++) {
		cgi_config(&f.cfg);
		strlist_add_owned(&f.cfg.path_aliases, xasprintf("/d=%s", dir));
		f.cfg.no_follow_symlinks = no_follow;
		CHECK(fixture_open(&f, NULL));
		CHECK_INT(0, render(f.o, "/d/out.css", NULL, &rs, f.err));
		CHECK_INT(no_follow ? 404 : 200, rs.status);
		CHECK(no_follow ? rs.static_path == NULL : rs.static_path && !strcmp(rs.static_path, link));
		origin_response_release(&rs);
		CHECK_INT(0, render(f.o, "/d/in-link.txt", NULL, &rs, f.err));
		CHECK_INT(200, rs.status);
		CHECK(rs.static_path != NULL);
		origin_response_release(&rs);
		fixture_close(&f);
	}
	unit_remove_tree(dir);
	free(dir);
	free(target);
	free(link);
	free(inner);
}

/* A program whose extension has a --cgi handler runs through it, as
 * Apache with PHP would given SCRIPT_FILENAME. */
TEST(origin_cgi_script_alias_handler)
{
	if (!have_program("php-cgi"))
		return;
	struct fixture f = { 0 };
	struct origin_response rs;
	cgi_config(&f.cfg);
	strlist_add(&f.cfg.cgi, "php=php-cgi");
	strlist_add_owned(&f.cfg.script_aliases, xasprintf("/blog=%s/info.php", docroot()));
	CHECK(fixture_open(&f, NULL));
	CHECK_INT(0, render(f.o, "/blog/2019/post?nosession", NULL, &rs, f.err));
	CHECK_INT(200, rs.status);
	CHECK_LINE("/blog", &rs.body, "SCRIPT_NAME");
	CHECK_LINE("/2019/post", &rs.body, "PATH_INFO");
	char *fn = xasprintf("%s/info.php", docroot());
	CHECK_LINE(fn, &rs.body, "SCRIPT_FILENAME");
	free(fn);
	CHECK_LINE("/blog/2019/post?nosession", &rs.body, "REQUEST_URI");
	origin_response_release(&rs);
	fixture_close(&f);
}

TEST(origin_cgi_front_controller)
{
	struct fixture f = { 0 };
	struct origin_response rs;
	cgi_config(&f.cfg);
	f.cfg.front_controller = xstrdup("/app/front.cgi");
	CHECK(fixture_open(&f, NULL));
	CHECK_INT(0, render(f.o, "/2024/05/a-post/?replytocom=3", NULL, &rs, f.err));
	CHECK_INT(200, rs.status);
	CHECK_LINE("/app/front.cgi", &rs.body, "SCRIPT_NAME");
	CHECK_LINE("(unset)", &rs.body, "PATH_INFO");
	CHECK_LINE("/2024/05/a-post/?replytocom=3", &rs.body, "REQUEST_URI");
	CHECK_LINE("replytocom=3", &rs.body, "QUERY_STRING");
	origin_response_release(&rs);
	/* The root has no index file either: the front controller answers. */
	CHECK_INT(0, render(f.o, "/", NULL, &rs, f.err));
	CHECK_LINE("/app/front.cgi", &rs.body, "SCRIPT_NAME");
	origin_response_release(&rs);
	/* Files still win; refused paths stay refused. */
	CHECK_INT(0, render(f.o, "/style.css", NULL, &rs, f.err));
	CHECK(rs.static_path != NULL);
	origin_response_release(&rs);
	CHECK_INT(0, render(f.o, "/.hidden", NULL, &rs, f.err));
	CHECK_INT(404, rs.status);
	origin_response_release(&rs);
	fixture_close(&f);
}

/* Links are followed out of the root (Apache's FollowSymLinks); with
 * --no-follow-symlinks only those staying inside. */
TEST(origin_cgi_symlinks)
{
	char dir[] = "/tmp/cgisnap-root-XXXXXX";
	CHECK(mkdtemp(dir) != NULL);
	char *in = xasprintf("%s/in.html", dir), *ok = xasprintf("%s/ok.html", dir);
	char *out = xasprintf("%s/out.html", dir), *outdir = xasprintf("%s/outdir", dir);
	FILE *fp = fopen(in, "w");
	fputs("<p>in</p>\n", fp);
	fclose(fp);
	CHECK_INT(0, symlink("in.html", ok));
	CHECK_INT(0, symlink("/etc/passwd", out));
	CHECK_INT(0, symlink("/etc", outdir));

	for (int no_follow = 0; no_follow < 2; no_follow++) {
		struct fixture f = { 0 };
		struct origin_response rs;
		f.cfg.root = xstrdup(dir);
		f.cfg.no_follow_symlinks = no_follow;
		CHECK(fixture_open(&f, NULL));
		CHECK_INT(0, render(f.o, "/ok.html", NULL, &rs, f.err));
		CHECK_INT(200, rs.status);
		CHECK_INT(10, rs.static_size);
		origin_response_release(&rs);
		CHECK_INT(0, render(f.o, "/out.html", NULL, &rs, f.err));
		CHECK_INT(no_follow ? 404 : 200, rs.status);
		/* The answer is a 404; why is said beside it. */
		CHECK(!no_follow || (rs.refused && strstr(rs.refused, "'out.html' is a symbolic link leaving "
									  "the document root")));
		origin_response_release(&rs);
		CHECK_INT(0, render(f.o, "/outdir/passwd", NULL, &rs, f.err));
		CHECK_INT(no_follow ? 404 : 200, rs.status);
		CHECK(!no_follow || (rs.refused && strstr(rs.refused, "'outdir' is a symbolic link leaving "
									  "the document root")));
		/* The file keeps the path it was found at, under the root. */
		char *want = xasprintf("%s/outdir/passwd", dir);
		CHECK(no_follow || (rs.static_path && !strcmp(rs.static_path, want)));
		free(want);
		origin_response_release(&rs);
		CHECK_INT(0, render(f.o, "/missing.html", NULL, &rs, f.err));
		CHECK_INT(404, rs.status);
		CHECK(rs.refused == NULL);
		origin_response_release(&rs);
		fixture_close(&f);
	}

	unlink(ok);
	unlink(out);
	unlink(outdir);
	unlink(in);
	rmdir(dir);
	free(in);
	free(ok);
	free(out);
	free(outdir);
}

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
	for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
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
	origin_defaults(&f.cfg);
	CHECK_INT(0, site_init(&f.site, "http://localhost/", f.err));
	f.o = origin_open(&f.cfg, &f.site, f.err);
	CHECK(f.o == NULL);
	CHECK_STR("front controller '/index.php' would be published as source: add --cgi php=php-cgi",
		  f.err);
	fixture_close(&f);
	f.cfg.root = xstrdup(dir);
	f.cfg.front_controller = xstrdup("/index.php");
	strlist_add(&f.cfg.cgi, "php=/bin/cat");
	CHECK(fixture_open(&f, NULL));
	fixture_close(&f);

	f.cfg.root = xstrdup(dir);
	strlist_add(&f.cfg.static_exts, "a.b");
	origin_defaults(&f.cfg);
	CHECK_INT(0, site_init(&f.site, "http://localhost/", f.err));
	f.o = origin_open(&f.cfg, &f.site, f.err);
	CHECK(f.o == NULL);
	CHECK_STR("bad --static-ext value 'a.b' (expected an extension, e.g. sh)", f.err);
	fixture_close(&f);

	unlink(link);
	free(link);
	const char *names[] = { "index.php", "page.html", "notes.txt", "run", "dl.sh", "tool.Py",
				"sub/x.pl", "sub/db.inc", "config.php.bak" };
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
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
	struct fixture f = { 0 };
	struct origin_response rs;
	cgi_config(&f.cfg);
	CHECK(fixture_open(&f, NULL));
	char *noexec = xasprintf("cannot run '%s/noexec.cgi': Permission denied", docroot());
	const struct failure_case cases[] = {
		{ "/crash.cgi", "killed by signal 11 (SIGSEGV)" },
		{ "/garbage.cgi", "bad header line 'this is not a header'" },
		{ "/notype.cgi", "no Content-Type" },
		{ "/exit2-garbage.cgi", "exited with status 2" },
		{ "/loop.cgi", "local redirect loop" },
		{ "/noexec.cgi", noexec },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
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
	struct fixture f = { 0 };
	struct origin_response rs;
	cgi_config(&f.cfg);
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
	struct fixture f = { 0 };
	struct origin_response rs;
	cgi_config(&f.cfg);
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

struct hammer {
	struct origin *o;
	const char *target;
	int times;
	int failures;
	long slowest_ms;
	int pipes_seen;         /* most "pipe:" in a body */
};

static int count(const char *s, const char *needle)
{
	int n = 0;
	while ((s = strstr(s, needle))) {
		n++;
		s += strlen(needle);
	}
	return n;
}

static void *hammer_run(void *arg)
{
	struct hammer *h = arg;
	for (int i = 0; i < h->times; i++) {
		struct origin_response rs;
		char err[ERR_LEN];
		if (render(h->o, h->target, NULL, &rs, err) < 0 || rs.status != 200) {
			printf("    %s: %s\n", h->target, err);
			h->failures++;
		}
		if (rs.render_ms > h->slowest_ms)
			h->slowest_ms = rs.render_ms;
		int pipes = count(buf_str(&rs.body), "pipe:");
		if (pipes > h->pipes_seen)
			h->pipes_seen = pipes;
		origin_response_release(&rs);
	}
	return NULL;
}

TEST(origin_cgi_concurrent_renders_do_not_share_pipes)
{
	struct fixture f = { 0 };
	cgi_config(&f.cfg);
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

/* ---- set-up errors ---- */

struct open_case {
	const char *root;
	const char *cgi;
	const char *env;
	const char *fastcgi;
	const char *origin;
	const char *front;
	const char *err;        /* "%s": the docroot */
};

TEST(origin_open_errors)
{
	const struct open_case cases[] = {
		{ "/nonexistent", NULL, NULL, NULL, NULL, NULL,
		  "document root '/nonexistent' is not a directory" },
		{ DOCROOT "/style.css", NULL, NULL, NULL, NULL, NULL,
		  "document root '" DOCROOT "/style.css' is not a directory" },
		{ DOCROOT, "php", NULL, NULL, NULL, NULL, "bad --cgi value 'php' (expected EXT=PROGRAM)" },
		{ DOCROOT, "=/bin/sh", NULL, NULL, NULL, NULL,
		  "bad --cgi value '=/bin/sh' (expected EXT=PROGRAM)" },
		{ DOCROOT, "php=", NULL, NULL, NULL, NULL, "bad --cgi value 'php=' (expected EXT=PROGRAM)" },
		{ DOCROOT, "php=/etc/passwd", NULL, NULL, NULL, NULL,
		  "CGI handler '/etc/passwd' is not executable" },
		{ DOCROOT, "php=/tmp", NULL, NULL, NULL, NULL, "CGI handler '/tmp' is not executable" },
		{ DOCROOT, "php=no-such-program-cgisnap", NULL, NULL, NULL, NULL,
		  "CGI handler 'no-such-program-cgisnap' is not on PATH" },
		{ DOCROOT, NULL, "NOEQUALS", NULL, NULL, NULL,
		  "bad --env value 'NOEQUALS' (expected NAME=VALUE)" },
		{ DOCROOT, NULL, "1BAD=x", NULL, NULL, NULL, "bad --env value '1BAD=x' (expected NAME=VALUE)" },
		{ DOCROOT, NULL, NULL, NULL, NULL, "/nope.cgi",
		  "front controller '/nope.cgi' is not a file under '%s'" },
		{ DOCROOT, NULL, NULL, NULL, NULL, "app/front.cgi",
		  "front controller 'app/front.cgi' is not a file under '%s'" },
		{ NULL, NULL, NULL, "127.0.0.1:9", "http://127.0.0.1:9/", NULL,
		  "choose one origin: --root/--cgi (CGI), --fastcgi (FastCGI) or --origin (HTTP)" },
		{ DOCROOT, NULL, NULL, NULL, "http://127.0.0.1:9/", NULL,
		  "choose one origin: --root/--cgi (CGI), --fastcgi (FastCGI) or --origin (HTTP)" },
		{ DOCROOT, "sh=/bin/sh", NULL, "127.0.0.1:9", NULL, NULL,
		  "choose one origin: --root/--cgi (CGI), --fastcgi (FastCGI) or --origin (HTTP)" },
		{ NULL, NULL, NULL, NULL, NULL, NULL,
		  "no origin given: use --root DIR (CGI), --fastcgi ADDR or --origin URL" },
		{ NULL, NULL, NULL, "127.0.0.1:9", NULL, NULL, "--fastcgi needs --root DIR (where the scripts are)" },
		{ NULL, "sh=/bin/sh", NULL, NULL, NULL, NULL, "--cgi needs --root DIR (where the scripts are)" },
		{ DOCROOT, NULL, NULL, "127.0.0.1:9", NULL, NULL,
		  "cannot connect to FastCGI server '127.0.0.1:9': Connection refused" },
		{ DOCROOT, NULL, NULL, "unix:/nonexistent/php.sock", NULL, NULL,
		  "cannot connect to FastCGI server 'unix:/nonexistent/php.sock': No such file or directory" },
		{ DOCROOT, NULL, NULL, "nocolon", NULL, NULL,
		  "bad FastCGI address 'nocolon' (expected unix:/path or HOST:PORT)" },
		{ NULL, NULL, NULL, NULL, "http://127.0.0.1:9/", NULL,
		  "cannot reach HTTP origin 'http://127.0.0.1:9': connection refused" },
		{ NULL, NULL, NULL, NULL, "ftp://127.0.0.1/", NULL, "bad --origin URL 'ftp://127.0.0.1/': not an http or https URL" },
		{ NULL, NULL, NULL, NULL, "http://127.0.0.1:70000/", NULL,
		  "bad --origin URL 'http://127.0.0.1:70000/': port out of range" },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		const struct open_case *c = &cases[i];
		struct fixture f = { 0 };
		if (c->root)
			f.cfg.root = xstrdup(c->root);
		if (c->cgi)
			strlist_add(&f.cfg.cgi, c->cgi);
		if (c->env)
			strlist_add(&f.cfg.env, c->env);
		if (c->fastcgi)
			f.cfg.fastcgi = xstrdup(c->fastcgi);
		if (c->origin)
			f.cfg.origin_url = xstrdup(c->origin);
		if (c->front)
			f.cfg.front_controller = xstrdup(c->front);
		origin_defaults(&f.cfg);
		CHECK_INT(0, site_init(&f.site, "http://localhost/", f.err));
		f.o = origin_open(&f.cfg, &f.site, f.err);
		CHECK(f.o == NULL);
		char *want = xasprintf(c->err, docroot());
		CHECK_STR(want, f.o ? "(opened)" : f.err);
		free(want);
		fixture_close(&f);
	}
}

/* A bad mount is a set-up error naming it. "%s": the docroot. */
TEST(origin_open_mount_errors)
{
	const struct { const char *script; const char *path; const char *err; } cases[] = {
		{ "tool=/bin/true", NULL, "bad --script-alias prefix 'tool': it must start with '/'" },
		{ "/a/../b=/bin/true", NULL, "bad --script-alias prefix '/a/../b': a '..' segment" },
		{ "/tool", NULL, "bad --script-alias value '/tool' (expected /PREFIX=PROGRAM)" },
		{ "/tool=%s/nope.cgi", NULL, "--script-alias program '%s/nope.cgi' is not a file" },
		{ "/tool=/nonexistent/x.cgi", NULL, "--script-alias program '/nonexistent/x.cgi' is not a file" },
		{ "/tool=%s/sub", NULL, "--script-alias program '%s/sub' is not a file" },
		{ "/tool=%s/noexec.cgi", NULL, "--script-alias program '%s/noexec.cgi' is not executable" },
		{ "/tool=%s/info.php", NULL, "--script-alias program '%s/info.php' is not executable" },
		{ "/tool/=%s/hello.cgi", "/tool=%s/sub", "--path-alias prefix '/tool' is mounted twice" },
		{ NULL, "/lib=%s/style.css", "--path-alias directory '%s/style.css' is not a directory" },
		{ NULL, "/lib=/nonexistent", "--path-alias directory '/nonexistent' is not a directory" },
		{ NULL, "/a%%00=/tmp", "bad --path-alias prefix '/a%%00': a NUL byte" },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct fixture f = { 0 };
		cgi_config(&f.cfg);
		if (cases[i].script)
			strlist_add_owned(&f.cfg.script_aliases, xasprintf(cases[i].script, docroot()));
		if (cases[i].path)
			strlist_add_owned(&f.cfg.path_aliases, xasprintf(cases[i].path, docroot()));
		origin_defaults(&f.cfg);
		CHECK_INT(0, site_init(&f.site, "http://localhost/", f.err));
		f.o = origin_open(&f.cfg, &f.site, f.err);
		CHECK(f.o == NULL);
		char *want = xasprintf(cases[i].err, docroot());
		CHECK_STR(want, f.o ? "(opened)" : f.err);
		free(want);
		fixture_close(&f);
	}
	/* Mounts belong to the CGI environment: no --root, no mounts. */
	struct fixture f = { 0 };
	strlist_add(&f.cfg.script_aliases, "/tool=/bin/true");
	f.cfg.origin_url = xstrdup("http://127.0.0.1:9/");
	origin_defaults(&f.cfg);
	CHECK_INT(0, site_init(&f.site, "http://localhost/", f.err));
	f.o = origin_open(&f.cfg, &f.site, f.err);
	CHECK(f.o == NULL);
	CHECK_STR("--script-alias needs --root DIR (the document root; with --origin, mount on the HTTP server)",
		  f.o ? "(opened)" : f.err);
	fixture_close(&f);
	/* A FastCGI server runs only *.php: a program is checked before connecting. */
	memset(&f, 0, sizeof f);
	cgi_config(&f.cfg);
	f.cfg.fastcgi = xstrdup("127.0.0.1:9");
	strlist_add_owned(&f.cfg.script_aliases, xasprintf("/tool=%s/pathinfo.cgi", docroot()));
	origin_defaults(&f.cfg);
	CHECK_INT(0, site_init(&f.site, "http://localhost/", f.err));
	f.o = origin_open(&f.cfg, &f.site, f.err);
	CHECK(f.o == NULL);
	char *want = xasprintf("--script-alias program '%s/pathinfo.cgi' cannot run over FastCGI: the FastCGI "
			       "server runs only *.php", docroot());
	CHECK_STR(want, f.o ? "(opened)" : f.err);
	free(want);
	fixture_close(&f);
}

TEST(origin_config_defaults_and_options)
{
	struct origin_config cfg;
	memset(&cfg, 0, sizeof cfg);
	origin_defaults(&cfg);
	CHECK_STR("index.html,index.php", cfg.index);
	CHECK_STR("http://localhost/", cfg.site_url);
	CHECK_INT(30, cfg.timeout_s);
	CHECK_INT(64, cfg.max_output_mb);
	origin_config_release(&cfg);
	cfg.origin_url = xstrdup("http://127.0.0.1:8080/");
	origin_defaults(&cfg);
	CHECK_STR("http://127.0.0.1:8080/", cfg.site_url);
	origin_config_release(&cfg);

	const char *names[] = { "root", "cgi", "index", "front-controller", "env", "no-php-defaults",
				"fastcgi", "origin", "site-url", "alias", "timeout", "max-output",
				"script-alias", "path-alias", "cgi-mode", "cgi-max-requests", "cgi-spawn" };
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
		bool found = false;
		for (const struct opt *o = origin_opts; o->name; o++)
			found |= !strcmp(o->name, names[i]);
		if (!found)
			printf("    no option '%s'\n", names[i]);
		CHECK(found);
	}
}

/* ---- php-cgi ---- */

static bool dir_exists(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* The same environment from a process per render (opcache off: each one
 * would pay for it) and from a persistent worker (opcache on). */
static void php_cgi_defaults_in(const char *mode, const char *opcache)
{
	struct fixture f = { 0 };
	struct origin_response rs;
	cgi_config(&f.cfg);
	f.cfg.cgi_mode = xstrdup(mode);
	strlist_add(&f.cfg.cgi, "php=php-cgi");
	strlist_add(&f.cfg.env, "CUSTOM=yes");
	CHECK(fixture_open(&f, "https://example.org:8443/"));
	CHECK_INT(0, render(f.o, "/info.php/extra/path?q=1&r=%2F", NULL, &rs, f.err));
	CHECK_INT(200, rs.status);
	CHECK_STR("text/plain;charset=UTF-8", rs.content_type);
	CHECK_STR("yes", origin_header(&rs, "X-Php"));
	CHECK(origin_header(&rs, "Set-Cookie") != NULL);
	CHECK_LINE(opcache, &rs.body, "opcache");
	char *save_path = line_value(&rs.body, "save_path");
	char *session = line_value(&rs.body, "session");
	CHECK(save_path && strstr(save_path, "/cgisnap-php-"));
	if (save_path && session) {
		char *file = xasprintf("%s/sess_%s", save_path, session);
		CHECK(access(file, F_OK) == 0);
		free(file);
	}
	CHECK_LINE("example.org:8443", &rs.body, "HTTP_HOST");
	CHECK_LINE("example.org", &rs.body, "SERVER_NAME");
	CHECK_LINE("8443", &rs.body, "SERVER_PORT");
	CHECK_LINE("/info.php/extra/path?q=1&r=%2F", &rs.body, "REQUEST_URI");
	CHECK_LINE("/info.php", &rs.body, "SCRIPT_NAME");
	CHECK_LINE("/extra/path", &rs.body, "PATH_INFO");
	CHECK_LINE("q=1&r=%2F", &rs.body, "QUERY_STRING");
	CHECK_LINE("on", &rs.body, "HTTPS");
	CHECK_LINE("GET", &rs.body, "REQUEST_METHOD");
	CHECK_LINE(docroot(), &rs.body, "DOCUMENT_ROOT");
	CHECK_LINE(docroot(), &rs.body, "cwd");
	CHECK_LINE("yes", &rs.body, "CUSTOM");
	origin_response_release(&rs);

	/* The directory goes with the origin. */
	CHECK(save_path && dir_exists(save_path));
	fixture_close(&f);
	CHECK(save_path && !dir_exists(save_path));
	free(save_path);
	free(session);
}

TEST(origin_php_cgi_defaults)
{
	if (!have_program("php-cgi"))
		return;
	struct fixture f = { 0 };
	struct origin_response rs;
	char *save_path;
	php_cgi_defaults_in("fork", "0");
	php_cgi_defaults_in("workers", "1");

	/* --no-php-defaults: php-cgi as the system configures it. */
	cgi_config(&f.cfg);
	strlist_add(&f.cfg.cgi, "php=php-cgi");
	f.cfg.no_php_defaults = true;
	CHECK(fixture_open(&f, NULL));
	CHECK_INT(0, render(f.o, "/info.php?nosession=1", NULL, &rs, f.err));
	save_path = line_value(&rs.body, "save_path");
	CHECK(save_path && !strstr(save_path, "/cgisnap-php-"));
	free(save_path);
	origin_response_release(&rs);
	fixture_close(&f);
}

/* ---- servers for FastCGI and HTTP ---- */

static pid_t spawn_server(char *const argv[], char *const envp[])
{
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t attr;
	pid_t pid;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
	posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
	posix_spawnattr_init(&attr);
	posix_spawnattr_setpgroup(&attr, 0);
	posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
	int rc = posix_spawnp(&pid, argv[0], &fa, &attr, argv, envp);
	posix_spawnattr_destroy(&attr);
	posix_spawn_file_actions_destroy(&fa);
	return rc ? -1 : pid;
}

static void stop_server(pid_t pid)
{
	int status;
	if (pid <= 0)
		return;
	kill(-pid, SIGKILL);
	waitpid(pid, &status, 0);
}

static bool can_connect(const struct sockaddr *sa, socklen_t len)
{
	int fd = socket(sa->sa_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	bool ok = fd >= 0 && connect(fd, sa, len) == 0;
	if (fd >= 0)
		close(fd);
	return ok;
}

static bool port_answers(int port)
{
	struct sockaddr_in sin = { 0 };
	sin.sin_family = AF_INET;
	sin.sin_port = htons((uint16_t)port);
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	return can_connect((struct sockaddr *)&sin, sizeof sin);
}

static bool unix_answers(const char *path)
{
	struct sockaddr_un sun = { 0 };
	sun.sun_family = AF_UNIX;
	snprintf(sun.sun_path, sizeof sun.sun_path, "%s", path);
	return can_connect((struct sockaddr *)&sun, sizeof sun);
}

/* Wait until the server answers; false when it exited (its address was
 * taken) or took too long. */
static bool wait_listening(pid_t pid, int port, const char *unix_path)
{
	struct timespec ts = { 0, 10000000 };
	int status;
	for (int i = 0; i < 500; i++) {
		if (port ? port_answers(port) : unix_answers(unix_path)) {
			/* Ours, not another test's: ours would have exited
			 * by now had it found the address taken. */
			nanosleep(&ts, NULL);
			nanosleep(&ts, NULL);
			if (waitpid(pid, &status, WNOHANG) == pid)
				return false;
			return true;
		}
		if (waitpid(pid, &status, WNOHANG) == pid)
			return false;
		nanosleep(&ts, NULL);
	}
	stop_server(pid);
	return false;
}

enum server_kind { PHP_FCGI, PHP_HTTP };

/* Start php-cgi -b or php -S on a free port from a base chosen by pid;
 * the pid, or -1. */
static pid_t start_server(enum server_kind kind, int *port_out)
{
	char path_env[PATH_MAX + 8];
	snprintf(path_env, sizeof path_env, "PATH=%s", getenv("PATH") ? getenv("PATH") : "/usr/bin:/bin");
	char *fcgi_env[] = { path_env, "PHP_FCGI_CHILDREN=2", "PHP_FCGI_MAX_REQUESTS=3", NULL };
	char *http_env[] = { path_env, "PHP_CLI_SERVER_WORKERS=2", NULL };
	int base = 39000 + (int)(getpid() % 1000);

	for (int i = 0; i < 40; i++) {
		int port = base + i * 37 % 1000;
		if (port_answers(port))
			continue;
		char addr[64];
		snprintf(addr, sizeof addr, "127.0.0.1:%d", port);
		char *fcgi_argv[] = { "php-cgi", "-b", addr, NULL };
		char *http_argv[] = { "php", "-S", addr, "-t", (char *)docroot(), NULL };
		pid_t pid = kind == PHP_FCGI ? spawn_server(fcgi_argv, fcgi_env)
					     : spawn_server(http_argv, http_env);
		if (pid < 0)
			return -1;
		if (wait_listening(pid, port, NULL)) {
			*port_out = port;
			return pid;
		}
	}
	return -1;
}

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

TEST(origin_fastcgi_php_cgi_tcp)
{
	if (!have_program("php-cgi"))
		return;
	int port = 0;
	pid_t pid = start_server(PHP_FCGI, &port);
	CHECK(pid > 0);
	if (pid <= 0)
		return;
	struct fixture f = { 0 };
	cgi_config(&f.cfg);
	f.cfg.fastcgi = xasprintf("127.0.0.1:%d", port);
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
	if (!have_program("php-cgi"))
		return;
	int port = 0;
	pid_t pid = start_server(PHP_FCGI, &port);
	CHECK(pid > 0);
	if (pid <= 0)
		return;
	struct fixture f = { 0 };
	struct origin_response rs;
	char *dir = unit_temp_dir("fcgi-mount");
	f.cfg.root = xstrdup(dir);
	f.cfg.fastcgi = xasprintf("127.0.0.1:%d", port);
	f.cfg.timeout_s = 10;
	strlist_add_owned(&f.cfg.path_aliases, xasprintf("/p=%s", docroot()));
	strlist_add_owned(&f.cfg.script_aliases, xasprintf("/blog=%s/info.php", docroot()));
	if (fixture_open(&f, NULL)) {
		char *fn = xasprintf("%s/info.php", docroot());
		CHECK_INT(0, render(f.o, "/p/info.php/x%20y?nosession=1", NULL, &rs, f.err));
		CHECK_LINE("/p/info.php", &rs.body, "SCRIPT_NAME");
		CHECK_LINE("/x y", &rs.body, "PATH_INFO");
		CHECK_LINE(fn, &rs.body, "SCRIPT_FILENAME");
		CHECK_LINE(dir, &rs.body, "DOCUMENT_ROOT");
		origin_response_release(&rs);
		CHECK_INT(0, render(f.o, "/blog/2019/post?nosession=1", NULL, &rs, f.err));
		CHECK_LINE("/blog", &rs.body, "SCRIPT_NAME");
		CHECK_LINE("/2019/post", &rs.body, "PATH_INFO");
		CHECK_LINE(fn, &rs.body, "SCRIPT_FILENAME");
		CHECK_LINE("/blog/2019/post?nosession=1", &rs.body, "REQUEST_URI");
		origin_response_release(&rs);
		CHECK_INT(0, render(f.o, "/p/style.css", NULL, &rs, f.err));
		CHECK(rs.static_path && strstr(rs.static_path, "/docroot/style.css"));
		origin_response_release(&rs);
		free(fn);
	} else {
		CHECK(false);
	}
	fixture_close(&f);
	stop_server(pid);
	unit_remove_tree(dir);
	free(dir);
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

	struct fixture f = { 0 };
	struct origin_response rs;
	cgi_config(&f.cfg);
	f.cfg.fastcgi = xasprintf("unix:%s", sock);
	f.cfg.timeout_s = 10;
	f.cfg.max_output_mb = 1;
	if (fixture_open(&f, "http://example.test:8080/")) {
		for (int i = 0; i < 8; i++) {
			CHECK_INT(0, render(f.o, "/echo.php?n=u", NULL, &rs, f.err));
			CHECK_LINE("u", &rs.body, "n");
			CHECK_LINE("example.test:8080", &rs.body, "host");
			origin_response_release(&rs);
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
	f.cfg.fastcgi = xstrdup(sock);
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
	CHECK_INT(0, render(f.o, "/echo.php?status=404", NULL, &rs, f.err));
	CHECK_INT(404, rs.status);
	origin_response_release(&rs);
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
	CHECK_INT(0, render(f.o, "/echo.php?fill=1000000", NULL, &rs, f.err));
	CHECK_INT(200, rs.status);
	origin_response_release(&rs);
	fixture_close(&f);
	stop_server(pid);
}

/* What renders run on, as bench and serve say it; opening starts no
 * process (workers start at their first render). */
static void check_describe(const char *mode, const char *cgi, const char *spawn, long jobs,
			   const char *want)
{
	struct fixture f = { 0 };
	char got[256];
	cgi_config(&f.cfg);
	f.cfg.jobs = jobs;
	if (mode)
		f.cfg.cgi_mode = xstrdup(mode);
	if (cgi)
		strlist_add(&f.cfg.cgi, cgi);
	if (spawn)
		strlist_add(&f.cfg.cgi_spawn, spawn);
	CHECK(fixture_open(&f, NULL));
	if (f.o) {
		origin_describe(f.o, got, sizeof got);
		CHECK_STR(want, got);
	}
	fixture_close(&f);
}

TEST(origin_describe_names_the_mode_and_the_pool_size)
{
	if (!have_program("php-cgi"))
		return;
	check_describe(NULL, "php=php-cgi", NULL, 3, "php-cgi workers (3)");
	check_describe("fork", "php=php-cgi", NULL, 3, "fork");
	check_describe(NULL, NULL, NULL, 2, "fork");
	check_describe(NULL, NULL, "tpl=php-cgi -b {socket}", 2, "'php-cgi -b {socket}' workers (2)");
	check_describe("fork", "sh=/bin/sh", "php=php-cgi", 1, "'php-cgi' workers (1), fork");
}
