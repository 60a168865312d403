/* test_config_nginx.c - the nginx configuration 'cgisnap config nginx'
 * writes (config/nginx.c), the command line's parameters and the shared
 * helpers (config/config.c, config/common.c). The output is checked by
 * its lines here; t0610 and t0611 run it in nginx. */
#include <stdio.h>
#include <stdlib.h>

#include "../../config/config.h"
#include "base/log.h"
#include "helpers.h"
#include "unit.h"
#include "url/urlkey.h"
#include "base/xalloc.h"


/* A small blog-like tree at /srv/blog. */
static void blog(struct treeinfo *ti)
{
	unit_blog_tree(ti, "/srv/blog", "http://blog.example.com/a$b");
	unit_treeinfo_add(ti, "/quote%22d/", 301, NULL, NULL, "http://blog.example.com/q/");
	unit_treeinfo_add(ti, "/a%40b/", 200, "a%40b/index.html", "text/html; charset=utf-8", NULL);
	unit_treeinfo_add(ti, "/style.css?ver=1.0", 200, "style.css@ver=1.0.css", "text/css; charset=utf-8", NULL);
	unit_treeinfo_add(ti, "/odd", 300, NULL, NULL, "http://blog.example.com/choices");
}

TEST(config_nginx_server_block)
{
	struct treeinfo ti;
	blog(&ti);
	char *t = unit_nginx_text(&ti, "127.0.0.1:8090", NULL);
	CHECK_HAS(t, "# REGENERATE this file");
	CHECK_HAS(t, "No module beyond nginx's default build");
	CHECK_HAS(t, "server {\n    listen 127.0.0.1:8090;\n    server_name blog.example.com;\n"
	       "    root \"/srv/blog\";\n");
	CHECK_HAS(t, "        \"text/html; charset=utf-8\" html htm;\n");
	CHECK_HAS(t, "        \"image/png\" png;\n");
	CHECK_HAS(t, "    default_type application/octet-stream;\n");
	CHECK_HAS(t, "    gzip_static on;\n");
	CHECK_HAS(t, "    merge_slashes off;\n");
	CHECK_HAS(t, "    error_page 404 410 @cgisnap_blog_example_com_8090_404;\n");
	CHECK_HAS(t, "    location @cgisnap_blog_example_com_8090_404 {\n        root \"/srv/blog/.cgisnap\";\n");
	CHECK_HAS(t, "    if ($uri ~ \"/\\.\") {\n        return 404;\n    }\n");
	CHECK_HAS(t, "    if ($args != \"\") {\n        rewrite ^ /.cgisnap-query$uri last;\n    }\n");
	CHECK_HAS(t, "        try_files $cgisnap_path@$args.html $cgisnap_path@$args.css =404;\n");
	CHECK_HAS(t, "    location / {\n        if (-f $request_filename/index.html) {\n"
		     "            return 301 \"http://blog.example.com$cgisnap_blog_example_com_8090_path/\";\n"
		     "        }\n        return 404;\n    }\n");
	CHECK_HAS(t, "map $request_uri $cgisnap_blog_example_com_8090_path {\n");
	/* The guards' regular expressions, with nginx's quoting of '\'. */
	CHECK_HAS(t, "    if ($request_uri ~* \"^[^?]*(?:(?:%(?![0-9a-f]{2}))|(?:%(?:[01][0-9a-f]|7f|5c))|(?:[\\\\x5c#])|");
	CHECK_HAS(t, "    #   a raw '\\' or '#'\n");
	free(t);
	treeinfo_release(&ti);
}

TEST(config_nginx_maps)
{
	struct treeinfo ti;
	blog(&ti);
	char *t = unit_nginx_text(&ti, "127.0.0.1:8090", NULL);
	CHECK_HAS(t, "map \"$cgisnap_blog_example_com_8090_case$uri?$args\" $cgisnap_blog_example_com_8090_301 {\n"
	       "    \"/?p=5\" \"http://blog.example.com/2020/05/x/\";\n");
	/* nginx compares map strings ignoring case: "/?P=5" finds the key
	 * "/?p=5", whose exact text then differs from the request. */
	CHECK_HAS(t, "map \"$uri?$args\" $cgisnap_blog_example_com_8090_key {\n");
	CHECK_HAS(t, "    \"/?p=5\" \"/?p=5\";\n");
	CHECK_HAS(t, "    \"/gone?\" \"/gone?\";\n");
	CHECK_HAS(t, "    \"/feed/?\" \"/feed/?\";\n");
	CHECK_HAS(t, "map \"$cgisnap_blog_example_com_8090_key|$uri?$args\" $cgisnap_blog_example_com_8090_case {\n"
	       "    \"~^(.*)\\|\\1$\" \"\";\n    default \"!\";\n}\n");
	/* A '$' in a value would start a variable. */
	CHECK_HAS(t, "geo $cgisnap_blog_example_com_8090_dollar {\n    default \"$\";\n}\n");
	CHECK_HAS(t, "    \"/cost?\" \"http://blog.example.com/a${cgisnap_blog_example_com_8090_dollar}b\";\n");
	CHECK_HAS(t, "    if ($cgisnap_blog_example_com_8090_302) {\n"
	       "        return 302 $cgisnap_blog_example_com_8090_302;\n    }\n");
	CHECK_HAS(t, "# not replayed: 300 for /odd");
	CHECK_LACKS(t, "_300");
	CHECK_HAS(t, "    \"/feed/0?\" 404;\n    \"/gone?\" 410;\n");
	CHECK_HAS(t, "    if ($cgisnap_blog_example_com_8090_status = 410) {\n        return 410;\n    }\n");
	CHECK_HAS(t, "    \"/feed/?\" \"1/feed/index.html\";\n");
	CHECK_HAS(t, "    \"/quote\\\"d/?\" \"http://blog.example.com/q/\";\n");
	CHECK_HAS(t, "    \"/a@b/?\" \"0/a%40b/index.html\";\n");
	CHECK_HAS(t, "    location ^~ /.cgisnap-file/1/ {\n        internal;\n        alias \"/srv/blog/\";\n"
	       "        types {\n        }\n        default_type \"application/rss+xml; charset=UTF-8\";\n");
	CHECK_HAS(t, "    location ^~ /.cgisnap-file/0/ {\n        internal;\n        alias \"/srv/blog/\";\n    }\n");
	CHECK_HAS(t, "    if ($cgisnap_blog_example_com_8090_file) {\n"
	       "        rewrite ^ /.cgisnap-file/$cgisnap_blog_example_com_8090_file? last;\n    }\n");
	/* Found by the rules: not listed. */
	CHECK_LACKS(t, "\"/style.css?ver=1.0\"");
	CHECK_LACKS(t, "\"/?\"");
	CHECK_HAS(t, "    200 \"public, max-age=60\";\n");
	CHECK_HAS(t, "    add_header Cache-Control $cgisnap_blog_example_com_8090_cache_control always;\n");
	/* Short keys fit nginx's default hash sizes. */
	CHECK_LACKS(t, "map_hash_bucket_size");
	free(t);
	treeinfo_release(&ti);
}

/* nginx refuses a map with two keys alike but for case, and answers one
 * for the other: the first is listed, the second matched exactly. */
TEST(config_nginx_keys_alike_but_for_case)
{
	struct treeinfo ti;
	blog(&ti);
	unit_treeinfo_add(&ti, "/?P=5", 301, NULL, NULL, "http://blog.example.com/upper/");
	unit_treeinfo_add(&ti, "/About/", 200, "About/index.html", "text/plain", NULL);
	unit_treeinfo_add(&ti, "/about/", 200, "about/index.html", "text/plain", NULL);
	char *t = unit_nginx_text(&ti, "127.0.0.1:8090", NULL);
	CHECK_HAS(t, "    \"/?p=5\" \"http://blog.example.com/2020/05/x/\";\n");
	CHECK_LACKS(t, "    \"/?P=5\" \"");
	CHECK_HAS(t, "    if ($request_uri = \"/?P=5\") {\n        return 301 \"http://blog.example.com/upper/\";\n");
	CHECK_HAS(t, "    \"/About/?\" \"");
	CHECK_LACKS(t, "    \"/about/?\" \"");
	CHECK_HAS(t, "    if ($request_uri = \"/about/\") {\n        rewrite ^ \"/.cgisnap-file/");
	free(t);
	treeinfo_release(&ti);
}

TEST(config_nginx_options_change_the_output)
{
	struct treeinfo ti;
	unit_empty_tree(&ti, "http://localhost/");
	char *t = unit_nginx_text(&ti, "[::1]:8081", "off");
	CHECK_HAS(t, "    listen [::1]:8081;\n    server_name localhost;\n");
	/* Nothing recorded: no maps; no 404 page: the server's own. */
	CHECK_LACKS(t, "_key {");
	CHECK_LACKS(t, "_status {");
	CHECK_LACKS(t, "Cache-Control");
	CHECK_LACKS(t, "error_page");
	CHECK_LACKS(t, ".cgisnap-file");
	free(t);
	t = unit_nginx_text(&ti, NULL, "no-store");
	CHECK_HAS(t, "    listen 127.0.0.1:8080;\n");
	CHECK_HAS(t, "    200 \"no-store\";\n");
	free(t);
	treeinfo_release(&ti);
}

TEST(config_nginx_hash_sizes_for_long_urls)
{
	struct treeinfo ti;
	struct buf target = BUF_INIT;
	unit_empty_tree(&ti, "http://localhost/");
	buf_adds(&target, "/?p=");
	for (int i = 0; i < 100; i++)
		buf_addc(&target, 'x');
	unit_treeinfo_add(&ti, target.data, 301, NULL, NULL, "http://localhost/");
	char *t = unit_nginx_text(&ti, NULL, NULL);
	CHECK_HAS(t, "map_hash_bucket_size 128;\nmap_hash_max_size 2048;\n");
	free(t);
	buf_release(&target);
	treeinfo_release(&ti);
}

TEST(config_params_listen_table)
{
	static const struct {
		const char *listen, *host;
		long port;
	} good[] = {
		{ "127.0.0.1:8080", "127.0.0.1", 8080 },
		{ "[::1]:80", "[::1]", 80 },
		{ "*:80", "*", 80 },
		{ ":8081", "*", 8081 },
		{ "8082", "*", 8082 },
		{ "example.com:443", "example.com", 443 },
	};
	static const char *const bad[] = { "127.0.0.1:0", "127.0.0.1:", "a b:80", "x:65536", "x;y:80", "" };
	struct treeinfo ti;
	struct config_params p;
	char err[ERR_LEN];
	treeinfo_init(&ti, "http://Example.COM:8081/");
	for (size_t i = 0; i < COUNT(good); i++) {
		CHECK_INT(0, config_params_init(&p, &ti, good[i].listen, NULL, NULL, err));
		CHECK_STR(good[i].host, p.host);
		CHECK_INT(good[i].port, p.port);
		config_params_release(&p);
	}
	for (size_t i = 0; i < COUNT(bad); i++) {
		CHECK_INT(-1, config_params_init(&p, &ti, bad[i], NULL, NULL, err));
		CHECK_HAS(err, "invalid listen address");
		config_params_release(&p);
	}
	treeinfo_release(&ti);
}

TEST(config_params_names)
{
	struct treeinfo ti;
	struct config_params p;
	char err[ERR_LEN];
	treeinfo_init(&ti, "http://Example.COM:8081/");
	CHECK_INT(0, site_add_alias(&ti.site, "https://www.example.com/", err));
	CHECK_INT(0, site_add_alias(&ti.site, "http://[::1]:8081/", err));
	CHECK_INT(0, config_params_init(&p, &ti, "*:80", NULL, NULL, err));
	CHECK_STR("example.com", p.server_name);
	CHECK_INT(2, p.aliases.n);
	CHECK_STR("www.example.com", p.aliases.items[0]);
	CHECK_STR("[::1]", p.aliases.items[1]);
	CHECK_STR("example_com_80", p.id);
	CHECK_STR("public, max-age=60", p.cache_control);
	config_params_release(&p);
	CHECK_INT(0, config_params_init(&p, &ti, NULL, "static.example.org", "off", err));
	CHECK_STR("static.example.org", p.server_name);
	CHECK_STR("static_example_org_8080", p.id);
	CHECK(p.cache_control == NULL);
	config_params_release(&p);
	CHECK_INT(-1, config_params_init(&p, &ti, NULL, "a;b", NULL, err));
	CHECK_STR("invalid server name 'a;b'", err);
	config_params_release(&p);
	CHECK_INT(-1, config_params_init(&p, &ti, NULL, NULL, "max-age=\"1\"", err));
	config_params_release(&p);
	treeinfo_release(&ti);
}

TEST(config_type_groups_follow_mime_from_name)
{
	const char *type, *exts;
	size_t n = config_type_groups(0, &type, &exts);
	CHECK(n > 20);
	for (size_t i = 0; i < n; i++) {
		config_type_groups(i, &type, &exts);
		CHECK(strcmp(type, "application/octet-stream") != 0);
		/* Every extension of a group has the group's type. */
		for (const char *e = exts; *e;) {
			size_t len = strcspn(e, "|");
			char *name = xasprintf("x.%.*s", (int)len, e);
			CHECK_STR(type, mime_from_name(name));
			free(name);
			e += len + (e[len] == '|');
		}
	}
	CHECK_INT(n, config_type_groups(n, &type, &exts));
}

TEST(config_regex_escape_table)
{
	static const struct str_case cases[] = {
		{ "/", "\\/" },
		{ "/a.b", "\\/a\\.b" },
		{ "/doku_php", "\\/doku_php" },
		{ "/a b", "\\/a\\x20b" },
		{ "/q\"d", "\\/q\\x22d" },
		{ "/x$(y)*+?[]{}|^", "\\/x\\$\\(y\\)\\*\\+\\?\\[\\]\\{\\}\\|\\^" },
		{ "/caf\xc3\xa9", "\\/caf\xc3\xa9" },
	};
	CHECK_WRITES(config_regex_escape, cases);
}

TEST(config_comment_cannot_be_escaped)
{
	struct buf b = BUF_INIT;
	config_comment(&b, "  ", "target %s", "/a\nlisten 80;");
	CHECK_STR("  # target /a?listen 80;\n", buf_str(&b));
	buf_release(&b);
	CHECK(config_unquotable("a\tb"));
	CHECK(!config_unquotable("a b\"c"));
}
