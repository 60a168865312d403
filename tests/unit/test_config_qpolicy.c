/* test_config_qpolicy.c - the query policy as the generated
 * configurations apply it (config/qpolicy.c): globs as PCRE, the regex
 * that drops a parameter, the orders of the tree's queries, and how the
 * nginx and Apache writers use them. t0612 runs them in the servers. */
#include <stdlib.h>

#include "../../config/config.h"
#include "helpers.h"
#include "base/log.h"
#include "unit.h"
#include "base/xalloc.h"


TEST(config_glob_pcre_table)
{
	static const struct str_case cases[] = {
		{ "fbclid", "fbclid" },
		{ "utm_*", "utm_[^&=]*" },
		{ "a?c", "a[^&=]c" },
		{ "a.b", "a\\.b" },
		{ "[ab]x", "(?![&=])[ab]x" },
		{ "[!a-c]", "(?![&=])[^a-c]" },
		{ "[]x]", "(?![&=])[\\]x]" },
		{ "[[:digit:]]*", "(?![&=])[[:digit:]][^&=]*" },
		{ "[a", "\\[a" },
		{ "\\*x", "\\*x" },
		{ "a\"b", "a\\x22b" },
	};
	CHECK_WRITES(config_glob_pcre, cases);
}

TEST(config_drop_regex_names_empty_and_ignored_parameters)
{
	struct treeinfo ti;
	treeinfo_init(&ti, "http://example.com/");
	ti.site.sort_query = true;
	struct buf b = BUF_INIT;
	config_drop_regex(&ti.site, &b);
	CHECK_STR("^(.*?)(?:^(?:)(?:&|$)|&(?:)(?=&|$))(.*)$", buf_str(&b));
	buf_reset(&b);
	strlist_add(&ti.site.ignore_params, "utm_*");
	strlist_add(&ti.site.ignore_params, "fbclid");
	config_drop_regex(&ti.site, &b);
	CHECK_STR("^(.*?)(?:^(?:|(?:utm_[^&=]*|fbclid)(?:=[^&]*)?)(?:&|$)"
		  "|&(?:|(?:utm_[^&=]*|fbclid)(?:=[^&]*)?)(?=&|$))(.*)$",
		  buf_str(&b));
	buf_release(&b);
	CHECK(config_query_policy(&ti.site));
	treeinfo_release(&ti);
	treeinfo_init(&ti, "http://example.com/");
	CHECK(!config_query_policy(&ti.site));
	treeinfo_release(&ti);
}

/* A tree with --sort-query and a few multi-parameter queries. */
static void sorted_tree(struct treeinfo *ti)
{
	unit_empty_tree(ti, "http://example.com/");
	ti->site.sort_query = true;
	strlist_add(&ti->site.ignore_params, "utm_*");
	unit_treeinfo_add(ti, "/?a=1&b=2", 200, "@a=1&b=2.html", "text/html; charset=utf-8", NULL);
	unit_treeinfo_add(ti, "/x?a=1&b=2", 301, NULL, NULL, "http://example.com/y");
	unit_treeinfo_add(ti, "/p?id=1&tag=z&tag=a", 200, "p@id=1&tag=z&tag=a.html", NULL, NULL);
	unit_treeinfo_add(ti, "/six?a&b&c&d&e&f", 200, "six@a&b&c&d&e&f.html", NULL, NULL);
	unit_treeinfo_add(ti, "/?p=5", 301, NULL, NULL, "http://example.com/2020/05/x/");
}

TEST(config_query_orders_list_what_sorts_back)
{
	struct treeinfo ti;
	struct strlist from = STRLIST_INIT, to = STRLIST_INIT;
	sorted_tree(&ti);
	config_query_orders(&ti, &from, &to);
	/* a=1&b=2 once (two targets hold it), 2 of the 3! orders of
	 * id/tag/tag (tag=z before tag=a in each), none of six's 720. */
	CHECK_INT(3, (long)from.n);
	CHECK_INT((long)from.n, (long)to.n);
	struct buf all = BUF_INIT;
	for (size_t i = 0; i < from.n; i++)
		buf_addf(&all, "%s>%s\n", from.items[i], to.items[i]);
	CHECK_HAS(buf_str(&all), "b=2&a=1>a=1&b=2\n");
	CHECK_HAS(buf_str(&all), "tag=z&id=1&tag=a>id=1&tag=z&tag=a\n");
	CHECK_HAS(buf_str(&all), "tag=z&tag=a&id=1>id=1&tag=z&tag=a\n");
	CHECK_LACKS(buf_str(&all), "tag=a&tag=z");
	buf_release(&all);
	strlist_clear(&from);
	strlist_clear(&to);
	ti.site.sort_query = false;
	config_query_orders(&ti, &from, &to);
	CHECK_INT(0, (long)from.n);
	treeinfo_release(&ti);
}

TEST(config_nginx_applies_the_query_policy)
{
	struct treeinfo ti;
	sorted_tree(&ti);
	char *t = unit_nginx_text(&ti, "127.0.0.1:8080", NULL);
	CHECK_HAS(t, "map $args $cgisnap_example_com_8080_q1 {\n    \"~^(.*?)(?:^(?:|(?:utm_[^&=]*)");
	CHECK_HAS(t, "\" \"$1$2\";\n    default $args;\n}\n");
	CHECK_HAS(t, "map $cgisnap_example_com_8080_q7 $cgisnap_example_com_8080_q8 {\n");
	CHECK_LACKS(t, "_q9 ");
	CHECK_HAS(t, "map $cgisnap_example_com_8080_q8 $cgisnap_example_com_8080_order {\n"
		     "    \"b=2&a=1\" \"b=2&a=1 a=1&b=2\";\n");
	CHECK_HAS(t, "    \"~^(?<cgisnap_example_com_8080_of>\\\\S*) (?<cgisnap_example_com_8080_sorted>\\\\S*) "
		     "\\\\k<cgisnap_example_com_8080_of>$\" $cgisnap_example_com_8080_sorted;\n");
	CHECK_HAS(t, "    set $args $cgisnap_example_com_8080_args;\n");
	free(t);
	/* Without a policy: the query as it came. */
	ti.site.sort_query = false;
	strlist_clear(&ti.site.ignore_params);
	t = unit_nginx_text(&ti, "127.0.0.1:8080", NULL);
	CHECK_LACKS(t, "set $args");
	CHECK_LACKS(t, "_q1 ");
	free(t);
	treeinfo_release(&ti);
}

TEST(config_apache_maps_redirects_and_query_orders)
{
	struct treeinfo ti;
	struct config_params p;
	struct config_maps maps = { BUF_INIT, BUF_INIT };
	struct buf out = BUF_INIT;
	char err[ERR_LEN];
	sorted_tree(&ti);
	unit_treeinfo_add(&ti, "/caf%C3%A9%20x", 302, NULL, NULL, "http://example.com/c");
	unit_treeinfo_add(&ti, "/r%2Fs", 301, NULL, NULL, "http://example.com/s");
	CHECK_INT(0, config_params_init(&p, &ti, "127.0.0.1:8080", NULL, NULL, err));
	p.map_prefix = xstrdup("/etc/apache2/sites-available/t");
	apache_write(&out, &maps, &ti, &p);
	const char *t = buf_str(&out);
	CHECK_HAS(buf_str(&maps.redirects), "/x?a=1&b=2 301:http://example.com/y\n");
	CHECK_HAS(buf_str(&maps.redirects), "/?p=5 301:http://example.com/2020/05/x/\n");
	/* A space in the key, or a "%2F" in the path: rules of their own. */
	CHECK_LACKS(buf_str(&maps.redirects), "caf");
	CHECK_LACKS(buf_str(&maps.redirects), "r%2Fs");
	CHECK_HAS(t, "RewriteRule \"^\\/caf\xc3\xa9\\x20x$\" \"http://example.com/c\" [R=302,NE,QSD,L]\n");
	CHECK_HAS(buf_str(&maps.query), "b=2&a=1 a=1&b=2\n");
	CHECK_HAS(t, "    RewriteMap cgisnap_example_com_8080_redirects "
		     "\"txt:/etc/apache2/sites-available/t.redirects.map\"\n");
	CHECK_HAS(t, "    RewriteMap cgisnap_example_com_8080_query \"txt:/etc/apache2/sites-available/t.query.map\"\n");
	CHECK_HAS(t, "    RewriteRule ^ - [E=CGISNAP_Q:%{QUERY_STRING}]\n");
	CHECK_HAS(t, "    RewriteRule ^ - [E=CGISNAP_Q:%1%2]\n");
	CHECK_HAS(t, "    RewriteCond \"${cgisnap_example_com_8080_query:%{ENV:CGISNAP_Q}}\" ^(.+)$\n"
		     "    RewriteRule ^ - [E=CGISNAP_Q:%1]\n");
	CHECK_HAS(t, "    RewriteCond \"${cgisnap_example_com_8080_redirects:$0?%{ENV:CGISNAP_Q}}\" ^301:(.+)$\n"
		     "    RewriteRule \"^/.*$\" %1 [R=301,NE,QSD,L]\n");
	CHECK_LACKS(t, "\"=p=5\"");
	buf_release(&out);
	buf_release(&maps.redirects);
	buf_release(&maps.query);
	free(p.map_prefix);
	p.map_prefix = NULL;
	config_params_release(&p);
	/* Without map files (the same parameters): a rule per redirect, no orders. */
	char *plain = unit_apache_text(&ti, "127.0.0.1:8080", NULL);
	CHECK_HAS(plain, "    RewriteCond %{ENV:CGISNAP_Q} \"=p=5\"\n");
	CHECK_LACKS(plain, "RewriteMap");
	free(plain);
	treeinfo_release(&ti);
}

TEST(config_origin_fallback_urls_and_output)
{
	static const struct str_case cases[] = { /* want NULL: refused */
		{ "http://127.0.0.1:8081", "127.0.0.1:8081" },
		{ "http://127.0.0.1:8081/", "127.0.0.1:8081" },
		{ "http://app.local", "app.local:80" },
		{ "http://[::1]:9000", "[::1]:9000" },
		{ "https://x:1", NULL },
		{ "http://x:1/blog/", NULL },
		{ "http://x:99999", NULL },
		{ "http://", NULL },
		{ "http://a b:1", NULL },
		{ "http://:80", NULL },
	};
	struct treeinfo ti;
	struct config_params p;
	char err[ERR_LEN];
	unit_empty_tree(&ti, "http://example.com/");
	for (size_t i = 0; i < COUNT(cases); i++) {
		CHECK_INT(0, config_params_init(&p, &ti, "127.0.0.1:8080", NULL, NULL, err));
		int rc = config_params_fallback(&p, cases[i].in, err);
		CHECK_INT(cases[i].want ? 0 : -1, rc);
		if (cases[i].want)
			CHECK_STR(cases[i].want, p.fallback);
		else
			CHECK_HAS(err, "invalid --origin-fallback");
		config_params_release(&p);
	}
	CHECK_INT(0, config_params_init(&p, &ti, "127.0.0.1:8080", NULL, NULL, err));
	CHECK_INT(0, config_params_fallback(&p, "http://127.0.0.1:8081", err));
	struct buf out = BUF_INIT;
	nginx_write(&out, &ti, &p);
	CHECK_HAS(buf_str(&out), "upstream cgisnap_example_com_8080_origin {\n    server 127.0.0.1:8081;\n}\n");
	CHECK_HAS(buf_str(&out), "    error_page 418 = @cgisnap_example_com_8080_origin;\n");
	CHECK_HAS(buf_str(&out), "        try_files ${uri}index.html =418;\n");
	CHECK_HAS(buf_str(&out), "        proxy_pass http://cgisnap_example_com_8080_origin"
				 "$cgisnap_example_com_8080_path$is_args$args;\n");
	/* The tree's own refusals stay 404. */
	CHECK_HAS(buf_str(&out), "    if ($uri ~ \"/\\.\") {\n        return 404;\n    }\n");
	buf_reset(&out);
	apache_write(&out, NULL, &ti, &p);
	CHECK_HAS(buf_str(&out), "    RewriteRule ^ \"http://127.0.0.1:8081%1?%{ENV:CGISNAP_Q}\" "
				 "[P,NE,E=CGISNAP_ORIGIN:1,E=no-gzip:1]\n");
	CHECK_HAS(buf_str(&out), "    RewriteRule \"/\\.\" - [R=404]\n");
	CHECK_HAS(buf_str(&out), " && -z reqenv('CGISNAP_ORIGIN')\"\n");
	buf_release(&out);
	config_params_release(&p);
	treeinfo_release(&ti);
}
