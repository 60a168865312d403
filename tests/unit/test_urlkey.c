/* test_urlkey.c - the target-to-file mapping and the content types plain
 * servers give files, as table tests. */
#include <stdio.h>
#include <stdlib.h>

#include "base/buf.h"
#include "base/log.h"
#include "base/sha256.h"
#include "helpers.h"
#include "unit.h"
#include "url/urlkey.h"


#define SAME "="   /* urlkey_target gives the target back */
#define NONE NULL  /* urlkey_target gives NULL */

static const char *const css = "text/css; charset=utf-8";

/* target, content type, key (NULL: cannot be stored), what urlkey_target
 * makes of the key. docs/url-keys.md shows many of these. */
static const struct {
	const char *target, *type, *key, *back;
} key_cases[] = {
	/* no query: directories get index.html */
	{ "/", NULL, "index.html", NONE },
	{ "/a/", NULL, "a/index.html", NONE },
	{ "/a", NULL, "a/index.html", NONE },
	{ "/a/index.html", NULL, "a/index.html", NONE },
	{ "/a/b", NULL, "a/b/index.html", NONE },
	{ "/a/b/", "text/html", "a/b/index.html", NONE },
	{ "/a/b.css", css, "a/b.css", NONE },
	{ "/a/b.css", "text/html", "a/b.css", NONE },   /* no query: no suffix */
	{ "/a/b.", NULL, "a/b.", NONE },
	{ "/a/b/c/d/e.html", NULL, "a/b/c/d/e.html", NONE },
	{ "/feed/", "application/rss+xml", "feed/index.html", NONE },
	{ "/x?", NULL, "x/index.html", NONE },          /* empty query: none */
	/* query keys: PATH@QUERY SUFFIX */
	{ "/doku.php?id=wiki:syntax", "text/html", "doku.php@id=wiki:syntax.html", SAME },
	{ "/doku.php?id=a&do=index", "text/html; charset=utf-8", "doku.php@id=a&do=index.html", SAME },
	{ "/index.php?title=Main_Page&action=edit", NULL, "index.php@title=Main_Page&action=edit.html", SAME },
	{ "/?p=5", NULL, "@p=5.html", SAME },
	{ "/a/?x=1", NULL, "a/@x=1.html", SAME },
	{ "/a?x=1", NULL, "a@x=1.html", SAME },
	{ "/lib/exe/css.php?t=x", css, "lib/exe/css.php@t=x.css", SAME },
	{ "/feed/?type=rss", "application/rss+xml", "feed/@type=rss.xml", SAME },
	{ "/atom?x", "application/atom+xml", "atom@x.xml", SAME },
	{ "/api?x=1", "application/json", "api@x=1.json", SAME },
	{ "/js?v=1", "TEXT/JavaScript", "js@v=1.js", SAME },
	{ "/img.php?id=1", "image/png", "img.php@id=1.png", SAME },
	{ "/s.svg?v=2", "image/svg+xml", "s.svg@v=2.svg", SAME },
	{ "/f?x", "font/woff2", "f@x.woff2", SAME },
	{ "/p?x=1", "application/xhtml+xml", "p@x=1.html", SAME },
	{ "/x?y", "application/octet-stream", "x@y.bin", SAME },
	{ "/x?y", "", "x@y.html", SAME },
	{ "/x?y", "text/html;charset=ISO-8859-1", "x@y.html", SAME },
	{ "/a?f=b.css", NULL, "a@f=b.css.html", SAME },
	{ "/a?x=..", NULL, "a@x=...html", SAME },
	{ "/a?.", NULL, "a@..html", SAME },
	{ "/?.x", NULL, "@.x.html", SAME },
	{ "/x?a=%25&b=@", NULL, "x@a=%25&b=@.html", SAME },
	{ "/x?a[]=1&a[]=2", NULL, "x@a[]=1&a[]=2.html", SAME },
	{ "/x?q=%C3%A9+%20", NULL, "x@q=%C3%A9+%20.html", SAME },
	/* '/' in a query is "%2F": the same file as an encoded '/' */
	{ "/search?q=a/b", NULL, "search@q=a%2Fb.html", "/search?q=a%2Fb" },
	{ "/search?q=a%2Fb", NULL, "search@q=a%2Fb.html", SAME },
	{ "/a?/etc/passwd", NULL, "a@%2Fetc%2Fpasswd.html", "/a?%2Fetc%2Fpasswd" },
	{ "/a?x=../../etc", NULL, "a@x=..%2F..%2Fetc.html", "/a?x=..%2F..%2Fetc" },
	/* the path is decoded; '%', '@' and '#' escaped */
	{ "/a%20b", NULL, "a b/index.html", NONE },
	{ "/a%20b.txt", NULL, "a b.txt", NONE },
	{ "/caf%C3%A9/", NULL, "caf\xc3\xa9/index.html", NONE },
	{ "/caf%C3%A9?x", NULL, "caf\xc3\xa9@x.html", SAME },
	{ "/a%20b?c", NULL, "a b@c.html", SAME },
	{ "/user@host", NULL, "user%40host/index.html", NONE },
	{ "/a@b?c=d", NULL, "a%40b@c=d.html", SAME },
	{ "/a%40b?c=d", NULL, "a%40b@c=d.html", "/a@b?c=d" },
	{ "/100%25", NULL, "100%25/index.html", NONE },
	{ "/100%25.txt?x", NULL, "100%25.txt@x.html", SAME },
	{ "/a%23b", NULL, "a%23b/index.html", NONE },
	{ "/a%23b?x", NULL, "a%23b@x.html", SAME },
	{ "/a%3Fb?x", NULL, "a?b@x.html", SAME },
	{ "/a;b=c,d?x", NULL, "a;b=c,d@x.html", SAME },
	{ "/a%3Bb?x", NULL, "a;b@x.html", "/a;b?x" },
	{ "/~user/x.html", NULL, "~user/x.html", NONE },
	{ "/a..b/c..", NULL, "a..b/c..", NONE },
	/* a segment's leading '.' is "%2E": no key names a dotfile */
	{ "/.well-known/security.txt", NULL, "%2Ewell-known/security.txt", NONE },
	{ "/.well-known/", NULL, "%2Ewell-known/index.html", NONE },
	{ "/.well-known", NULL, "%2Ewell-known", NONE },
	{ "/.git/config", NULL, "%2Egit/config/index.html", NONE },
	{ "/a/.htaccess", NULL, "a/%2Ehtaccess", NONE },
	{ "/a/.x.css", css, "a/%2Ex.css", NONE },
	{ "/.cgisnap/manifest", NULL, "%2Ecgisnap/manifest/index.html", NONE },
	{ "/.cgisnap", NULL, "%2Ecgisnap", NONE },
	{ "/...", NULL, "%2E..", NONE },
	{ "/a/.x?y", NULL, "a/%2Ex@y.html", SAME },
	{ "/tool/repo/commit/.gitignore?id=1", NULL, "tool/repo/commit/%2Egitignore@id=1.html", SAME },
	{ "/.x/.y?z", NULL, "%2Ex/%2Ey@z.html", SAME },
	{ "/a.b/c.d?e", NULL, "a.b/c.d@e.html", SAME },
	{ "/%252Ex?y", NULL, "%252Ex@y.html", SAME },   /* a '%' of the URL is never "%2E" */
	{ "/%252Ex", NULL, "%252Ex/index.html", NONE },
	/* an encoded '/' is "%2F" in one name, never a separator */
	{ "/tool/x%2Fy", NULL, "tool/x%2Fy/index.html", NONE },
	{ "/tool/x%2Fy.c", NULL, "tool/x%2Fy.c", NONE },
	{ "/a.b%2Fc", NULL, "a.b%2Fc", NONE },
	{ "/a%2Fb/", NULL, "a%2Fb/index.html", NONE },
	{ "/%2F", NULL, "%2F/index.html", NONE },
	{ "/a%2F..%2Fb", NULL, "a%2F..%2Fb", NONE },
	{ "/..%2Fx", NULL, "%2E.%2Fx", NONE },
	{ "/%2F.x", NULL, "%2F.x", NONE },
	{ "/tool/x%2Fy?id=1", NULL, "tool/x%2Fy@id=1.html", SAME },
	{ "/a%2fb?x", NULL, "a%2Fb@x.html", "/a%2Fb?x" },
	{ "/a%252Fb?x", NULL, "a%252Fb@x.html", SAME }, /* a '%' of the URL is never "%2F" */
	/* cannot be stored */
	{ "/a/./b?x", NULL, NULL, NONE },
	{ "/a/..?x", NULL, NULL, NONE },
	{ "/%2e%2e/x", NULL, NULL, NONE },
	{ "/%2E/x", NULL, NULL, NONE },
	{ "/a/../b", NULL, NULL, NONE },
	{ "/a/./b", NULL, NULL, NONE },
	{ "/..", NULL, NULL, NONE },
	{ "/%00", NULL, NULL, NONE },
	{ "/a%00.html", NULL, NULL, NONE },
	{ "/a%0Ab", NULL, NULL, NONE },
	{ "/a%7F", NULL, NULL, NONE },
	{ "/a%5Cb", NULL, NULL, NONE },
	{ "/a\\b", NULL, NULL, NONE },
	{ "/a\tb", NULL, NULL, NONE },
	{ "/a//b", NULL, NULL, NONE },
	{ "//", NULL, NULL, NONE },
	{ "//x?y", NULL, NULL, NONE },
	{ "a/b", NULL, NULL, NONE },
	{ "", NULL, NULL, NONE },
	{ "?x", NULL, NULL, NONE },
	{ "/x?a\x01", NULL, NULL, NONE },
	{ "/x?a b", NULL, NULL, NONE },
	{ "/x?a\\b", NULL, NULL, NONE },
	{ "/x?a\xc3\xa9", NULL, NULL, NONE },
};

TEST(urlkey_for_table)
{
	char err[ERR_LEN];
	for (size_t i = 0; i < COUNT(key_cases); i++) {
		err[0] = '\0';
		char *key = urlkey_for(key_cases[i].target, key_cases[i].type, err);
		CHECK_STR(key_cases[i].key, key);
		if (!key) {
			CHECK(!strncmp(err, "cannot be stored: ", 18));
			continue;
		}
		/* Every key urlkey_for makes passes the last guard. */
		CHECK(urlkey_is_safe(key));

		char *back = urlkey_target(key);
		const char *want = key_cases[i].back;
		if (want && !strcmp(want, SAME))
			want = key_cases[i].target;
		CHECK_STR(want, back);
		if (back) {
			/* The target read back gives the same key. */
			CHECK_STR_FREE(key, urlkey_for(back, key_cases[i].type, err));
		}
		free(back);
		free(key);
	}
}

TEST(urlkey_for_error_messages)
{
	char err[ERR_LEN];
	CHECK(!urlkey_for("/a/../config", NULL, err));
	CHECK_STR("cannot be stored: a '.' or '..' segment in the path", err);
	CHECK(!urlkey_for("/a%00b", NULL, err));
	CHECK_STR("cannot be stored: a NUL byte in the path", err);
	CHECK(!urlkey_for("/a//b", NULL, err));
	CHECK_STR("cannot be stored: an empty path segment", err);
	CHECK(!urlkey_for("x", NULL, err));
	CHECK_STR("cannot be stored: 'x' is not a request target", err);
	/* err is optional */
	CHECK(!urlkey_for("/%00", NULL, NULL));
}

/* "first 150 bytes" "#" "32 hex digits of the SHA-256 of name". */
static void hashed(struct buf *out, const char *name, size_t len)
{
	char hex[65];
	sha256_hex(name, len, hex);
	buf_add(out, name, 150);
	buf_addc(out, '#');
	buf_add(out, hex, 32);
}

TEST(urlkey_hashes_long_names)
{
	char err[ERR_LEN];
	struct buf long_seg = BUF_INIT, target = BUF_INIT, want = BUF_INIT;
	for (int i = 0; i < 250; i++)
		buf_addc(&long_seg, (char)('a' + i % 26));

	/* A long directory. */
	buf_addf(&target, "/%s/x.html", long_seg.data);
	hashed(&want, long_seg.data, long_seg.len);
	buf_adds(&want, "/x.html");
	char *key = urlkey_for(target.data, NULL, err);
	CHECK_STR(want.data, key);
	CHECK(urlkey_is_safe(key));
	free(key);

	/* A long last segment without a dot: a directory too. */
	buf_reset(&target);
	buf_reset(&want);
	buf_addf(&target, "/d/%s", long_seg.data);
	buf_adds(&want, "d/");
	hashed(&want, long_seg.data, long_seg.len);
	buf_adds(&want, "/index.html");
	CHECK_STR_FREE(want.data, urlkey_for(target.data, NULL, err));

	/* A long file name keeps its extension, so it keeps its type. */
	buf_reset(&target);
	buf_reset(&want);
	buf_addf(&target, "/%s.css", long_seg.data);
	hashed(&want, long_seg.data, long_seg.len);
	buf_adds(&want, ".css");
	key = urlkey_for(target.data, css, err);
	CHECK_STR(want.data, key);
	CHECK_STR("text/css; charset=utf-8", mime_from_name(key));
	free(key);

	/* A long query: the name before the suffix is hashed, the suffix
	 * kept; urlkey_target cannot reverse it. */
	buf_reset(&target);
	buf_reset(&want);
	buf_addf(&target, "/p.php?q=%s", long_seg.data);
	struct buf name = BUF_INIT;
	buf_addf(&name, "p.php@q=%s", long_seg.data);
	hashed(&want, name.data, name.len);
	buf_adds(&want, ".css");
	key = urlkey_for(target.data, css, err);
	CHECK_STR(want.data, key);
	CHECK(urlkey_target(key) == NULL);
	free(key);
	buf_release(&name);

	/* Exactly URLKEY_MAX_NAME bytes is kept, one more is hashed. */
	buf_reset(&target);
	buf_adds(&target, "/");
	for (int i = 0; i < URLKEY_MAX_NAME - 4; i++)
		buf_addc(&target, 'n');
	buf_adds(&target, ".txt");
	CHECK_STR_FREE(target.data + 1, urlkey_for(target.data, NULL, err));
	buf_truncate(&target, target.len - 4);
	buf_adds(&target, "n.txt");
	key = urlkey_for(target.data, NULL, err);
	CHECK(key && strchr(key, '#') && strlen(key) == 150 + 1 + 32 + 4);
	free(key);

	/* Names that would be hashed anyway never meet a plain name with a
	 * '#': a '#' in a path is escaped. */
	key = urlkey_for("/a%23b", NULL, err);
	CHECK(key && !strchr(key, '#'));
	free(key);

	buf_release(&long_seg);
	buf_release(&target);
	buf_release(&want);
}

TEST(urlkey_total_length_limit)
{
	char err[ERR_LEN];
	struct buf target = BUF_INIT;
	/* 15 segments of 190 bytes: 2865 bytes of key, then index.html. */
	for (int i = 0; i < 15; i++) {
		buf_addc(&target, '/');
		for (int j = 0; j < 190; j++)
			buf_addc(&target, 'x');
	}
	buf_addc(&target, '/');
	char *key = urlkey_for(target.data, NULL, err);
	CHECK(key != NULL);
	CHECK(key && strlen(key) == 15 * 191 + 10 && urlkey_is_safe(key));
	free(key);
	/* One more segment passes URLKEY_MAX_PATH. */
	for (int j = 0; j < 190; j++)
		buf_addc(&target, 'y');
	buf_addc(&target, '/');
	CHECK(urlkey_for(target.data, NULL, err) == NULL);
	CHECK_STR("cannot be stored: its file name would be too long", err);
	buf_release(&target);
}

TEST(urlkey_is_safe_table)
{
	static const struct bool_case cases[] = {
		{ "index.html", true },
		{ "a/b.css", true },
		{ "a/@x=1.html", true },
		{ "@p=5.html", true },
		{ "caf\xc3\xa9/index.html", true },
		{ "a b", true },
		{ "a..b", true },
		{ "a/b..", true },
		{ "x.", true },
		{ "a#0123", true },
		{ "%2Ex", true },              /* an escaped dotfile name */
		{ "%2Ecgisnap/manifest", true },
		{ "", false },
		{ "/a", false },
		{ "/", false },
		{ ".", false },
		{ "..", false },
		{ "./a", false },
		{ "a/.", false },
		{ "a/..", false },
		{ "a/../b", false },
		{ "../a", false },
		{ "a//b", false },
		{ "a/", false },
		{ ".x", false },
		{ "a/.x", false },
		{ ".cgisnap/manifest", false },
		{ "a/.cgisnap", false },
		{ "a\\b", false },
		{ "a\\..\\b", false },
		{ "a\nb", false },
		{ "a\tb", false },
		{ "a\x7f", false },
	};
	CHECK_TESTS(urlkey_is_safe, cases);
	CHECK(!urlkey_is_safe(NULL));

	char *big = malloc(URLKEY_MAX_PATH + 2);
	memset(big, 'k', URLKEY_MAX_PATH + 1);
	big[URLKEY_MAX_PATH + 1] = '\0';
	CHECK(!urlkey_is_safe(big));
	big[URLKEY_MAX_PATH] = '\0';
	CHECK(urlkey_is_safe(big));
	free(big);
}

TEST(urlkey_target_rejects)
{
	static const char *const keys[] = {
		"index.html",         /* no query */
		"a/b.css",
		"a@.html",            /* empty query: never made */
		"a@x",                /* no suffix */
		"a@x.exe",            /* not a suffix urlkey_for writes */
		"p@q#0123.html",      /* hashed */
		"../a@x.html",        /* unsafe */
		"a/",
		"",
	};
	for (size_t i = 0; i < COUNT(keys); i++) {
		CHECK_STR_FREE(NULL, urlkey_target(keys[i]));
	}
	CHECK_STR_FREE("/a/b.php?x=1&y", urlkey_target("a/b.php@x=1&y.bin"));
	/* "%2E" is a dot only where a name starts: elsewhere urlkey_for
	 * never writes it, and it is read as the '%' it would be. */
	CHECK_STR_FREE("/.a/.b?x", urlkey_target("%2Ea/%2Eb@x.html"));
	CHECK_STR_FREE("/a%252Eb?x", urlkey_target("a%2Eb@x.html"));
}

TEST(urlkey_suffix_table)
{
	static const struct str_case cases[] = {
		{ NULL, ".html" },
		{ "", ".html" },
		{ "text/html", ".html" },
		{ "TEXT/HTML; charset=UTF-8", ".html" },
		{ " text/css", ".css" },
		{ "text/css;charset=utf-8", ".css" },
		{ "application/xhtml+xml", ".html" },
		{ "application/javascript", ".js" },
		{ "text/javascript; charset=utf-8", ".js" },
		{ "application/json", ".json" },
		{ "application/rss+xml", ".xml" },
		{ "application/atom+xml", ".xml" },
		{ "application/xml", ".xml" },
		{ "text/xml", ".xml" },
		{ "text/plain", ".txt" },
		{ "image/png", ".png" },
		{ "image/jpeg", ".jpg" },
		{ "image/gif", ".gif" },
		{ "image/svg+xml", ".svg" },
		{ "image/webp", ".webp" },
		{ "image/x-icon", ".ico" },
		{ "image/vnd.microsoft.icon", ".ico" },
		{ "application/pdf", ".pdf" },
		{ "font/woff2", ".woff2" },
		{ "font/woff", ".woff" },
		{ "text/csv", ".csv" },
		{ "application/octet-stream", ".bin" },
		{ "application/x-unknown", ".bin" },
		{ "text/htmlx", ".bin" },
		{ "text", ".bin" },
	};
	CHECK_MAP(urlkey_suffix, cases);
}

TEST(mime_from_name_table)
{
	static const struct str_case cases[] = {
		{ "index.html", "text/html; charset=utf-8" },
		{ "a/b.HTM", "text/html; charset=utf-8" },
		{ "x.css", "text/css; charset=utf-8" },
		{ "x.js", "application/javascript; charset=utf-8" },
		{ "x.mjs", "application/javascript; charset=utf-8" },
		{ "x.json", "application/json; charset=utf-8" },
		{ "x.js.map", "application/json; charset=utf-8" },
		{ "x.xml", "text/xml; charset=utf-8" },
		{ "x.rss", "application/rss+xml; charset=utf-8" },
		{ "x.atom", "application/atom+xml; charset=utf-8" },
		{ "x.txt", "text/plain; charset=utf-8" },
		{ "x.svg", "image/svg+xml; charset=utf-8" },
		{ "x.csv", "text/csv; charset=utf-8" },
		{ "x.md", "text/markdown; charset=utf-8" },
		{ "x.png", "image/png" },
		{ "x.jpg", "image/jpeg" },
		{ "x.jpeg", "image/jpeg" },
		{ "x.gif", "image/gif" },
		{ "x.webp", "image/webp" },
		{ "x.ico", "image/x-icon" },
		{ "x.pdf", "application/pdf" },
		{ "x.woff2", "font/woff2" },
		{ "x.woff", "font/woff" },
		{ "x.ttf", "font/ttf" },
		{ "x.otf", "font/otf" },
		{ "x.mp4", "video/mp4" },
		{ "x.webm", "video/webm" },
		{ "x.mp3", "audio/mpeg" },
		{ "x.wasm", "application/wasm" },
		{ "x.tar.gz", "application/gzip" },
		{ "lib/exe/css.php@t=x.css", "text/css; charset=utf-8" },
		{ "x", "application/octet-stream" },
		{ "x.", "application/octet-stream" },
		{ "x.exe", "application/octet-stream" },
		{ "a.d/x", "application/octet-stream" },
		{ "x.bin", "application/octet-stream" },
	};
	CHECK_MAP(mime_from_name, cases);

	/* A query key's suffix gives back its type (or a twin of it). */
	static const char *const round[] = {
		"text/html", "text/css", "application/javascript", "text/javascript",
		"application/json", "text/xml", "text/plain", "image/png", "image/jpeg",
		"image/gif", "image/svg+xml", "image/webp", "image/x-icon",
		"image/vnd.microsoft.icon", "application/pdf", "font/woff2", "font/woff",
		"application/octet-stream",
	};
	for (size_t i = 0; i < COUNT(round); i++) {
		char name[64];
		snprintf(name, sizeof(name), "p@q%s", urlkey_suffix(round[i]));
		/* The charset is the site's to name (mime_implied_table). */
		char type[96];
		snprintf(type, sizeof type, "%s%s", round[i],
			 strchr(mime_from_name(name), ';') ? "; charset=utf-8" : "");
		if (!mime_implied(name, type))
			unit_fail(__FILE__, __LINE__, "'%s' does not imply '%s'", name, round[i]);
	}
}

TEST(mime_implied_table)
{
	static const struct {
		const char *name, *type;
		bool implied;
	} cases[] = {
		{ "a.html", "text/html", false }, /* the site sent no charset */
		{ "a.html", "text/html; charset=UTF-8", true },
		{ "a.html", "text/html;charset=utf8", true },
		{ "a.html", "text/html; charset=\"utf-8\"", true },
		{ "a.html", "Text/HTML; Charset=UTF-8", true },
		{ "a.html", "text/html; charset=ISO-8859-1", false },
		{ "a.html", "text/html; charset=windows-1252", false },
		{ "a.html", "text/css", false },
		{ "a.html", "application/xhtml+xml", false },
		{ "a.html", NULL, true },
		{ "a.html", "", true },
		{ "a.css", "TEXT/CSS", false },
		{ "a.css", "TEXT/CSS; charset=UTF-8", true },
		{ "a.js", "application/javascript", false },
		{ "a.js", "application/javascript; charset=utf-8", true },
		{ "a.js", "text/javascript; charset=utf-8", true },
		{ "a.js", "application/x-javascript; charset=utf-8", true },
		{ "a.xml", "text/xml; charset=utf-8", true },
		{ "a.xml", "application/rss+xml", false },
		{ "a.xml", "application/xml", false },
		{ "a.png", "image/png", true },
		{ "a.png", "image/jpeg", false },
		{ "a.ico", "image/vnd.microsoft.icon", true },
		{ "a.bin", "application/octet-stream", true },
		{ "a.bin", "image/png", false },
		{ "a.json", "application/json; charset=windows-1252", false },
		{ "x", "application/octet-stream", true },
	};
	for (size_t i = 0; i < COUNT(cases); i++)
		if (mime_implied(cases[i].name, cases[i].type) != cases[i].implied)
			unit_fail(__FILE__, __LINE__, "mime_implied(\"%s\", \"%s\") should be %d",
				  cases[i].name, cases[i].type ? cases[i].type : "(null)", cases[i].implied);
}

TEST(mime_compressible_table)
{
	static const struct bool_case cases[] = {
		{ "text/html", true },
		{ "Text/CSS; charset=utf-8", true },
		{ "text/plain", true },
		{ "text/csv", true },
		{ "application/javascript", true },
		{ "application/x-javascript", true },
		{ "application/json", true },
		{ "application/xml", true },
		{ "application/rss+xml", true },
		{ "application/atom+xml", true },
		{ "application/ld+json", true },
		{ "application/xhtml+xml", true },
		{ "image/svg+xml", true },
		{ "image/png", false },
		{ "image/x-icon", false },
		{ "application/wasm", false },
		{ "application/octet-stream", false },
		{ "application/pdf", false },
		{ "application/gzip", false },
		{ "font/woff2", false },
		{ "application/jsonx", false },
		{ "text/", false },
		{ "", false },
		{ NULL, false },
	};
	CHECK_TESTS(mime_compressible, cases);
}
