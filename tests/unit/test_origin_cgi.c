/* test_origin_cgi.c - the CGI origin with real processes, what a target
 * names: the environment, files and directories, PATH_INFO, mounts,
 * the front controller and symbolic links, on the programs of
 * tests/fixtures/cgi/docroot (originfix.h). */
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
#include "base/runas.h"
#include "origin/origin.h"
#include "cli/originopts.h"
#include "unit.h"
#include "url/url.h"
#include "url/urlkey.h"
#include "base/xalloc.h"

extern char **environ;

/* ---- CGI ---- */

/* The origin answers for its limits: what was configured, else the
 * defaults. */
TEST(origin_limits)
{
	struct fixture f = cgi_fixture();
	f.cfg.timeout_s = 7;
	f.cfg.max_output_mb = 3;
	if (fixture_open(&f, NULL)) {
		CHECK_INT(7, origin_timeout_s(f.o));
		CHECK_INT(3, origin_max_output_mb(f.o));
	} else {
		CHECK(false);
	}
	fixture_close(&f);

	struct fixture d = cgi_fixture();
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
	struct fixture f = cgi_fixture();
	struct origin_response rs;
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
	struct fixture f = cgi_fixture();
	CHECK(fixture_open(&f, "https://secure.example/"));
	CHECK_LINES(&f, "/hello.cgi", 0,
		    "HTTPS", "on",
		    "REQUEST_SCHEME", "https",
		    "SERVER_PORT", "443",
		    "HTTP_HOST", "secure.example",
		    "QUERY_STRING", "");
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
	for (size_t i = 0; i < COUNT(missing); i++) {
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
	struct fixture f = cgi_fixture();
	CHECK(fixture_open(&f, NULL));
	char *translated = xasprintf("%s/a/b c/", docroot());
	CHECK_LINES(&f, "/pathinfo.cgi/a/b%20c/?q=1", 0,
		    "SCRIPT_NAME", "/pathinfo.cgi",
		    "PATH_INFO", "/a/b c/",
		    "PATH_TRANSLATED", translated,
		    "REQUEST_URI", "/pathinfo.cgi/a/b%20c/?q=1",
		    "QUERY_STRING", "q=1");
	free(translated);

	CHECK_LINES(&f, "/pathinfo.cgi", 0, "PATH_INFO", "(unset)", "PATH_TRANSLATED", "(unset)");
	fixture_close(&f);
}

/* --script-alias and --path-alias, as Apache's ScriptAlias and Alias. */
TEST(origin_cgi_mounts)
{
	struct fixture f = cgi_fixture();
	struct origin_response rs;
	char *spec = xasprintf("/tool=%s/pathinfo.cgi", docroot());
	strlist_add_owned(&f.cfg.script_aliases, spec);
	strlist_add_owned(&f.cfg.path_aliases, xasprintf("/m=%s/sub", docroot()));
	strlist_add_owned(&f.cfg.path_aliases, xasprintf("/m/app/=%s/app", docroot()));
	strlist_add_owned(&f.cfg.path_aliases, xasprintf("/cgi=%s", docroot()));
	CHECK(fixture_open(&f, NULL));

	/* The rest of the path, decoded as a web server passes it: spaces,
	 * UTF-8 and an encoded slash. REQUEST_URI stays as it came. */
	char *translated = xasprintf("%s/a b/\xc3\xa9t\xc3\xa9/x/y", docroot());
	CHECK_LINES(&f, "/tool/a%20b/%C3%A9t%C3%A9/x%2Fy?q=1", 200,
		    "SCRIPT_NAME", "/tool",
		    "PATH_INFO", "/a b/\xc3\xa9t\xc3\xa9/x/y",
		    "PATH_TRANSLATED", translated,
		    "REQUEST_URI", "/tool/a%20b/%C3%A9t%C3%A9/x%2Fy?q=1",
		    "QUERY_STRING", "q=1");
	free(translated);
	/* The prefix itself runs the program with no PATH_INFO; /tool/ has "/". */
	CHECK_LINES(&f, "/tool?x", 0, "SCRIPT_NAME", "/tool", "PATH_INFO", "(unset)");
	CHECK_LINES(&f, "/tool/", 0, "PATH_INFO", "/");
	/* Only at a segment boundary; a NUL in PATH_INFO is refused. */
	CHECK_STATUS(&f, "/toolbox", 404);
	CHECK_STATUS(&f, "/tool/a%00b", 404);

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
	CHECK_LINES(&f, "/m/app/front.cgi/x%20y", 0, "SCRIPT_NAME", "/m/app/front.cgi", "PATH_INFO", "/x y");
	CHECK_STATUS(&f, "/cgi/.hidden", 404);
	CHECK_STATUS(&f, "/m/nope.html", 404);
	/* Scripts under a mounted directory: SCRIPT_NAME under the prefix. */
	CHECK_LINES(&f, "/cgi/pathinfo.cgi/p", 0, "SCRIPT_NAME", "/cgi/pathinfo.cgi", "PATH_INFO", "/p");
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
	unit_drop_dir(dir);
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
	struct fixture f = cgi_fixture();
	strlist_add(&f.cfg.cgi, "php=php-cgi");
	strlist_add_owned(&f.cfg.script_aliases, xasprintf("/blog=%s/info.php", docroot()));
	CHECK(fixture_open(&f, NULL));
	char *fn = xasprintf("%s/info.php", docroot());
	CHECK_LINES(&f, "/blog/2019/post?nosession", 200,
		    "SCRIPT_NAME", "/blog",
		    "PATH_INFO", "/2019/post",
		    "SCRIPT_FILENAME", fn,
		    "REQUEST_URI", "/blog/2019/post?nosession");
	free(fn);
	fixture_close(&f);
}

TEST(origin_cgi_front_controller)
{
	struct fixture f = cgi_fixture();
	struct origin_response rs;
	f.cfg.front_controller = xstrdup("/app/front.cgi");
	CHECK(fixture_open(&f, NULL));
	CHECK_LINES(&f, "/2024/05/a-post/?replytocom=3", 200,
		    "SCRIPT_NAME", "/app/front.cgi",
		    "PATH_INFO", "(unset)",
		    "REQUEST_URI", "/2024/05/a-post/?replytocom=3",
		    "QUERY_STRING", "replytocom=3");
	/* The root has no index file either: the front controller answers. */
	CHECK_LINES(&f, "/", 0, "SCRIPT_NAME", "/app/front.cgi");
	/* Files still win; refused paths stay refused. */
	CHECK_INT(0, render(f.o, "/style.css", NULL, &rs, f.err));
	CHECK(rs.static_path != NULL);
	origin_response_release(&rs);
	CHECK_STATUS(&f, "/.hidden", 404);
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

/* The value of the /proc status line NAME: in body ("SigBlk:\t...\n"),
 * as a mask; ~0 when missing. */
static unsigned long long status_mask(const struct buf *body, const char *name)
{
	const char *p = body->data ? strstr(body->data, name) : NULL;
	return p ? strtoull(p + strlen(name), NULL, 16) : ~0ULL;
}

/* Signal sig's bit in a /proc status mask. */
#define SIGBIT(sig) (1ULL << ((sig) - 1))

/* A CGI program starts with no signal blocked and those a fresh program
 * expects at their defaults (SIGPIPE above all), whatever the rendering
 * thread blocks and the process ignores: spawned as we are
 * (posix_spawn's attributes) and, as root, as another user (a fork that
 * resets them itself). */
TEST(origin_cgi_programs_start_with_default_signals)
{
	sigset_t usr1, was_mask;
	sigemptyset(&usr1);
	sigaddset(&usr1, SIGUSR1);
	pthread_sigmask(SIG_BLOCK, &usr1, &was_mask);
	struct sigaction ign = { .sa_handler = SIG_IGN }, was_pipe, was_hup;
	sigaction(SIGPIPE, &ign, &was_pipe);
	sigaction(SIGHUP, &ign, &was_hup);
	struct runas ra = { 0 };
	char rerr[ERR_LEN];
	bool other = geteuid() == 0 && runas_resolve(&ra, "nobody", NULL, rerr) == 0 && ra.active &&
		     runas_can(&ra, docroot(), R_OK | X_OK);
	for (int as_other = 0; as_other <= (other ? 1 : 0); as_other++) {
		struct fixture f = cgi_fixture();
		if (as_other)
			f.cfg.runas = &ra;
		if (!fixture_open(&f, NULL)) {
			CHECK(false);
			fixture_close(&f);
			continue;
		}
		struct origin_response rs;
		CHECK_INT(0, render(f.o, "/signals.cgi", NULL, &rs, f.err));
		CHECK_INT(200, rs.status);
		unsigned long long blocked = status_mask(&rs.body, "SigBlk:"), ignored = status_mask(&rs.body, "SigIgn:");
		if (blocked != 0 || (ignored & (SIGBIT(SIGPIPE) | SIGBIT(SIGHUP))))
			printf("    %s: %s\n", as_other ? "as nobody" : "as we are", buf_str(&rs.body));
		CHECK(blocked == 0);
		CHECK((ignored & (SIGBIT(SIGPIPE) | SIGBIT(SIGHUP))) == 0);
		origin_response_release(&rs);
		fixture_close(&f);
	}
	if (!other)
		printf("    # not root, or no user nobody: the run as another user is not tried\n");
	runas_release(&ra);
	sigaction(SIGPIPE, &was_pipe, NULL);
	sigaction(SIGHUP, &was_hup, NULL);
	pthread_sigmask(SIG_SETMASK, &was_mask, NULL);
}
