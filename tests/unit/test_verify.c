/* test_verify.c - verify's parts: access-log lines in each format, the
 * comparison of two answers by cause (redirects, types, bodies with
 * --strip and volatile spans), the first differing line, percentages and
 * order of the report. */
#include <stdlib.h>
#include <string.h>

#include "../../verify/compare.h"
#include "../../verify/findings.h"
#include "../../verify/logread.h"
#include "base/textesc.h"
#include "base/xalloc.h"
#include "unit.h"

TEST(verify_log_line_formats)
{
	static const struct {
		const char *line, *method, *target;
	} cases[] = {
		/* Apache's and nginx's combined */
		{ "203.0.113.5 - - [06/Dec/2026:10:00:00 +0000] \"GET /doku.php?id=start HTTP/1.1\" 200 512 \"-\" \"Mozilla/5.0 (X11)\"",
		  "GET", "/doku.php?id=start" },
		/* common */
		{ "203.0.113.5 - frank [06/Dec/2026:10:00:00 +0000] \"HEAD /a%20b HTTP/1.0\" 304 -", "HEAD", "/a%20b" },
		/* vhost_combined */
		{ "wiki.example.org:443 203.0.113.5 - - [06/Dec/2026:10:00:00 +0000] \"GET / HTTP/2.0\" 200 9 \"-\" \"x\"",
		  "GET", "/" },
		/* absolute form; Apache's \" and nginx's \x22 inside the request */
		{ "::1 - - [06/Dec/2026:10:00:00 +0000] \"GET http://wiki.example.org/x HTTP/1.1\" 200 1", "GET",
		  "http://wiki.example.org/x" },
		{ "::1 - - [06/Dec/2026:10:00:00 +0000] \"GET /q?a=\\\"b\\\" HTTP/1.1\" 404 1", "GET", "/q?a=\"b\"" },
		{ "::1 - - [06/Dec/2026:10:00:00 +0000] \"GET /q?a=\\x22b HTTP/1.1\" 404 1", "GET", "/q?a=\"b" },
		/* HTTP/0.9: no protocol */
		{ "::1 - - [06/Dec/2026:10:00:00 +0000] \"GET /old\" 200 1", "GET", "/old" },
		{ "::1 - - [06/Dec/2026:10:00:00 +0000] \"POST /doku.php HTTP/1.1\" 302 0 \"-\" \"-\"", "POST",
		  "/doku.php" },
	};
	for (size_t i = 0; i < COUNT(cases); i++) {
		char *m, *t;
		CHECK_INT(0, logread_parse_line(cases[i].line, &m, &t));
		CHECK_STR(cases[i].method, m);
		CHECK_STR(cases[i].target, t);
		free(m);
		free(t);
	}
	static const char *bad[] = {
		"",
		"no time, no request",
		"::1 - - [06/Dec/2026:10:00:00 +0000] \"-\" 400 0",          /* nginx's request-less 400 */
		"::1 - - [06/Dec/2026:10:00:00 +0000] \"GET / HTTP/1.1\" -", /* no status */
		"::1 - - [06/Dec/2026:10:00:00 +0000] \"GET / HTTP/1.1",     /* unclosed */
		"::1 \"GET / HTTP/1.1\" 200 1",                                /* no time */
	};
	for (size_t i = 0; i < COUNT(bad); i++) {
		char *m, *t;
		CHECK_INT(-1, logread_parse_line(bad[i], &m, &t));
		CHECK(!m && !t);
	}
}

static void answer(struct origin_response *rs, int status, const char *type, const char *location, const char *body)
{
	origin_response_init(rs);
	rs->status = status;
	rs->content_type = type ? xstrdup(type) : NULL;
	rs->location = location ? xstrdup(location) : NULL;
	if (body)
		buf_adds(&rs->body, body);
}

/* The cause of comparing the two answers, their detail into *detail
 * (freed by the caller). */
static enum cause cmp(const struct compare_ctx *ctx, int os, const char *ot, const char *ol, const char *ob, int ts,
		      const char *tt, const char *tl, const char *tb, char **detail)
{
	struct origin_response o, t;
	answer(&o, os, ot, ol, ob);
	answer(&t, ts, tt, tl, tb);
	enum cause c = compare_answers(ctx, "/dir/page?x=1", &o, &t, detail);
	origin_response_release(&o);
	origin_response_release(&t);
	return c;
}

TEST(verify_compare_by_cause)
{
	struct site site;
	char err[256], *d;
	CHECK_INT(0, site_init(&site, "http://wiki.example.org/", err));
	struct compare_ctx ctx = { &site, NULL, NULL };
	const char *html = "text/html; charset=utf-8";
	CHECK_INT(CAUSE_ALIKE, cmp(&ctx, 200, html, NULL, "a\nb\n", 200, "text/html;charset=UTF-8", NULL, "a\nb\n", &d));
	CHECK(!d);
	/* Two 404s are alike whatever their pages. */
	CHECK_INT(CAUSE_ALIKE, cmp(&ctx, 404, html, NULL, "mine", 404, html, NULL, "theirs", &d));
	/* A redirect, relative on one side and absolute on the other. */
	CHECK_INT(CAUSE_ALIKE, cmp(&ctx, 301, NULL, "/dir/", NULL, 301, NULL, "http://wiki.example.org/dir/", NULL, &d));
	CHECK_INT(CAUSE_REDIRECT, cmp(&ctx, 301, NULL, "/dir/", NULL, 302, NULL, "/dir/", NULL, &d));
	CHECK_STR("origin 301 to 'http://wiki.example.org/dir/', tree 302 to 'http://wiki.example.org/dir/'", d);
	free(d);
	CHECK_INT(CAUSE_REDIRECT, cmp(&ctx, 301, NULL, "new", NULL, 200, html, NULL, "x", &d));
	CHECK_STR("origin 301 to 'http://wiki.example.org/dir/new', tree 200", d);
	free(d);
	/* The tree lacks it; the origin fails; a page deleted since. */
	CHECK_INT(CAUSE_NOT_IN_TREE, cmp(&ctx, 200, html, NULL, "x", 404, html, NULL, "nf", &d));
	CHECK(!d); /* scope.h says why */
	CHECK_INT(CAUSE_NOT_IN_TREE, cmp(&ctx, 301, NULL, "/elsewhere", NULL, 404, html, NULL, "nf", &d));
	CHECK_STR("the origin redirects (301) to 'http://wiki.example.org/elsewhere'", d);
	free(d);
	CHECK_INT(CAUSE_ORIGIN_FAILED, cmp(&ctx, 503, html, NULL, "busy", 200, html, NULL, "x", &d));
	CHECK_STR("the origin answers 503", d);
	free(d);
	CHECK_INT(CAUSE_STATUS, cmp(&ctx, 404, html, NULL, "nf", 200, html, NULL, "x", &d));
	CHECK_STR("origin 404, tree 200", d);
	free(d);
	CHECK_INT(CAUSE_TYPE, cmp(&ctx, 200, "text/plain", NULL, "x", 200, html, NULL, "x", &d));
	CHECK_STR("origin 'text/plain', tree 'text/html; charset=utf-8'", d);
	free(d);
	CHECK_INT(CAUSE_TYPE, cmp(&ctx, 200, "text/html; charset=iso-8859-1", NULL, "x", 200, html, NULL, "x", &d));
	free(d);
	/* The charset as charset_of_type reads it: spaces, quotes, any case. */
	CHECK_INT(CAUSE_ALIKE, cmp(&ctx, 200, "text/html; charset = \"UTF-8\"", NULL, "x", 200, html, NULL, "x", &d));
	CHECK_INT(CAUSE_TYPE, cmp(&ctx, 200, "text/html; charset = \"ISO-8859-1\"", NULL, "x", 200, html, NULL, "x", &d));
	free(d);
	/* A charset named on one side only is no difference. */
	CHECK_INT(CAUSE_ALIKE, cmp(&ctx, 200, "text/html", NULL, "x", 200, html, NULL, "x", &d));
	CHECK_INT(CAUSE_BODY, cmp(&ctx, 200, html, NULL, "one\ntwo\nthree\n", 200, html, NULL, "one\nTWO\nthree\n", &d));
	CHECK_STR("line 2: origin 'two', tree 'TWO'", d);
	free(d);
	site_release(&site);
}

TEST(verify_compare_leaves_out_strip_and_volatile_spans)
{
	struct site site;
	struct crawl_config cfg;
	struct volatiles v;
	char err[256], *d;
	CHECK_INT(0, site_init(&site, "http://wiki.example.org/", err));
	crawl_config_init(&cfg);
	strlist_add(&cfg.strip, "<img src=\"/task[^>]*>");
	CHECK_INT(0, crawl_config_compile(&cfg, err));
	volatiles_init(&v);
	const char *rule = "0123456789\tRendered in ";
	volatiles_parse(&v, rule, strlen(rule));
	struct compare_ctx ctx = { &site, &cfg, &v };
	const char *html = "text/html";
	/* The tree's file was stored stripped; the origin's render is not. */
	CHECK_INT(CAUSE_ALIKE, cmp(&ctx, 200, html, NULL, "<p>a<img src=\"/task?t=171\"></p>", 200, html, NULL,
				   "<p>a</p>", &d));
	CHECK_INT(CAUSE_ALIKE, cmp(&ctx, 200, html, NULL, "x Rendered in 12 ms", 200, html, NULL,
				   "x Rendered in 873 ms", &d));
	CHECK_INT(CAUSE_BODY, cmp(&ctx, 200, html, NULL, "y Rendered in 12 ms", 200, html, NULL,
				  "x Rendered in 873 ms", &d));
	free(d);
	volatiles_release(&v);
	strlist_clear(&cfg.strip);
	crawl_config_release(&cfg);
	site_release(&site);
}

TEST(verify_first_differing_line)
{
	CHECK_STR_FREE("line 1: origin 'abc', tree 'abd'", compare_first_line("abc\n", 4, "abd\n", 4));
	/* One side ends first; control bytes shown as '?'; long lines cut. */
	CHECK_STR_FREE("line 3: origin '', tree 'more'", compare_first_line("a\nb\n", 4, "a\nb\nmore", 8));
	CHECK_STR_FREE("line 1: origin 'a?b', tree 'a?c'", compare_first_line("a\tb", 3, "a\tc", 3));
	/* A Latin-1 byte is no UTF-8: never written raw to a terminal. */
	CHECK_STR_FREE("line 1: origin 'caf?', tree 'cafe'", compare_first_line("caf\xe9", 4, "cafe", 4));
	char longer[200];
	memset(longer, 'x', sizeof longer);
	char *d = compare_first_line(longer, sizeof longer, "y", 1);
	CHECK_HAS(d, "xxx...', tree 'y'");
	CHECK(strlen(d) < 120);
	free(d);
	/* A long line (minified HTML): the excerpt starts near the difference. */
	char a[300], b[300];
	memset(a, 'a', sizeof a);
	memcpy(b, a, sizeof b);
	memcpy(a + 200, "ORIGIN", 6);
	memcpy(b + 200, "TREE!!", 6);
	d = compare_first_line(a, sizeof a, b, sizeof b);
	CHECK_HAS(d, "line 1: origin '...aaaaaaaaaaaaaaaaaaaaORIGIN");
	CHECK_HAS(d, "', tree '...aaaaaaaaaaaaaaaaaaaaTREE!!");
	free(d);
	/* Never cut inside a UTF-8 character: 79 bytes, then a 2-byte one. */
	char u[90];
	memset(u, 'x', 79);
	memcpy(u + 79, "\xc3\xa9z", 3);
	d = compare_first_line(u, 82, "y", 1);
	CHECK_HAS(d, "xxx...', tree 'y'");
	CHECK_LACKS(d, "\xc3'");
	CHECK_LACKS(d, "\xc3.");
	free(d);
}

TEST(verify_json_strings_stay_utf8)
{
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);
	json_string(out, "caf\xc3\xa9 \xe9t\xe9 \x89PNG \"q\"\n");
	fclose(out);
	CHECK_STR("\"caf\xc3\xa9 \\ufffdt\\ufffd \\ufffdPNG \\\"q\\\"\\u000a\"", text);
	free(text);
}

TEST(verify_compare_other_bodies_by_size)
{
	struct site site;
	char err[256], *d;
	CHECK_INT(0, site_init(&site, "http://wiki.example.org/", err));
	struct compare_ctx ctx = { &site, NULL, NULL };
	CHECK_INT(CAUSE_BODY, cmp(&ctx, 200, "image/png", NULL, "\x89PNG one", 200, "image/png", NULL, "\x89PNG two!", &d));
	CHECK_STR("origin 8 bytes, tree 9 bytes", d);
	free(d);
	site_release(&site);
}

static void add(struct findings *f, const char *target, long requests, enum cause c)
{
	f->items = xrealloc(f->items, (f->n + 1) * sizeof *f->items);
	memset(&f->items[f->n], 0, sizeof *f->items);
	f->items[f->n].target = xstrdup(target);
	f->items[f->n].requests = requests;
	f->items[f->n].cause = c;
	f->n++;
}

TEST(verify_findings_grouped_and_weighted)
{
	struct findings f;
	memset(&f, 0, sizeof f);
	f.site_url = "http://localhost/";
	f.origin = "fork";
	f.tree = "out";
	f.tree_server = "cgisnap serve";
	f.logs = 1;
	add(&f, "/a", 9990, CAUSE_ALIKE);
	add(&f, "/p?id=1&do=edit", 3, CAUSE_NOT_IN_TREE);
	add(&f, "/p?id=2&do=edit", 5, CAUSE_NOT_IN_TREE);
	add(&f, "/blog/x", 1, CAUSE_NOT_IN_TREE);
	add(&f, "/b", 1, CAUSE_BODY);
	add(&f, "/c", 4, CAUSE_ORIGIN_FAILED);
	findings_prepare(&f);
	/* By cause, then the family with most requests, then by requests. */
	CHECK_STR("/p?id=2&do=edit", f.items[1].target);
	CHECK_STR("/p?id=1&do=edit", f.items[2].target);
	CHECK_STR("/blog/x", f.items[3].target);
	CHECK_INT(8, (int)f.items[1].family_requests);
	CHECK(findings_changes(&f));
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);
	findings_text(out, &f);
	fclose(out);
	/* 9,990 of 10,004: never "100.0%" for less than all, nor 0.0% for one. */
	CHECK_HAS(text, "99.9% of the requests answer alike (1 URL); 4 URLs, <0.1% of the requests, would change.");
	CHECK_HAS(text, "1 URL, <0.1% of the requests, fails on the origin itself (not compared).");
	CHECK_HAS(text, "not in the tree: 3 URLs, <0.1% of the requests");
	free(text);
	/* The page escapes what the text says as "<0.1%". */
	out = open_memstream(&text, &len);
	findings_html(out, &f);
	fclose(out);
	CHECK_HAS(text, "not in the tree: 3 URLs, &lt;0.1% of the requests</h2>");
	CHECK_HAS(text, "1 URL, &lt;0.1% of the requests, fails on the origin itself");
	CHECK_LACKS(text, "<0.1");
	free(text);
	findings_release(&f);
}
