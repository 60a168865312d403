/* test_serve_path.c - the request-target guard (lib/url/reqpath.c): a table
 * of hostile and harmless targets, in the spirit of darkhttpd's
 * test_make_safe_uri. */

#include "base/buf.h"
#include "url/reqpath.h"
#include "unit.h"

TEST(serve_path_table)
{
	static const struct {
		const char *raw;
		int want;
	} cases[] = {
		/* Served (or looked up) normally. */
		{ "/", 0 },
		{ "/index.html", 0 },
		{ "/a/b/c.css", 0 },
		{ "/a/", 0 },
		{ "/doku.php?id=start", 0 },
		{ "/?p=5", 0 },
		{ "/search?q=../../etc/passwd", 0 },   /* a query is not a path */
		{ "/search?q=%2e%2e%2f", 0 },
		{ "/caf%C3%A9", 0 },                   /* UTF-8 é */
		{ "/caf%e9", 0 },                      /* Latin-1 é: allowed */
		{ "/a..b", 0 },
		{ "/...", 404 },                       /* not a dot segment, but dot-leading */
		{ "/a/b.", 0 },
		{ "/%7Euser/", 0 },
		{ "/a%20b", 0 },
		{ "//double", 0 },                     /* later steps find no such key */
		{ "/%E2%82%AC", 0 },                   /* € */
		/* Dot segments, raw and encoded. */
		{ "/..", 400 },
		{ "/../etc/passwd", 400 },
		{ "/a/../../etc/passwd", 400 },
		{ "/a/..", 400 },
		{ "/./index.html", 400 },
		{ "/.", 400 },
		{ "/%2e%2e/etc/passwd", 400 },
		{ "/%2E%2E/etc/passwd", 400 },
		{ "/.%2e/etc/passwd", 400 },
		{ "/%2e./etc/passwd", 400 },
		{ "/a/%2e%2e?x=1", 400 },
		{ "/%2e", 400 },
		/* An encoded '/' is a byte of its segment, no separator:
		 * "/a%2F..%2Fb" is the one name "a%2F..%2Fb" (urlkey.h). */
		{ "/a%2fb", 0 },
		{ "/a%2Fb", 0 },
		{ "/tool/x%2Fy", 0 },
		{ "/a%2F..%2Fb", 0 },
		{ "/a%2F..", 0 },
		{ "/..%2fetc%2fpasswd", 404 },         /* one name starting with '.' */
		{ "/%2e%2e%2f", 404 },
		/* Encoded NUL, controls and backslashes. */
		{ "/index.html%00.css", 400 },
		{ "/%00", 400 },
		{ "/a%0d%0aSet-Cookie:x", 400 },
		{ "/a%5c..%5cwin.ini", 400 },
		{ "/a\\..\\b", 400 },
		{ "/a%7f", 400 },
		/* Overlong and impossible UTF-8. */
		{ "/%c0%ae%c0%ae/etc/passwd", 400 },
		{ "/%c0%af", 400 },
		{ "/%c1%9c", 400 },
		{ "/%e0%80%ae", 400 },
		{ "/%f0%80%80%ae", 400 },
		{ "/%ed%a0%80", 400 },                /* surrogate */
		{ "/%f8%88%80%80%af", 400 },
		{ "/%ff", 400 },
		/* Broken escapes and raw bytes. */
		{ "/%", 400 },
		{ "/%2", 400 },
		{ "/%zz", 400 },
		{ "/a b", 400 },
		{ "/a\tb", 400 },
		{ "/a#frag", 400 },
		{ "/?a b", 400 },
		{ "/?x=1#y", 400 },
		{ "", 400 },
		{ "*", 400 },
		{ "index.html", 400 },
		{ "../etc/passwd", 400 },
		/* Hidden, answered only as the manifest records them: dotfile
		 * names and cgisnap's own directory. */
		{ "/.cgisnap/manifest", 404 },
		{ "/.cgisnap/", 404 },
		{ "/.cgisnap", 404 },
		{ "/%2ecgisnap/manifest", 404 },
		{ "/%2Ecgisnap/settings", 404 },
		{ "/.htpasswd", 404 },
		{ "/a/.htaccess", 404 },
		{ "/.git/config", 404 },
		{ "/a/.cgisnap-tmp-1-2", 404 },
		{ "/..htpasswd", 404 },
		{ "/.well-known/security.txt", 404 },
		/* An escaped '%' before "2E" is no dot: the key "%252Ex". */
		{ "/%252Ecgisnap/manifest", 0 },
	};
	for (size_t i = 0; i < COUNT(cases); i++) {
		const char *origin = NULL;
		int got = reqpath_check(cases[i].raw, &origin);
		if (got != cases[i].want)
			unit_fail(__FILE__, __LINE__, "'%s': %d, expected %d", cases[i].raw, got,
				  cases[i].want);
		else if (!got && origin != cases[i].raw)
			unit_fail(__FILE__, __LINE__, "'%s': origin form moved", cases[i].raw);
	}
}

TEST(serve_path_absolute_form)
{
	const char *origin = NULL;
	CHECK_INT(0, reqpath_check("http://example.org/a/b?x=1", &origin));
	CHECK_STR("/a/b?x=1", origin);
	CHECK_INT(0, reqpath_check("HTTPS://example.org:8443/", &origin));
	CHECK_STR("/", origin);
	CHECK_INT(0, reqpath_check("http://example.org", &origin));
	CHECK_STR("/", origin);
	CHECK_INT(400, reqpath_check("http://example.org?x", &origin));
	CHECK_INT(400, reqpath_check("http://example.org/../etc/passwd", &origin));
	CHECK_INT(404, reqpath_check("http://example.org/.cgisnap/manifest", &origin));
	CHECK_INT(400, reqpath_check("http://exa mple.org/", &origin));
	CHECK_INT(400, reqpath_check("ftp://example.org/", &origin));
}

TEST(serve_path_scripts)
{
	struct strlist extra = STRLIST_INIT;
	strlist_add(&extra, "tpl");
	static const struct {
		const char *key;
		bool script;
	} cases[] = {
		{ "conf/local.php", true },   { "index.PHP", true },      { "a/b.phtml", true },
		{ "run.cgi", true },          { "tool.pl", true },        { "app.py", true },
		{ "deploy.sh", true },        { "x.rb", true },           { "default.aspx", true },
		{ "page.jsp", true },         { "old.php.gz", true },     { "page.tpl", true },
		{ "index.html", false },      { "style.css", false },     { "doku.php@id=start.html", false },
		{ "x.php/index.html", false }, { "php", false },          { "a.phpx", false },
		{ "a.gz", false },            { "notes.txt.gz", false },  { "dir.php/a.css", false },
		{ "local.php~", true },       { "wp-config.php.bak", true }, { "index.php.orig", true },
		{ "x.PHP.Old", true },        { "run.cgi.save~", true },  { "page.html.bak", false },
		{ "notes.bak", false },       { "a~", false },            { ".bak", false },
	};
	for (size_t i = 0; i < COUNT(cases); i++)
		if (reqpath_is_script(cases[i].key, &extra) != cases[i].script)
			unit_fail(__FILE__, __LINE__, "'%s': expected %s", cases[i].key,
				  cases[i].script ? "a script" : "no script");
	CHECK(!reqpath_is_script("page.tpl", NULL));
	strlist_clear(&extra);
}
