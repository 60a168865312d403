/* test_cgienv.c - the CGI environment (cgienv.c) of a few requests, built
 * from an origin opened on a scratch root and scripts filled by hand: no
 * program runs. */
#include <stdlib.h>
#include <string.h>

#include "origin/cgienv.h"
#include "helpers.h"
#include "originfix.h"
#include "base/log.h"
#include "origin/origin.h"
#include "unit.h"
#include "url/url.h"
#include "base/xalloc.h"

/* The value of NAME in env, or NULL. */
static const char *env_get(const struct strlist *env, const char *name)
{
	size_t n = strlen(name);
	for (size_t i = 0; i < env->n; i++)
		if (!strncmp(env->items[i], name, n) && env->items[i][n] == '=')
			return env->items[i] + n + 1;
	return NULL;
}

/* How many entries of env set NAME. */
static int env_count(const struct strlist *env, const char *name)
{
	size_t n = strlen(name);
	int c = 0;
	for (size_t i = 0; i < env->n; i++)
		c += !strncmp(env->items[i], name, n) && env->items[i][n] == '=';
	return c;
}

/* The origin tests' fixture (originfix.h) on a scratch root. */
struct env_fixture {
	struct fixture fx;
	char *root;
};

static bool env_open(struct env_fixture *f, const char *site_url, const char *user_env)
{
	memset(f, 0, sizeof *f);
	f->root = unit_temp_dir("cgienv");
	if (!f->root)
		return false;
	f->fx.cfg.root = xstrdup(f->root);
	f->fx.cfg.site_url = xstrdup(site_url);
	if (user_env)
		strlist_add(&f->fx.cfg.env, user_env);
	return fixture_start(&f->fx);
}

static void env_close(struct env_fixture *f)
{
	fixture_close(&f->fx);
	if (f->root)
		unit_remove_tree(f->root);
	free(f->root);
}

TEST(cgienv_plain_request)
{
	struct env_fixture f;
	struct strlist env = STRLIST_INIT;
	if (!env_open(&f, "http://Example.ORG:8080/", NULL)) {
		CHECK(false);
		env_close(&f);
		return;
	}
	char *filename = xasprintf("%s/hello.cgi", f.root);
	struct origin_script s = { filename, f.root, "/hello.cgi", "", NULL };
	origin_cgi_env(f.fx.o, "GET", "/hello.cgi?x=1&y=%20", NULL, &s, &env);
	CHECK_STR("CGI/1.1", env_get(&env, "GATEWAY_INTERFACE"));
	CHECK_STR("HTTP/1.1", env_get(&env, "SERVER_PROTOCOL"));
	CHECK_STR("example.org", env_get(&env, "SERVER_NAME"));
	CHECK_STR("8080", env_get(&env, "SERVER_PORT"));
	CHECK_STR("example.org:8080", env_get(&env, "HTTP_HOST"));
	CHECK_STR("GET", env_get(&env, "REQUEST_METHOD"));
	CHECK_STR("/hello.cgi?x=1&y=%20", env_get(&env, "REQUEST_URI"));
	CHECK_STR("/hello.cgi", env_get(&env, "SCRIPT_NAME"));
	CHECK_STR(filename, env_get(&env, "SCRIPT_FILENAME"));
	CHECK_STR("x=1&y=%20", env_get(&env, "QUERY_STRING"));
	CHECK_STR(f.root, env_get(&env, "DOCUMENT_ROOT"));
	CHECK_STR("127.0.0.1", env_get(&env, "REMOTE_ADDR"));
	CHECK_STR("http", env_get(&env, "REQUEST_SCHEME"));
	CHECK_STR("200", env_get(&env, "REDIRECT_STATUS"));
	CHECK(env_get(&env, "PATH") != NULL);
	/* No PATH_INFO: neither it nor PATH_TRANSLATED is set, nor HTTPS. */
	CHECK(env_get(&env, "PATH_INFO") == NULL);
	CHECK(env_get(&env, "PATH_TRANSLATED") == NULL);
	CHECK(env_get(&env, "HTTPS") == NULL);
	strlist_clear(&env);
	free(filename);
	env_close(&f);
}

TEST(cgienv_path_info_https_and_user_env)
{
	struct env_fixture f;
	struct strlist env = STRLIST_INIT;
	if (!env_open(&f, "https://example.org/", "HTTP_USER_AGENT=overridden")) {
		CHECK(false);
		env_close(&f);
		return;
	}
	char *filename = xasprintf("%s/wiki/doku.php", f.root);
	char *dir = xasprintf("%s/wiki", f.root);
	char *translated = xasprintf("%s/a b/c", f.root);
	struct origin_script s = { filename, dir, "/wiki/doku.php", "/a b/c", NULL };
	origin_cgi_env(f.fx.o, "HEAD", "/wiki/doku.php/a%20b/c", "10.0.0.7", &s, &env);
	CHECK_STR("HEAD", env_get(&env, "REQUEST_METHOD"));
	CHECK_STR("/a b/c", env_get(&env, "PATH_INFO"));
	CHECK_STR(translated, env_get(&env, "PATH_TRANSLATED"));
	CHECK_STR("", env_get(&env, "QUERY_STRING"));
	CHECK_STR("10.0.0.7", env_get(&env, "REMOTE_ADDR"));
	CHECK_STR("https", env_get(&env, "REQUEST_SCHEME"));
	CHECK_STR("on", env_get(&env, "HTTPS"));
	CHECK_STR("443", env_get(&env, "SERVER_PORT"));
	CHECK_STR("example.org", env_get(&env, "HTTP_HOST"));
	/* --env comes last and replaces the variable, once. */
	CHECK_STR("overridden", env_get(&env, "HTTP_USER_AGENT"));
	CHECK_INT(1, env_count(&env, "HTTP_USER_AGENT"));
	strlist_clear(&env);
	free(translated);
	free(dir);
	free(filename);
	env_close(&f);
}

TEST(cgienv_set_replaces)
{
	struct strlist env = STRLIST_INIT;
	origin_env_set(&env, "A", "1");
	origin_env_set(&env, "AB", "2");
	origin_env_set(&env, "A", "3");
	CHECK_INT(2, (long long)env.n);
	CHECK_STR("3", env_get(&env, "A"));
	CHECK_STR("2", env_get(&env, "AB"));
	strlist_clear(&env);
}
