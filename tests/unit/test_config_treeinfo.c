/* test_config_treeinfo.c - what 'cgisnap config' reads from a tree: the
 * split of targets, the plain-server rule, and the sorting of manifest
 * entries into redirects, statuses, listed files and files the rules
 * find (config/treeinfo.c). */
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../config/treeinfo.h"
#include "helpers.h"
#include "base/log.h"
#include "unit.h"
#include "url/urlkey.h"
#include "base/xalloc.h"


TEST(config_treeinfo_split_table)
{
	static const struct {
		const char *target, *path, *query;
	} cases[] = {
		{ "/", "/", NULL },
		{ "/a/b.css", "/a/b.css", NULL },
		{ "/doku.php?id=wiki:syntax", "/doku.php", "id=wiki:syntax" },
		{ "/?p=5", "/", "p=5" },
		{ "/caf%C3%A9/", "/caf\xc3\xa9/", NULL },
		{ "/a%20b?q=%C3%A9+%20", "/a b", "q=%C3%A9+%20" }, /* the query stays raw */
		{ "/user@host", "/user@host", NULL },
		{ "/100%25", "/100%", NULL },
		{ "/x?a=?b", "/x", "a=?b" },
		{ "/a?", "/a", NULL },
	};
	for (size_t i = 0; i < COUNT(cases); i++) {
		char *path, *query;
		treeinfo_split(cases[i].target, &path, &query);
		CHECK_STR(cases[i].path, path);
		CHECK_STR(cases[i].query, query);
		free(path);
		free(query);
	}
}

/* The path as Apache sees it with AllowEncodedSlashes NoDecode. */
TEST(config_treeinfo_slash_path_table)
{
	static const struct {
		const char *target, *path;
		bool slashed;
	} cases[] = {
		{ "/", "/", false },
		{ "/tool/x%2Fy", "/tool/x%2Fy", true },
		{ "/tool/x%2fy?q=a%2Fb", "/tool/x%2fy", true },
		{ "/a%20b%2F%C3%A9", "/a b%2F\xc3\xa9", true },
		{ "/x%252Fy", "/x%2Fy", false }, /* a '%' of the path: not an encoded '/' */
		{ "/%2F", "/%2F", true },
		{ "/a?q=%2F", "/a", false },
	};
	for (size_t i = 0; i < COUNT(cases); i++) {
		char *path = treeinfo_slash_path(cases[i].target);
		CHECK_STR(cases[i].path, path);
		CHECK(treeinfo_encoded_slash(cases[i].target) == cases[i].slashed);
		free(path);
	}
}

TEST(config_treeinfo_rule_key_table)
{
	static const struct {
		const char *path, *query, *suffix, *key;
	} cases[] = {
		{ "/", NULL, "", "index.html" },
		{ "/a/", NULL, "", "a/index.html" },
		{ "/a", NULL, "", "a/index.html" },
		{ "/a/b", NULL, "", "a/b/index.html" },
		{ "/a/b.css", NULL, ".css", "a/b.css" },
		{ "/a.b/c", NULL, "", "a.b/c/index.html" },
		{ "/a/index.html", NULL, ".html", "a/index.html" },
		{ "/", "p=5", ".html", "@p=5.html" },
		{ "/a/", "x=1", ".html", "a/@x=1.html" },
		{ "/doku.php", "id=wiki:syntax", ".html", "doku.php@id=wiki:syntax.html" },
		{ "/lib/exe/css.php", "t=x", ".css", "lib/exe/css.php@t=x.css" },
	};
	for (size_t i = 0; i < COUNT(cases); i++) {
		CHECK_STR_FREE(cases[i].key, treeinfo_rule_key(cases[i].path, cases[i].query, cases[i].suffix));
	}
}

TEST(config_treeinfo_rule_key_agrees_with_urlkey)
{
	/* Where no escaping is involved, the plain rule and urlkey_for
	 * name the same file: that is what lets the rules find new pages. */
	static const struct {
		const char *target, *type;
	} cases[] = {
		{ "/", NULL },
		{ "/a/b", NULL },
		{ "/a/b.css", NULL },
		{ "/caf%C3%A9/", NULL },
		{ "/doku.php?id=a&do=index", "text/html" },
		{ "/?p=5", "text/html" },
		{ "/a/?x=1", "text/html" },
		{ "/lib/exe/css.php?t=x", "text/css; charset=utf-8" },
		{ "/img.php?id=1", "image/png" },
		{ "/x?q=%C3%A9+%20", "text/html" },
	};
	for (size_t i = 0; i < COUNT(cases); i++) {
		char *key = urlkey_for(cases[i].target, cases[i].type, NULL);
		char *path, *query;
		treeinfo_split(cases[i].target, &path, &query);
		CHECK_STR_FREE(key, treeinfo_rule_key(path, query, treeinfo_suffix(key)));
		free(path);
		free(query);
		free(key);
	}
}

TEST(config_treeinfo_suffix_table)
{
	CHECK_STR(".html", treeinfo_suffix("doku.php@id=x.html"));
	CHECK_STR(".css", treeinfo_suffix("a.b/c.css"));
	CHECK_STR("", treeinfo_suffix("a.b/noext"));
	CHECK_STR("", treeinfo_suffix(".hidden"));
	CHECK_STR(".png", treeinfo_suffix("fetch.php@media=x.png.png"));
}

TEST(config_treeinfo_sorts_entries)
{
	struct treeinfo ti;
	treeinfo_init(&ti, "http://localhost:8080/");
	struct manifest_entry *entries[] = {
		unit_entry("/", 200, "index.html", "text/html; charset=UTF-8", NULL),
		unit_entry("/?p=5", 301, NULL, NULL, "http://localhost:8080/2020/05/x/"),
		unit_entry("/a%40b/", 200, "a%40b/index.html", "text/html; charset=utf-8", NULL),
		unit_entry("/doku.php?id=a", 200, "doku.php@id=a.html", "text/html; charset=utf-8", NULL),
		unit_entry("/feed/", 200, "feed/index.html", "application/rss+xml; charset=UTF-8", NULL),
		unit_entry("/feed/0", 404, NULL, NULL, NULL),
		unit_entry("/gone", 410, NULL, NULL, NULL),
		unit_entry("/failed", 500, NULL, NULL, NULL),
		unit_entry("/lib/exe/css.php?t=x", 200, "lib/exe/css.php@t=x.css", "text/css; charset=utf-8", NULL),
		unit_entry("/old", 302, NULL, NULL, "http://localhost:8080/a/"),
		unit_entry("/search?q=a/b", 200, "search@q=a%2Fb.html", "text/html; charset=utf-8", NULL),
		unit_entry("/x.php", 200, "x.php", "text/html; charset=utf-8", NULL),
		unit_entry("/y.php", 200, "y.php", "text/html; charset=utf-8", NULL),
		unit_entry("/a/../b", 301, NULL, NULL, "http://localhost:8080/b"),
		unit_entry("/%00", 200, "x", "text/plain", NULL),
		unit_entry("/unsafe", 200, "../etc/passwd", "text/plain", NULL),
		unit_entry("/redirect-without-location", 301, NULL, NULL, NULL),
		unit_entry("/img.php?id=1", 200, "img.php@id=1.png", "image/png", NULL),
	};
	for (size_t i = 0; i < COUNT(entries); i++)
		treeinfo_add(&ti, entries[i]);

	CHECK_INT(2, ti.redirects.n);
	CHECK_STR("/", ti.redirects.items[0].path);
	CHECK_STR("p=5", ti.redirects.items[0].query);
	CHECK_INT(301, ti.redirects.items[0].status);
	CHECK_STR("http://localhost:8080/2020/05/x/", ti.redirects.items[0].location);
	CHECK_STR("/old", ti.redirects.items[1].path);
	CHECK_STR(NULL, ti.redirects.items[1].query);
	CHECK_INT(302, ti.redirects.items[1].status);

	/* Recorded 404/410, and entries without a file: serve answers 404. */
	CHECK_INT(5, ti.statuses.n);
	CHECK_STR("/feed/0", ti.statuses.items[0].target);
	CHECK_INT(404, ti.statuses.items[0].status);
	CHECK_INT(410, ti.statuses.items[1].status);
	CHECK_STR("/failed", ti.statuses.items[2].target);
	CHECK_INT(404, ti.statuses.items[2].status);
	CHECK_STR("/unsafe", ti.statuses.items[3].target);
	CHECK_STR("/redirect-without-location", ti.statuses.items[4].target);

	/* Listed: escaped names, a '/' in the query, types not implied. */
	CHECK_INT(5, ti.files.n);
	CHECK_STR("a%40b/index.html", ti.files.items[0].key);
	CHECK_STR("/a@b/", ti.files.items[0].path);
	CHECK_INT(0, ti.files.items[0].type);
	CHECK_STR("feed/index.html", ti.files.items[1].key);
	CHECK_INT(1, ti.files.items[1].type);
	CHECK_STR("search@q=a%2Fb.html", ti.files.items[2].key);
	CHECK_STR("q=a/b", ti.files.items[2].query);
	CHECK_STR("x.php", ti.files.items[3].key);
	CHECK_INT(2, ti.files.items[3].type);
	CHECK_INT(2, ti.files.items[4].type); /* one type, one index */
	CHECK_INT(2, ti.types.n);
	CHECK_STR("application/rss+xml; charset=UTF-8", ti.types.items[0]);
	CHECK_STR("text/html; charset=utf-8", ti.types.items[1]);

	/* Found by the rules: "/", the wiki page, the stylesheet, the image. */
	CHECK_INT(4, ti.by_rule);
	/* No request reaches "/a/../b" or "/%00". */
	CHECK_INT(2, ti.skipped);
	/* The query suffixes in use, ".html" first. */
	CHECK_INT(3, ti.suffixes.n);
	CHECK_STR(".html", ti.suffixes.items[0]);
	CHECK(strlist_contains(&ti.suffixes, ".css"));
	CHECK(strlist_contains(&ti.suffixes, ".png"));

	for (size_t i = 0; i < COUNT(entries); i++)
		manifest_entry_free(entries[i]);
	treeinfo_release(&ti);
}

TEST(config_treeinfo_lists_hashed_names)
{
	struct buf target = BUF_INIT;
	buf_adds(&target, "/doku.php?id=");
	for (int i = 0; i < 260; i++)
		buf_addc(&target, (char)('a' + i % 26));
	char *key = urlkey_for(target.data, "text/html", NULL);
	CHECK(key && strchr(key, '#'));
	struct treeinfo ti;
	treeinfo_init(&ti, "http://localhost/");
	struct manifest_entry *e = unit_entry(target.data, 200, key, "text/html; charset=utf-8", NULL);
	treeinfo_add(&ti, e);
	CHECK_INT(1, ti.files.n);
	if (ti.files.n)
		CHECK_STR(key, ti.files.items[0].key);
	CHECK_INT(0, ti.by_rule);
	manifest_entry_free(e);
	treeinfo_release(&ti);
	free(key);
	buf_release(&target);
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	CHECK(f != NULL);
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

TEST(config_treeinfo_load_reads_the_tree)
{
	char dir[] = "/tmp/cgisnap-config-XXXXXX";
	CHECK(mkdtemp(dir) != NULL);
	char *meta = xasprintf("%s/.cgisnap", dir);
	char *manifest = xasprintf("%s/manifest", meta);
	char *settings = xasprintf("%s/settings", meta);
	char *page404 = xasprintf("%s/404.html", meta);
	CHECK_INT(0, mkdir(meta, 0755));
	write_file(manifest, "# target\tkey\tstatus\ttype\tbytes\tsha256\trender_ms\tchanged\tlocation\n"
			     "/\tindex.html\t200\ttext/html; charset=utf-8\t5\t-\t1\t0\t-\n"
			     "/?p=5\t-\t301\t-\t0\t-\t1\t0\thttp://example.com/x/\n"
			     "/feed/\tfeed/index.html\t200\tapplication/rss+xml\t5\t-\t1\t0\t-\n");
	write_file(settings, "site-url = http://Example.com:8081/\nalias = https://www.example.com/\n"
			     "sort-query = yes\n");
	struct treeinfo ti;
	char err[ERR_LEN];

	CHECK_INT(0, treeinfo_load(&ti, dir, NULL, err));
	char *real = realpath(dir, NULL);
	CHECK_STR(real, ti.root);
	CHECK_STR(dir, ti.dir);
	CHECK_STR("http://example.com:8081/", ti.site.url);
	CHECK_INT(1, ti.site.aliases.n);
	CHECK(ti.site.sort_query);
	CHECK(!ti.have_404);
	CHECK_INT(1, ti.redirects.n);
	CHECK_INT(1, ti.files.n);
	CHECK_INT(1, ti.by_rule);
	treeinfo_release(&ti);

	write_file(page404, "<h1>not here</h1>\n");
	CHECK_INT(0, treeinfo_load(&ti, dir, "/srv/www/site/", err));
	CHECK_STR("/srv/www/site", ti.root);
	CHECK(ti.have_404);
	treeinfo_release(&ti);

	CHECK_INT(-1, treeinfo_load(&ti, dir, "srv/site", err));
	CHECK_STR("--root-path 'srv/site' is not an absolute path", err);
	treeinfo_release(&ti);
	CHECK_INT(-1, treeinfo_load(&ti, dir, "/srv/$site", err));
	CHECK_HAS(err, "holds '$'");
	treeinfo_release(&ti);

	/* A directory that is no snapshot tree. */
	CHECK_INT(-1, treeinfo_load(&ti, meta, NULL, err));
	CHECK_HAS(err, "is not a snapshot tree");
	treeinfo_release(&ti);
	char *missing = xasprintf("%s/missing", dir);
	CHECK_INT(-1, treeinfo_load(&ti, missing, NULL, err));
	CHECK_HAS(err, "cannot open tree");
	treeinfo_release(&ti);

	/* An old tree's malformed manifest is an error, not an empty tree. */
	char *db = xasprintf("%s/.cgisnap/tree.db", dir);
	CHECK_INT(0, unlink(db));
	free(db);
	write_file(manifest, "/\tindex.html\tnot-a-status\n");
	CHECK_INT(-1, treeinfo_load(&ti, dir, NULL, err));
	treeinfo_release(&ti);

	unit_remove_tree(dir);
	free(missing);
	free(real);
	free(meta);
	free(manifest);
	free(settings);
	free(page404);
}
