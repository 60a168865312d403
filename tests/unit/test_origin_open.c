/* test_origin_open.c - opening an origin: set-up errors, the options'
 * defaults, php-cgi's defaults in both modes, and what origin_describe
 * says a render runs on. */
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
		{ DOCROOT, NULL, "CGISNAP_TRACE_PHP_REALPATHS=0", NULL, NULL, NULL,
		  "bad --env value 'CGISNAP_TRACE_PHP_REALPATHS': CGISNAP_TRACE_* are the dependency tracer's own" },
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
		  "no origin given: use --root DIR (CGI), --script-alias /PREFIX=PROGRAM, --fastcgi ADDR or --origin URL" },
		{ NULL, NULL, NULL, "127.0.0.1:9", NULL, NULL, "--fastcgi needs --root DIR (where the scripts are) or a --script-alias" },
		{ NULL, "sh=/bin/sh", NULL, NULL, NULL, NULL, "--cgi needs --root DIR (where the scripts are) or a --script-alias" },
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
	for (size_t i = 0; i < COUNT(cases); i++) {
		const struct open_case *c = &cases[i];
		struct fixture f = { 0 };
		if (c->root)
			f.cfg.root = xstrdup(c->root);
		if (c->cgi)
			strlist_add(&f.cfg.cgi, c->cgi);
		if (c->env)
			strlist_add(&f.cfg.env, c->env);
		if (c->fastcgi)
			strlist_add(&f.cfg.fastcgi, c->fastcgi);
		if (c->origin)
			f.cfg.origin_url = xstrdup(c->origin);
		if (c->front)
			f.cfg.front_controller = xstrdup(c->front);
		CHECK_OPEN_FAILS(&f, c->err);
	}
}

/* A bad mount is a set-up error naming it. "%s": the docroot. */
TEST(origin_open_mount_errors)
{
	const struct { const char *script; const char *path; const char *err; } cases[] = {
		{ "tool=/bin/true", NULL, "bad --script-alias prefix 'tool': it must start with '/'" },
		{ "/a/../b=/bin/true", NULL, "bad --script-alias prefix '/a/../b': a '..' segment" },
		{ "/tool", NULL, "bad --script-alias value '/tool' (expected /PREFIX=PROGRAM)" },
		{ "/tool=%s/nope.cgi", NULL, "--script-alias program '%s/nope.cgi' is not a file or a directory" },
		{ "/tool=/nonexistent/x.cgi", NULL, "--script-alias program '/nonexistent/x.cgi' is not a file or a directory" },
		{ "/tool=%s/noexec.cgi", NULL, "--script-alias program '%s/noexec.cgi' is not executable" },
		{ "/tool=%s/info.php", NULL, "--script-alias program '%s/info.php' is not executable" },
		{ "/tool/=%s/hello.cgi", "/tool=%s/sub", "--path-alias prefix '/tool' is mounted twice" },
		{ NULL, "/lib=%s/style.css", "--path-alias directory '%s/style.css' is not a directory" },
		{ NULL, "/lib=/nonexistent", "--path-alias directory '/nonexistent' is not a directory" },
		{ NULL, "/a%%00=/tmp", "bad --path-alias prefix '/a%%00': a NUL byte" },
	};
	for (size_t i = 0; i < COUNT(cases); i++) {
		struct fixture f = cgi_fixture();
		if (cases[i].script)
			strlist_add_owned(&f.cfg.script_aliases, xasprintf(cases[i].script, docroot()));
		if (cases[i].path)
			strlist_add_owned(&f.cfg.path_aliases, xasprintf(cases[i].path, docroot()));
		CHECK_OPEN_FAILS(&f, cases[i].err);
	}
	/* Mounts belong to the CGI environment: an HTTP origin has its own. */
	struct fixture f = { 0 };
	strlist_add(&f.cfg.script_aliases, "/tool=/bin/true");
	f.cfg.origin_url = xstrdup("http://127.0.0.1:9/");
	CHECK_OPEN_FAILS(&f, "--script-alias is for CGI and FastCGI origins: with --origin, mount on the HTTP "
			     "server");
	/* A FastCGI server runs only *.php: a program is checked before connecting. */
	memset(&f, 0, sizeof f);
	cgi_config(&f.cfg);
	strlist_add(&f.cfg.fastcgi, "127.0.0.1:9");
	strlist_add_owned(&f.cfg.script_aliases, xasprintf("/tool=%s/pathinfo.cgi", docroot()));
	CHECK_OPEN_FAILS(&f, "--script-alias program '%s/pathinfo.cgi' cannot run over FastCGI: the FastCGI "
			     "server runs only *.php");
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
	for (size_t i = 0; i < COUNT(names); i++) {
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
	struct fixture f = cgi_fixture();
	struct origin_response rs;
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
