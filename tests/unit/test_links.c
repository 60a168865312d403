/* test_links.c - link extraction from HTML, CSS and XML (links.h). */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/buf.h"
#include "crawl/links.h"
#include "helpers.h"
#include "unit.h"
#include "base/xalloc.h"

#define PAGE "http://site.test/dir/page.html"

/* A link as the tests write it: the URL, then " nofollow" and/or
 * " resource" for the flags. */
static void collect(void *arg, const char *url, unsigned flags)
{
	strlist_add_owned(arg, xasprintf("%s%s%s", url, flags & LINK_NOFOLLOW ? " nofollow" : "",
					 flags & LINK_RESOURCE ? " resource" : ""));
}

/* Compares the links found with the expected ones (NULL-terminated), both
 * sorted, and frees the list. */
static void check_links(const char *file, int line, struct strlist *got, ...)
{
	struct strlist want = STRLIST_INIT;
	va_list ap;
	va_start(ap, got);
	for (const char *s; (s = va_arg(ap, const char *));)
		strlist_add(&want, s);
	va_end(ap);
	strlist_sort(&want);
	strlist_sort(got);
	bool same = want.n == got->n;
	for (size_t i = 0; same && i < want.n; i++)
		same = !strcmp(want.items[i], got->items[i]);
	if (!same) {
		struct buf b = BUF_INIT;
		buf_adds(&b, "links differ\n      expected:");
		for (size_t i = 0; i < want.n; i++)
			buf_addf(&b, "\n        %s", want.items[i]);
		buf_adds(&b, "\n      saw:");
		for (size_t i = 0; i < got->n; i++)
			buf_addf(&b, "\n        %s", got->items[i]);
		unit_fail(file, line, "%s", b.data);
		buf_release(&b);
	}
	strlist_clear(&want);
	strlist_clear(got);
}

#define CHECK_LINKS(got, ...) check_links(__FILE__, __LINE__, got, __VA_ARGS__, (const char *)NULL)
#define CHECK_NO_LINKS(got) check_links(__FILE__, __LINE__, got, (const char *)NULL)

static int html(struct strlist *l, const char *s, struct page_meta *meta)
{
	return links_from_html(PAGE, s, strlen(s), collect, l, meta);
}

static int css(struct strlist *l, const char *s)
{
	return links_from_css("http://site.test/css/main.css", s, strlen(s), collect, l);
}

static int xml(struct strlist *l, const char *s)
{
	return links_from_xml("http://site.test/feed/", s, strlen(s), collect, l);
}

/* ---- HTML elements and attributes ---- */

TEST(links_html_anchors_resolve_against_page)
{
	struct strlist l = STRLIST_INIT;
	CHECK_INT(0, html(&l, "<!doctype html><title>t</title>"
			      "<a href=\"/abs\">1</a> <a href=\"rel.html\">2</a> <A HREF='../up/'>3</A>"
			      "<a href=\"?q=1&amp;r=2\">4</a> <a href=\"//other.test/x\">5</a>"
			      "<a href=\"http://SITE.test:80/a/./b/../c#frag\">6</a>"
			      "<map><area href=\"area.html\" shape=rect></map>",
			  NULL));
	CHECK_LINKS(&l, "http://site.test/abs", "http://site.test/dir/rel.html", "http://site.test/up/",
		    "http://site.test/dir/page.html?q=1&r=2", "http://other.test/x", "http://site.test/a/c",
		    "http://site.test/dir/area.html");
}

TEST(links_html_resources_of_every_kind)
{
	struct strlist l = STRLIST_INIT;
	CHECK_INT(0, html(&l, "<html><head><script src=\"/js/app.js\"></script>"
			      "<link rel=stylesheet href=\"/s.css\"></head><body background=\"bg.gif\">"
			      "<img src=\"i.png\"><iframe src=\"/frame.html\"></iframe>"
			      "<embed src=\"e.swf\"><object data=\"o.svg\"></object>"
			      "<video src=\"v.mp4\" poster=\"p.jpg\"><source src=\"v.webm\">"
			      "<track src=\"subs.vtt\"></video><audio src=\"a.ogg\"></audio>"
			      "<input type=IMAGE src=\"go.png\"><input type=text src=\"no.png\">"
			      "<table background=\"t.gif\"><tr><td background=\"td.gif\">x</td></tr></table>"
			      "<img data-src=\"/lazy.jpg\" src=\"/placeholder.gif\">"
			      "<svg><image href=\"/svg.png\"></image><use xlink:href=\"/sprite.svg#i\"></use></svg>"
			      "</body></html>",
			  NULL));
	CHECK_LINKS(&l, "http://site.test/js/app.js resource", "http://site.test/s.css resource",
		    "http://site.test/dir/bg.gif resource", "http://site.test/dir/i.png resource",
		    "http://site.test/frame.html resource", "http://site.test/dir/e.swf resource",
		    "http://site.test/dir/o.svg resource", "http://site.test/dir/v.mp4 resource",
		    "http://site.test/dir/p.jpg resource", "http://site.test/dir/v.webm resource",
		    "http://site.test/dir/subs.vtt resource", "http://site.test/dir/a.ogg resource",
		    "http://site.test/dir/go.png resource", "http://site.test/dir/t.gif resource",
		    "http://site.test/dir/td.gif resource", "http://site.test/lazy.jpg resource",
		    "http://site.test/placeholder.gif resource", "http://site.test/svg.png resource",
		    "http://site.test/sprite.svg resource");
}

TEST(links_html_skips_empty_and_foreign_schemes)
{
	struct strlist l = STRLIST_INIT;
	CHECK_INT(0, html(&l, "<a href=\"\">e</a><a href=\"   \">w</a><a>none</a>"
			      "<a href=\"javascript:void(0)\">j</a><a href=\"JavaScript:x()\">J</a>"
			      "<a href=\"mailto:a@b.test\">m</a><a href=\"tel:+123\">t</a>"
			      "<a href=\"ftp://site.test/f\">f</a><a href=\"#top\">#</a>"
			      "<img src=\"data:image/png;base64,iVBORw0KGgo=\">"
			      "<a href=\"  \t/kept \n\">k</a><a href=\"/a\n/b\tc\">n</a>",
			  NULL));
	CHECK_LINKS(&l, "http://site.test/kept", "http://site.test/a/bc");
}

TEST(links_html_reports_each_link_once)
{
	struct strlist l = STRLIST_INIT;
	html(&l, "<a href=/x>1</a><a href=\"/x\">2</a><a href=\"/x#y\">3</a><a href=/x rel=nofollow>4</a>", NULL);
	CHECK_LINKS(&l, "http://site.test/x", "http://site.test/x nofollow");
}

TEST(links_html_nofollow_is_a_rel_token)
{
	struct strlist l = STRLIST_INIT;
	html(&l, "<a href=/1 rel=nofollow>1</a><a href=/2 rel=\"external NoFollow\">2</a>"
		 "<a href=/3 rel=\"nofollowed\">3</a><area href=/4 rel=\"nofollow noopener\">"
		 "<a href=/5 rel=\"\">5</a>",
	     NULL);
	CHECK_LINKS(&l, "http://site.test/1 nofollow", "http://site.test/2 nofollow", "http://site.test/3",
		    "http://site.test/4 nofollow", "http://site.test/5");
}

TEST(links_html_link_rels_follow_pages_and_resources)
{
	struct strlist l = STRLIST_INIT;
	html(&l, "<head><link rel=\"canonical\" href=\"/canon\"><link rel=\"next\" href=\"/p2\">"
		 "<link rel=\"prev\" href=\"/p0\"><link rel=\"shortcut icon\" href=\"/favicon.ico\">"
		 "<link rel=\"Apple-Touch-Icon\" href=\"/touch.png\"><link rel=preload href=/font.woff2 as=font>"
		 "<link rel=manifest href=/site.webmanifest><link rel=modulepreload href=/m.js>"
		 "<link rel=\"alternate stylesheet\" href=/alt.css>"
		 "<link rel=alternate type=\"application/rss+xml\" href=\"/feed/\">"
		 "<link rel=alternate type=\"application/atom+xml\" href=\"/atom.xml\">"
		 "<link rel=alternate hreflang=de href=\"/de/\">"
		 "<link rel=author href=/about><link rel=license href=/license>"
		 "<link href=/norel.css></head>",
	     NULL);
	CHECK_LINKS(&l, "http://site.test/canon", "http://site.test/p2", "http://site.test/p0",
		    "http://site.test/favicon.ico resource", "http://site.test/touch.png resource",
		    "http://site.test/font.woff2 resource", "http://site.test/site.webmanifest resource",
		    "http://site.test/m.js resource", "http://site.test/alt.css resource",
		    "http://site.test/feed/", "http://site.test/atom.xml", "http://site.test/de/",
		    "http://site.test/about", "http://site.test/license");
}

TEST(links_html_link_rels_skip_endpoints)
{
	/* what WordPress puts in every <head>: the files its publishing
	 * clients read (RSD, wlwmanifest) and an OpenSearch description are
	 * resources; pingback, JSON and oEmbed endpoints are not fetched */
	struct strlist l = STRLIST_INIT;
	html(&l, "<head><link rel=\"EditURI\" type=\"application/rsd+xml\" href=\"/xmlrpc.php?rsd\">"
		 "<link rel=\"pingback\" href=\"/xmlrpc.php\">"
		 "<link rel=\"wlwmanifest\" href=\"/wp-includes/wlwmanifest.xml\">"
		 "<link rel=\"https://api.w.org/\" href=\"/wp-json/\">"
		 "<link rel=\"alternate\" type=\"application/json\" href=\"/wp-json/wp/v2/pages/2\">"
		 "<link rel=\"alternate\" type=\"application/json+oembed\" href=\"/wp-json/oembed/1.0/embed?url=x\">"
		 "<link rel=\"alternate\" type=\"text/xml+oembed\" href=\"/wp-json/oembed/1.0/embed?format=xml\">"
		 "<link rel=\"dns-prefetch\" href=\"//fonts.example\"><link rel=preconnect href=\"https://cdn.example\">"
		 "<link rel=search type=\"application/opensearchdescription+xml\" href=\"/os.xml\">"
		 "<link rel=\"shortlink\" href=\"/?p=2\"><link rel=\"pingback stylesheet\" href=\"/odd.css\">"
		 "<link rel=\"alternate\" type=\"application/rss+xml\" href=\"/feed/\"></head>",
	     NULL);
	CHECK_LINKS(&l, "http://site.test/?p=2", "http://site.test/feed/",
		    "http://site.test/xmlrpc.php?rsd resource",
		    "http://site.test/wp-includes/wlwmanifest.xml resource", "http://site.test/os.xml resource");
}

TEST(links_html_base_href_applies_to_the_whole_document)
{
	struct strlist l = STRLIST_INIT;
	html(&l, "<head><link rel=stylesheet href=\"early.css\"><base href=\"../other/\">"
		 "<base href=\"/ignored/\"></head><body><a href=\"x.html\">x</a><img src=\"/abs.png\"></body>",
	     NULL);
	CHECK_LINKS(&l, "http://site.test/other/early.css resource", "http://site.test/other/x.html",
		    "http://site.test/abs.png resource");

	html(&l, "<base target=_blank><base href=\"http://cdn.test/root/\"><a href=\"y\">y</a>", NULL);
	CHECK_LINKS(&l, "http://cdn.test/root/y");

	/* a base that is no http(s) URL leaves the page's own */
	html(&l, "<base href=\"javascript:alert(1)\"><a href=\"z\">z</a>", NULL);
	CHECK_LINKS(&l, "http://site.test/dir/z");
}

TEST(links_html_srcset_forms)
{
	struct strlist l = STRLIST_INIT;
	html(&l, "<img srcset=\"a.png 1x, b.png 2x\">", NULL);
	CHECK_LINKS(&l, "http://site.test/dir/a.png resource", "http://site.test/dir/b.png resource");
	html(&l, "<img srcset=\"c.png, d.png 2x\">", NULL);
	CHECK_LINKS(&l, "http://site.test/dir/c.png resource", "http://site.test/dir/d.png resource");
	html(&l, "<img srcset=\"e.png 480w,f.png 800w\">", NULL);
	CHECK_LINKS(&l, "http://site.test/dir/e.png resource", "http://site.test/dir/f.png resource");
	html(&l, "<picture><source srcset=\"/g.webp 1x,\n\t/h,i.webp 2x\" type=image/webp>"
		 "<img src=\"/j.jpg\" srcset=\"data:image/png;base64,AAA= 1x, /k.jpg 2x\"></picture>",
	     NULL);
	CHECK_LINKS(&l, "http://site.test/g.webp resource", "http://site.test/h,i.webp resource",
		    "http://site.test/j.jpg resource", "http://site.test/k.jpg resource");
	/* descriptors with parentheses and commas, and a stray comma run */
	html(&l, "<img srcset=\"l.png (min-width: 1px, x) 1x ,, m.png\">", NULL);
	CHECK_LINKS(&l, "http://site.test/dir/l.png resource", "http://site.test/dir/m.png resource");
	html(&l, "<img data-srcset=\"/n.png 1x\"><link rel=preload as=image imagesrcset=\"/o.png 2x\">", NULL);
	CHECK_LINKS(&l, "http://site.test/n.png resource", "http://site.test/o.png resource");
}

TEST(links_html_meta_refresh_forms)
{
	static const struct str_case cases[] = {
		{ "5; url=/next", "http://site.test/next" },
		{ "0;URL='/quoted'", "http://site.test/quoted" },
		{ "0;url=/nospace", "http://site.test/nospace" },
		{ "3; URL = &quot;dq.html&quot; ", "http://site.test/dir/dq.html" },
		{ "1, url=comma", "http://site.test/dir/comma" },
		{ "0.5; /bare", "http://site.test/bare" },
		{ "2 url=space", "http://site.test/dir/space" },
		{ "0; url='/q'junk", "http://site.test/q" },
		{ "10", NULL },
		{ "soon; url=/x", NULL },
		{ "5;", NULL },
	};
	for (size_t i = 0; i < COUNT(cases); i++) {
		struct strlist l = STRLIST_INIT;
		char *page = xasprintf("<meta http-equiv=\"Refresh\" content=\"%s\">", cases[i].in);
		html(&l, page, NULL);
		if (cases[i].want)
			CHECK_LINKS(&l, cases[i].want);
		else
			CHECK_NO_LINKS(&l);
		free(page);
	}
}

TEST(links_html_inline_css)
{
	struct strlist l = STRLIST_INIT;
	html(&l, "<head><base href=\"/b/\"><style>body{background:url(bg.png)} @import \"imp.css\";"
		 "/* url(no.png) */</style><style type=\"text/less\">x{a:url(less.png)}</style></head>"
		 "<body><div style=\"background-image: url( 'div.png' )\">x</div>"
		 "<p style=\"color:red\">y</p></body>",
	     NULL);
	CHECK_LINKS(&l, "http://site.test/b/bg.png resource", "http://site.test/b/imp.css resource",
		    "http://site.test/b/div.png resource");
}

/* ---- robots meta ---- */

TEST(links_html_robots_meta_variants)
{
	static const struct { const char *head; bool noindex, nofollow; } cases[] = {
		{ "<meta name=\"robots\" content=\"noindex,nofollow\">", true, true },
		{ "<meta name=\"ROBOTS\" content=\"NoIndex\">", true, false },
		{ "<meta name=robots content=\"index, nofollow\">", false, true },
		{ "<meta name=robots content=none>", true, true },
		{ "<meta name=cgisnap content=noindex>", true, false },
		{ "<meta name=googlebot content=\"noindex,nofollow\">", false, false },
		{ "<meta name=robots content=\"all\">", false, false },
		{ "<meta name=robots content=\"noindexed nofollowing\">", false, false },
		{ "<meta name=robots content=noindex><meta name=robots content=nofollow>", true, true },
		{ "", false, false },
	};
	for (size_t i = 0; i < COUNT(cases); i++) {
		struct strlist l = STRLIST_INIT;
		struct page_meta meta = { .noindex = true, .nofollow = true };
		char *page = xasprintf("<html><head>%s</head><body><a href=/x>x</a></body></html>", cases[i].head);
		CHECK_INT(0, html(&l, page, &meta));
		CHECK_INT(cases[i].noindex, meta.noindex);
		CHECK_INT(cases[i].nofollow, meta.nofollow);
		/* the link is reported unflagged either way: the crawler decides */
		CHECK_LINKS(&l, "http://site.test/x");
		free(page);
	}
}

TEST(links_html_canonical_meta)
{
	const struct { const char *head; const char *canonical; } cases[] = {
		{ "<link rel=canonical href=/item?id=1>", "http://site.test/item?id=1" },
		{ "<link rel=\"Canonical\" href=\"item?id=2\">", "http://site.test/dir/item?id=2" },
		{ "<link rel=canonical href=/a><link rel=canonical href=/b>", "http://site.test/a" },
		/* against the base, which may come after the link */
		{ "<link rel=canonical href=c.html><base href=\"http://site.test/other/\">", "http://site.test/other/c.html" },
		{ "<link rel=canonical href=\"https://elsewhere.test/x#top\">", "https://elsewhere.test/x" },
		{ "<link rel=canonical href=\"javascript:void(0)\">", "" },
		{ "<link rel=canonical>", "" },
		{ "<link rel=alternate href=/feed>", "" },
		{ "", "" },
	};
	for (size_t i = 0; i < COUNT(cases); i++) {
		struct page_meta meta;
		strcpy(meta.canonical, "left over");
		char *page = xasprintf("<html><head>%s</head><body></body></html>", cases[i].head);
		struct strlist l = STRLIST_INIT;
		CHECK_INT(0, links_from_html("http://site.test/dir/page", page, strlen(page), collect, &l, &meta));
		CHECK_STR(cases[i].canonical, meta.canonical);
		strlist_clear(&l);
		free(page);
	}
}

TEST(links_html_robots_nofollow_flags_no_link)
{
	struct strlist l = STRLIST_INIT;
	struct page_meta meta;
	html(&l, "<meta name=robots content=nofollow><img src=/i.png><a href=/a>a</a>"
		 "<link rel=next href=/n><link rel=stylesheet href=/s.css>",
	     &meta);
	CHECK(meta.nofollow);
	CHECK_LINKS(&l, "http://site.test/i.png resource", "http://site.test/a", "http://site.test/n",
		    "http://site.test/s.css resource");
}

/* ---- broken HTML ---- */

TEST(links_html_unclosed_and_unquoted)
{
	struct strlist l = STRLIST_INIT;
	CHECK_INT(0, html(&l, "<div><p><a href=one.html>one<p><a href=/two?x=1&y=2 class=c>two"
			      "<table><tr><td><a href='three'>three</table><ul><li><a href=four>4<li>"
			      "<a href=five>5",
			  NULL));
	CHECK_LINKS(&l, "http://site.test/dir/one.html", "http://site.test/two?x=1&y=2",
		    "http://site.test/dir/three", "http://site.test/dir/four", "http://site.test/dir/five");
}

TEST(links_html_nul_and_garbage_bytes)
{
	static const char page[] = "<a href=/before>b</a><p>\0junk\x01\x02\xff\xfe\xc3<b>\0</b>"
				   "<a href=\"/after\">a</a><img src=\"/img\0.png\"><a href=/end>e</a>";
	struct strlist l = STRLIST_INIT;
	CHECK_INT(0, links_from_html(PAGE, page, sizeof page - 1, collect, &l, NULL));
	CHECK_LINKS(&l, "http://site.test/before", "http://site.test/after",
		    "http://site.test/img%EF%BF%BD.png resource", "http://site.test/end");
}

TEST(links_html_truncated_in_a_tag)
{
	struct strlist l = STRLIST_INIT;
	CHECK_INT(0, html(&l, "<a href=/first>f</a><img src=\"/second.png\"><a hre", NULL));
	CHECK_LINKS(&l, "http://site.test/first", "http://site.test/second.png resource");
	html(&l, "<a href=/first>f</a><a href=\"/unterminated", NULL);
	CHECK(strlist_contains(&l, "http://site.test/first"));
	strlist_clear(&l);
	html(&l, "<a href=/first>f</a><!-- an unclosed comment <a href=/hidden>", NULL);
	CHECK(strlist_contains(&l, "http://site.test/first"));
	strlist_clear(&l);
}

TEST(links_html_empty_and_binary_bodies)
{
	struct strlist l = STRLIST_INIT;
	CHECK_INT(0, links_from_html(PAGE, "", 0, collect, &l, NULL));
	CHECK_INT(0, html(&l, "  \n\t", NULL));
	CHECK_INT(0, l.n);
	char junk[4096];
	for (size_t i = 0; i < sizeof junk; i++)
		junk[i] = (char)(i * 7919 % 251);
	links_from_html(PAGE, junk, sizeof junk, collect, &l, NULL); /* must not crash */
	strlist_clear(&l);
	/* very deep nesting is no stack overflow */
	struct buf deep = BUF_INIT;
	for (int i = 0; i < 20000; i++)
		buf_adds(&deep, "<div><span>");
	buf_adds(&deep, "<a href=/deep>d</a>");
	links_from_html(PAGE, deep.data, deep.len, collect, &l, NULL);
	strlist_clear(&l);
	buf_release(&deep);
}

/* ---- character encodings ---- */

TEST(links_html_encodings)
{
	struct strlist l = STRLIST_INIT;
	/* undeclared UTF-8, even with a byte cut off in a teaser */
	html(&l, "<p>caf\xc3 ...</p><a href=\"/caf\xc3\xa9\">c</a>", NULL);
	CHECK_LINKS(&l, "http://site.test/caf%C3%A9");
	/* Latin-1 declared by <meta>, and undeclared */
	html(&l, "<meta charset=\"iso-8859-1\"><a href=\"/caf\xe9\">c</a>", NULL);
	CHECK_LINKS(&l, "http://site.test/caf%C3%A9");
	html(&l, "<meta http-equiv=Content-Type content=\"text/html; charset=windows-1252\">"
		 "<a href=\"/\x80\">euro</a>",
	     NULL);
	CHECK_LINKS(&l, "http://site.test/%E2%82%AC");
	html(&l, "<a href=\"/caf\xe9\">c</a>", NULL);
	CHECK_LINKS(&l, "http://site.test/caf%C3%A9");
	/* a commented-out declaration does not count */
	html(&l, "<!-- <meta charset=iso-8859-1> --><a href=\"/caf\xc3\xa9\">c</a>", NULL);
	CHECK_LINKS(&l, "http://site.test/caf%C3%A9");
	/* the HTTP charset wins over <meta> */
	const char *p = "<meta charset=utf-8><a href=\"/caf\xe9\">c</a>";
	links_extract("text/html; charset=ISO-8859-1", PAGE, p, strlen(p), collect, &l, NULL);
	CHECK_LINKS(&l, "http://site.test/caf%C3%A9");
	/* UTF-16 with a byte order mark */
	static const char u16[] = "\xff\xfe<\0a\0 \0h\0r\0e\0f\0=\0/\0x\0>\0";
	links_from_html(PAGE, u16, sizeof u16 - 1, collect, &l, NULL);
	CHECK_LINKS(&l, "http://site.test/x");
}

/* ---- CSS ---- */

TEST(links_css_url_forms)
{
	struct strlist l = STRLIST_INIT;
	CHECK_INT(0, css(&l, "a{background:url(plain.png)}\n"
			     "b{background:URL( \"dq.png\" )}\n"
			     "c{background:url('sq.png')}\n"
			     "d{background:url(  spaced.png  )}\n"
			     "e{background:url(/abs/x.png)}\n"
			     "f{background:url(../up.png)}\n"
			     "g{background:url(esc\\(aped\\).png)}\n"
			     "h{background:url(\"\\68 ex.png\")}\n"
			     "@font-face{src:url(f.woff2) format(\"woff2\"),url(f.woff) format(\"woff\")}\n"
			     "i{background:myurl(no1.png); content:\"url(no2.png)\"}\n"
			     "j{background:url(data:image/png;base64,AAAA)}\n"
			     "k{background:url()}\n"));
	CHECK_LINKS(&l, "http://site.test/css/plain.png resource", "http://site.test/css/dq.png resource",
		    "http://site.test/css/sq.png resource", "http://site.test/css/spaced.png resource",
		    "http://site.test/abs/x.png resource", "http://site.test/up.png resource",
		    "http://site.test/css/esc(aped).png resource", "http://site.test/css/hex.png resource",
		    "http://site.test/css/f.woff2 resource", "http://site.test/css/f.woff resource");
}

TEST(links_css_imports_and_comments)
{
	struct strlist l = STRLIST_INIT;
	css(&l, "@charset \"utf-8\";\n@import \"a.css\";\n@import 'b.css' screen;\n"
		"@IMPORT url(c.css) print;\n@import /* c */ \"d.css\";\n"
		"/* url(no.png) @import \"no.css\"; */\n"
		"x{background:url(yes.png)} /* unterminated url(no2.png)");
	CHECK_LINKS(&l, "http://site.test/css/a.css resource", "http://site.test/css/b.css resource",
		    "http://site.test/css/c.css resource", "http://site.test/css/d.css resource",
		    "http://site.test/css/yes.png resource");
}

TEST(links_css_bad_tokens_and_image_set)
{
	struct strlist l = STRLIST_INIT;
	css(&l, "a{background:url(bad url.png)} b{background:url(ok.png)}\n"
		/* a newline ends a string early, as in a browser */
		"c{content:\"broken\n} d{background:url(after1.png)}\n"
		"e{background:url(\"bad\n)} f{background:url(after2.png)}\n"
		"f{background-image:image-set(\"set1.png\" 1x, url(set2.png) 2x)} g{font-family:\"not a url\"}\n"
		"h{background:-webkit-image-set('set3.png' 1x)}\n"
		"i{background:url(eof.png");
	CHECK_LINKS(&l, "http://site.test/css/ok.png resource", "http://site.test/css/after1.png resource",
		    "http://site.test/css/after2.png resource",
		    "http://site.test/css/set1.png resource", "http://site.test/css/set2.png resource",
		    "http://site.test/css/set3.png resource", "http://site.test/css/eof.png resource");
}

/* ---- XML ---- */

TEST(links_xml_rss)
{
	struct strlist l = STRLIST_INIT;
	CHECK_INT(0, xml(&l, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
			     "<?xml-stylesheet type=\"text/xsl\" href=\"/feed.xsl\"?>\n"
			     "<rss version=\"2.0\" xmlns:atom=\"http://www.w3.org/2005/Atom\""
			     " xmlns:wfw=\"http://wellformedweb.org/CommentAPI/\"><channel>"
			     "<title>T</title><link>http://site.test/</link>"
			     "<atom:link href=\"http://site.test/feed/\" rel=\"self\" type=\"application/rss+xml\"/>"
			     "<image><url>http://site.test/logo.png</url><link>http://site.test/</link></image>"
			     "<item><title>1</title><link> http://site.test/post-1/ </link>"
			     "<comments>http://site.test/post-1/#comments</comments>"
			     "<wfw:commentRss>http://site.test/post-1/feed/</wfw:commentRss>"
			     "<guid isPermaLink=\"false\">http://site.test/?p=1</guid>"
			     "<enclosure url=\"/media/ep1.mp3\" length=\"1\" type=\"audio/mpeg\"/></item>"
			     "<item><link><![CDATA[http://site.test/post-2/]]></link>"
			     "<guid>http://site.test/guid-2</guid></item>"
			     "<item><guid isPermaLink=\"true\">http://site.test/guid-3</guid></item>"
			     "<item><guid>urn:uuid:1234</guid></item>"
			     "</channel></rss>"));
	CHECK_LINKS(&l, "http://site.test/feed.xsl resource", "http://site.test/",
		    "http://site.test/feed/", "http://site.test/logo.png resource",
		    "http://site.test/post-1/", "http://site.test/post-1/feed/",
		    "http://site.test/media/ep1.mp3 resource", "http://site.test/post-2/",
		    "http://site.test/guid-2", "http://site.test/guid-3");
}

TEST(links_xml_atom_with_xml_base)
{
	struct strlist l = STRLIST_INIT;
	xml(&l, "<?xml version=\"1.0\"?>\n<feed xmlns=\"http://www.w3.org/2005/Atom\" xml:base=\"/blog/\">"
		"<link href=\"./\"/><link rel=\"self\" href=\"atom.xml\"/>"
		"<link rel=\"hub\" href=\"https://hub.test/\"/><icon>icon.png</icon>"
		"<entry xml:base=\"2024/\"><link rel=\"alternate\" href=\"post.html\"/>"
		"<link rel=\"edit\" href=\"/api/edit/1\"/><link rel=\"enclosure\" href=\"talk.mp3\"/>"
		"<content type=\"html\" src=\"body.html\"/></entry>"
		"<entry><link href=\"http://elsewhere.test/x\"/></entry></feed>");
	CHECK_LINKS(&l, "http://site.test/blog/", "http://site.test/blog/atom.xml",
		    "http://site.test/blog/icon.png resource", "http://site.test/blog/2024/post.html",
		    "http://site.test/blog/2024/talk.mp3 resource", "http://site.test/blog/2024/body.html",
		    "http://elsewhere.test/x");

	/* a prefixed Atom namespace, no xml:base */
	xml(&l, "<a:feed xmlns:a=\"http://www.w3.org/2005/Atom\"><a:entry><a:link href=\"e1\"/></a:entry></a:feed>");
	CHECK_LINKS(&l, "http://site.test/feed/e1");
}

TEST(links_xml_sitemaps)
{
	struct strlist l = STRLIST_INIT;
	xml(&l, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\""
		" xmlns:image=\"http://www.google.com/schemas/sitemap-image/1.1\">"
		"<url><loc>http://site.test/</loc><lastmod>2024-01-01</lastmod></url>"
		"<url><loc>\n  http://site.test/a?x=1&amp;y=2\n</loc>"
		"<image:image><image:loc>http://site.test/a.jpg</image:loc></image:image></url>"
		"</urlset>");
	CHECK_LINKS(&l, "http://site.test/", "http://site.test/a?x=1&y=2", "http://site.test/a.jpg resource");

	xml(&l, "<sitemapindex xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">"
		"<sitemap><loc>http://site.test/sitemap-1.xml</loc></sitemap>"
		"<sitemap><loc>http://site.test/sitemap-2.xml</loc></sitemap></sitemapindex>");
	CHECK_LINKS(&l, "http://site.test/sitemap-1.xml", "http://site.test/sitemap-2.xml");

	/* no namespace at all, and broken: the links before the damage count */
	xml(&l, "<urlset><url><loc>http://site.test/ok</loc></url><url><loc>http://site.test/also</loc>"
		"<broken <<< &bogus; </url></urlset>");
	CHECK(strlist_contains(&l, "http://site.test/ok"));
	strlist_clear(&l);
}

TEST(links_xml_damage_and_encodings)
{
	struct strlist l = STRLIST_INIT;
	/* a NUL byte and invalid UTF-8 in the middle of a sitemap */
	static const char damaged[] = "<urlset><url><loc>http://site.test/1</loc></url>\0"
				      "<url><loc>http://site.test/2\xff\0</loc></url>"
				      "<url><loc>http://site.test/3</loc></url></urlset>";
	CHECK_INT(0, links_from_xml("http://site.test/", damaged, sizeof damaged - 1, collect, &l));
	CHECK_LINKS(&l, "http://site.test/1", "http://site.test/2%EF%BF%BD%EF%BF%BD", "http://site.test/3");
	/* declared Latin-1, decoded once */
	xml(&l, "<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?><rss><channel>"
		"<link>http://site.test/caf\xe9</link></channel></rss>");
	CHECK_LINKS(&l, "http://site.test/caf%C3%A9");
	/* declared UTF-8 */
	xml(&l, "<?xml version='1.0' encoding='utf-8'?><rss><channel>"
		"<link>http://site.test/caf\xc3\xa9</link></channel></rss>");
	CHECK_LINKS(&l, "http://site.test/caf%C3%A9");
	/* UTF-16 without a byte order mark */
	static const char u16[] = "<\0?\0x\0m\0l\0 \0v\0e\0r\0s\0i\0o\0n\0=\0'\0""1\0.\0""0\0'\0?\0>\0"
				  "<\0l\0o\0c\0>\0/\0u\0<\0/\0l\0o\0c\0>\0";
	links_from_xml("http://site.test/", u16, sizeof u16 - 1, collect, &l);
	CHECK_LINKS(&l, "http://site.test/u");
	/* nothing to parse */
	CHECK_INT(0, links_from_xml("http://site.test/", "", 0, collect, &l));
	CHECK_NO_LINKS(&l);
}

TEST(links_xml_refuses_external_entities)
{
	char path[] = "/tmp/cgisnap-xxe-XXXXXX";
	int fd = mkstemp(path);
	CHECK(fd >= 0);
	if (fd < 0)
		return;
	CHECK(write(fd, "SECRET", 6) == 6);
	close(fd);

	/* a general entity, and a parameter entity naming the file as a DTD */
	char *docs[2];
	docs[0] = xasprintf("<?xml version=\"1.0\"?>\n<!DOCTYPE x [<!ENTITY e SYSTEM \"file://%s\">]>\n"
			    "<rss><channel><link>http://site.test/&e;</link>"
			    "<item><link>http://site.test/ok</link><enclosure url=\"/&e;\"/></item></channel></rss>",
			    path);
	docs[1] = xasprintf("<?xml version=\"1.0\"?>\n<!DOCTYPE x [<!ENTITY %% p SYSTEM \"file://%s\"> %%p;]>\n"
			    "<rss><channel><link>http://site.test/ok</link></channel></rss>",
			    path);
	for (int d = 0; d < 2; d++) {
		struct strlist l = STRLIST_INIT;
		links_from_xml("http://site.test/", docs[d], strlen(docs[d]), collect, &l);
		for (size_t i = 0; i < l.n; i++)
			CHECK(!strstr(l.items[i], "SECRET"));
		CHECK(strlist_contains(&l, "http://site.test/ok"));
		strlist_clear(&l);
		free(docs[d]);
	}
	unlink(path);
}

TEST(links_xml_entity_expansion_is_bounded)
{
	/* "billion laughs": must end quickly without expanding */
	struct buf b = BUF_INIT;
	buf_adds(&b, "<?xml version=\"1.0\"?>\n<!DOCTYPE r [<!ENTITY l0 \"lollollollollol\">");
	for (int i = 1; i < 10; i++)
		buf_addf(&b, "<!ENTITY l%d \"&l%d;&l%d;&l%d;&l%d;&l%d;&l%d;&l%d;&l%d;&l%d;&l%d;\">", i, i - 1,
			 i - 1, i - 1, i - 1, i - 1, i - 1, i - 1, i - 1, i - 1, i - 1);
	buf_adds(&b, "]>\n<urlset><url><loc>http://site.test/&l9;</loc></url>"
		     "<url><loc>http://site.test/fine</loc></url></urlset>");
	struct strlist l = STRLIST_INIT;
	links_from_xml("http://site.test/", b.data, b.len, collect, &l);
	for (size_t i = 0; i < l.n; i++)
		CHECK(strlen(l.items[i]) < 200);
	strlist_clear(&l);
	buf_release(&b);
}

/* ---- dispatch ---- */

TEST(links_extract_dispatches_by_content_type)
{
	static const char page[] = "<a href=/h>h</a><style>x{background:url(/c.png)}</style>";
	static const char style[] = "x{background:url(/only-css.png)}";
	static const char feed[] = "<rss><channel><link>http://site.test/r</link></channel></rss>";
	struct strlist l = STRLIST_INIT;
	struct page_meta meta = { .noindex = true, .nofollow = true };

	CHECK_INT(0, links_extract("Text/HTML; charset=UTF-8", PAGE, page, strlen(page), collect, &l, &meta));
	CHECK(!meta.noindex && !meta.nofollow);
	CHECK_LINKS(&l, "http://site.test/h", "http://site.test/c.png resource");
	links_extract("application/xhtml+xml", PAGE, page, strlen(page), collect, &l, NULL);
	CHECK_INT(2, l.n);
	strlist_clear(&l);
	links_extract(" text/css ;charset=utf-8", PAGE, style, strlen(style), collect, &l, NULL);
	CHECK_LINKS(&l, "http://site.test/only-css.png resource");
	static const char *const xml_types[] = { "application/rss+xml", "application/atom+xml",
						 "application/xml; charset=utf-8", "text/xml", NULL };
	for (const char *const *t = xml_types; *t; t++) {
		links_extract(*t, PAGE, feed, strlen(feed), collect, &l, NULL);
		CHECK_LINKS(&l, "http://site.test/r");
	}
	/* HTML served as something else has no links */
	CHECK_INT(0, links_extract("text/plain", PAGE, page, strlen(page), collect, &l, &meta));
	CHECK_INT(0, links_extract("image/png", PAGE, page, strlen(page), collect, &l, NULL));
	CHECK_INT(0, links_extract(NULL, PAGE, page, strlen(page), collect, &l, NULL));
	CHECK_INT(0, links_extract("text/htmlx", PAGE, page, strlen(page), collect, &l, NULL));
	CHECK_NO_LINKS(&l);
}

TEST(links_xml_xhtml_is_read_as_html)
{
	static const char doc[] = "<?xml version=\"1.0\"?><html xmlns=\"http://www.w3.org/1999/xhtml\">"
				  "<body><a href=\"/x\">x</a><img src=\"/i.png\"/></body></html>";
	struct strlist l = STRLIST_INIT;
	links_extract("text/xml", PAGE, doc, strlen(doc), collect, &l, NULL);
	CHECK_LINKS(&l, "http://site.test/x", "http://site.test/i.png resource");
}

/* ---- threads ---- */

static const char thread_page[] = "<html><head><meta charset=iso-8859-1><link rel=stylesheet href=/s.css>"
				  "<style>a{background:url(/bg.png)}</style></head><body>"
				  "<a href=/caf\xe9>1</a><img srcset=\"/a.png 1x, /b.png 2x\"><p>\0<a href=/x>";
static const char thread_feed[] = "<?xml version=\"1.0\"?><rss><channel><link>http://site.test/</link>"
				  "<item><link>http://site.test/i</link></item></channel></rss>";

static void *extract_repeatedly(void *arg)
{
	long bad = 0;
	(void)arg;
	for (int i = 0; i < 200; i++) {
		struct strlist l = STRLIST_INIT;
		links_extract("text/html", PAGE, thread_page, sizeof thread_page - 1, collect, &l, NULL);
		bad += l.n != 6 || !strlist_contains(&l, "http://site.test/caf%C3%A9");
		strlist_clear(&l);
		links_extract("application/rss+xml", PAGE, thread_feed, sizeof thread_feed - 1, collect, &l, NULL);
		bad += l.n != 2;
		strlist_clear(&l);
	}
	return (void *)bad;
}

TEST(links_extract_from_many_threads)
{
	pthread_t t[4];
	links_init();
	for (int i = 0; i < 4; i++)
		CHECK_INT(0, pthread_create(&t[i], NULL, extract_repeatedly, NULL));
	for (int i = 0; i < 4; i++) {
		void *bad;
		pthread_join(t[i], &bad);
		CHECK_INT(0, (long)bad);
	}
}
