/* test_families.c - what the query parameters of a crawl did (lib/families.c). */
#include <stdio.h>
#include <stdlib.h>

#include "families.h"
#include "unit.h"
#include "xalloc.h"

/* A sha256 in hex whose first 64 bits are n: one distinct body per n. */
static const char *body(int n)
{
	static char hex[65];
	snprintf(hex, sizeof hex, "%016x%048d", n, 0);
	return hex;
}

static void note(struct families *f, const char *type, int b, const char *fmt, const char *arg)
{
	char *t = xasprintf(fmt, arg);
	families_note(f, t, body(b), type);
	free(t);
}

static const char *const ids[] = { "a", "b", "c", "d", "e" };

/* The report's option lines, without the heading, one per line. */
static char *report(struct families *f, struct strlist *table)
{
	struct strlist notes = STRLIST_INIT, tmp = STRLIST_INIT;
	families_report(f, &notes, table ? table : &tmp);
	struct buf b = BUF_INIT;
	for (size_t i = 1; i < notes.n; i++) {
		buf_adds(&b, notes.items[i]);
		buf_addc(&b, '\n');
	}
	if (notes.n)
		CHECK_HAS(notes.items[0], "with the options that remove them");
	strlist_clear(&notes);
	strlist_clear(&tmp);
	return buf_detach(&b, NULL);
}

TEST(families_a_sitemap_per_page_is_excluded_keeping_one)
{
	struct families f;
	families_init(&f);
	families_set_default_seed(&f, "/");
	for (int i = 0; i < 5; i++) {
		note(&f, "text/html", 100 + i, "/doku.php?id=%s", ids[i]);
		note(&f, "text/html", 1, "/doku.php?id=%s&do=index", ids[i]);
	}
	char *out = report(&f, NULL);
	/* id matters for the page: no --ignore-param id, but the do=index
	 * family goes, with a seed for its one body. */
	CHECK_STR("  --exclude '^/doku\\.php\\?(.*&)?do=index(&|$)' --seed / --seed '/doku.php?id=a&do=index'"
		  "  # '/doku.php?id=…&do=index': 5 URLs, 1 distinct body (text/html); 'id' changes bodies "
		  "elsewhere; that body is at no other URL: the --seed keeps one copy\n", out);
	free(out);
	families_release(&f);
}

TEST(families_a_body_found_elsewhere_needs_no_seed)
{
	struct families f;
	families_init(&f);
	families_set_default_seed(&f, "/");
	for (int i = 0; i < 5; i++) {
		note(&f, "text/html", 100 + i, "/doku.php?id=%s", ids[i]);
		note(&f, "text/html", 1, "/doku.php?id=%s&do=index", ids[i]);
	}
	note(&f, "text/html", 1, "/sitemap%s", ".html");
	char *out = report(&f, NULL);
	CHECK_HAS(out, "--exclude '^/doku\\.php\\?(.*&)?do=index(&|$)'  # ");
	CHECK_HAS(out, "other URLs have the same content");
	CHECK_LACKS(out, "--seed");
	free(out);
	families_release(&f);
}

TEST(families_a_web_bug_timestamp_is_ignored)
{
	struct families f;
	families_init(&f);
	for (int i = 0; i < 5; i++) {
		char t[64];
		snprintf(t, sizeof t, "/bug.cgi?t=17330000%02d123456789", i);
		families_note(&f, t, body(3), "image/gif");
		note(&f, "text/html", 10 + i, "/page.cgi?id=%s", ids[i]);
	}
	char *out = report(&f, NULL);
	CHECK_STR("  --ignore-param t  # 't' never changed a body: 5 URLs on 1 path (e.g. "
		  "/bug.cgi?t=1733000000123456789); its values look like timestamps or cache-busters; "
		  "no URL without it was crawled: check that one answers the same\n", out);
	free(out);
	families_release(&f);
}

TEST(families_dokuwiki_taskrunner_bare_time_is_one_family)
{
	struct families f;
	families_init(&f);
	for (int i = 0; i < 5; i++) {
		char t[80];
		note(&f, "text/html", 100 + i, "/doku.php?id=%s", ids[i]);
		snprintf(t, sizeof t, "/lib/exe/taskrunner.php?id=%s&17000000%02d", ids[i], i);
		families_note(&f, t, body(2), "image/gif");
	}
	char *out = report(&f, NULL);
	/* id changes the page, so the bare time alone leaves one bug per id:
	 * the whole path is one family. No default seed: the user gave one. */
	CHECK_STR("  --exclude '^/lib/exe/taskrunner\\.php\\?' --seed '/lib/exe/taskrunner.php?id=a&1700000000'"
		  "  # '/lib/exe/taskrunner.php?id=…&…': 5 URLs, 1 distinct body (image/gif); 'id' changes "
		  "bodies elsewhere; that body is at no other URL: the --seed keeps one copy\n", out);
	free(out);
	families_release(&f);
}

TEST(families_a_parameter_that_matters_is_not_flagged)
{
	struct families f;
	struct strlist table = STRLIST_INIT;
	families_init(&f);
	for (int i = 0; i < 5; i++) {
		note(&f, "text/html", 100 + i, "/page.cgi?id=%s", ids[i]);
		note(&f, "text/html", 200 + i, "/page.cgi?id=%s&do=edit", ids[i]);
	}
	note(&f, "text/html", 300, "/page.cgi%s", "");
	char *out = report(&f, &table);
	CHECK_STR("", out);
	CHECK_INT(2, table.n);
	CHECK_STR("'id': 10 URLs on 1 path, 10 distinct bodies, 5 distinct values", table.items[0]);
	CHECK_STR("'do': 5 URLs on 1 path, 5 distinct bodies, 1 distinct value", table.items[1]);
	free(out);
	strlist_clear(&table);
	families_release(&f);
}

TEST(families_a_parameter_irrelevant_everywhere_is_ignored)
{
	struct families f;
	families_init(&f);
	families_set_default_seed(&f, "/");
	for (int i = 0; i < 3; i++) {
		note(&f, "text/html", 10 + i, "/%s.cgi", ids[i]);
		note(&f, "text/html", 10 + i, "/%s.cgi?utm_source=feed", ids[i]);
	}
	char *out = report(&f, NULL);
	CHECK_STR("  --ignore-param utm_source  # 'utm_source' never changed a body: 3 URLs on 3 paths "
		  "(e.g. /a.cgi?utm_source=feed)\n", out);
	free(out);
	families_release(&f);
}

TEST(families_one_changed_body_makes_a_parameter_relevant)
{
	struct families f;
	families_init(&f);
	for (int i = 0; i < 3; i++) {
		note(&f, "text/html", 10 + i, "/%s.cgi", ids[i]);
		note(&f, "text/html", 10 + i, "/%s.cgi?lang=en", ids[i]);
	}
	note(&f, "text/html", 50, "/a.cgi?lang=%s", "de");
	char *out = report(&f, NULL);
	CHECK_STR("", out);
	free(out);
	families_release(&f);
}

TEST(families_too_few_urls_are_no_evidence)
{
	struct families f;
	families_init(&f);
	note(&f, "text/html", 10, "/a.cgi%s", "");
	note(&f, "text/html", 10, "/a.cgi?utm_source=%s", "x");
	note(&f, "text/html", 1, "/x.cgi?do=%s", "index");
	note(&f, "text/html", 1, "/x.cgi?do=%s&id=b", "index");
	char *out = report(&f, NULL);
	CHECK_STR("", out);
	free(out);
	families_release(&f);
}

TEST(families_options_are_quoted_for_a_shell)
{
	struct families f;
	families_init(&f);
	for (int i = 0; i < 4; i++) {
		note(&f, "text/html", 10 + i, "/q.cgi?name=%s", ids[i]);
		note(&f, "text/html", 1, "/q.cgi?name=%s&v=it's", ids[i]);
	}
	note(&f, "text/html", 1, "/elsewhere%s", "");
	char *out = report(&f, NULL);
	CHECK_HAS(out, "  --exclude '^/q\\.cgi\\?(.*&)?v=it'\\''s(&|$)'  # '/q.cgi?name=…&v=it's': 4 URLs");
	free(out);
	families_release(&f);
}

TEST(families_lines_are_capped_worst_first)
{
	struct families f;
	struct strlist notes = STRLIST_INIT, table = STRLIST_INIT;
	families_init(&f);
	/* FAMILIES_LINES + 2 paths, each with a tracking parameter of its own
	 * on more URLs than the one before. */
	for (int p = 0; p < FAMILIES_LINES + 2; p++) {
		for (int i = 0; i <= p + 3; i++) {
			char *t = xasprintf("/p%02d.cgi?id=%d", p, i);
			families_note(&f, t, body(1000 * p + i), "text/html");
			free(t);
			t = xasprintf("/p%02d.cgi?id=%d&ref%02d=x", p, i, p);
			families_note(&f, t, body(1000 * p + i), "text/html");
			free(t);
		}
	}
	families_report(&f, &notes, &table);
	CHECK_INT(1 + FAMILIES_LINES + 1, notes.n);
	CHECK_HAS(notes.items[1], "--ignore-param ref09  #");
	CHECK_HAS(notes.items[FAMILIES_LINES], "--ignore-param ref02  #");
	CHECK_STR("  # …and 2 more", notes.items[FAMILIES_LINES + 1]);
	/* The same input, noted in another order, gives the same report. */
	struct families g;
	struct strlist notes2 = STRLIST_INIT, table2 = STRLIST_INIT;
	families_init(&g);
	for (size_t i = f.n; i-- > 0;)
		families_note(&g, f.urls[i].target, body((int)f.urls[i].body), f.urls[i].type);
	families_report(&g, &notes2, &table2);
	CHECK_INT(notes.n, notes2.n);
	for (size_t i = 0; i < notes.n && i < notes2.n; i++)
		CHECK_STR(notes.items[i], notes2.items[i]);
	strlist_clear(&notes);
	strlist_clear(&table);
	strlist_clear(&notes2);
	strlist_clear(&table2);
	families_release(&f);
	families_release(&g);
}

TEST(families_memory_is_bounded)
{
	struct families f;
	families_init(&f);
	for (long i = 0; i < FAMILIES_MAX_URLS + 5; i++) {
		char t[32];
		snprintf(t, sizeof t, "/x?n=%ld", i);
		families_note(&f, t, body(1), NULL);
	}
	CHECK_INT(FAMILIES_MAX_URLS, f.n);
	CHECK_INT(5, f.dropped);
	families_release(&f);
}

TEST(families_a_timestamp_that_changes_the_body_is_only_remarked)
{
	struct families f;
	struct strlist table = STRLIST_INIT;
	families_init(&f);
	families_set_now(&f, 1733000100);
	for (int i = 0; i < 4; i++) {
		char t[64];
		snprintf(t, sizeof t, "/clock.cgi?now=17330000%02d", i);
		families_note(&f, t, body(40 + i), "text/html");
	}
	char *out = report(&f, &table);
	CHECK_STR("  # 'now' has a new value in each of its 4 URLs, a time of this crawl (e.g. /clock.cgi?now=1733000000), "
		  "4 distinct bodies: a cache-buster or timestamp? --strip what it changes, then "
		  "--ignore-param now\n", out);
	CHECK_STR("'now': 4 URLs on 1 path, 4 distinct bodies, 4 distinct values (timestamp-like)", table.items[0]);
	free(out);
	strlist_clear(&table);
	families_release(&f);
}

TEST(families_a_lone_url_has_singular_counts)
{
	struct families f;
	struct strlist table = STRLIST_INIT;
	families_init(&f);
	note(&f, "text/css", 1, "/style.css?ver=%s", "1.0");
	char *out = report(&f, &table);
	CHECK_STR("", out);
	CHECK_STR("'ver': 1 URL on 1 path, 1 distinct body, 1 distinct value", table.items[0]);
	free(out);
	strlist_clear(&table);
	families_release(&f);
}

TEST(families_two_families_of_one_body_keep_one_copy)
{
	struct families f;
	families_init(&f);
	for (int i = 0; i < 4; i++) {
		note(&f, "text/html", 10 + i, "/a.cgi?id=%s", ids[i]);
		note(&f, "text/html", 1, "/a.cgi?id=%s&do=index", ids[i]);
		note(&f, "text/html", 20 + i, "/b.cgi?id=%s", ids[i]);
		note(&f, "text/html", 1, "/b.cgi?id=%s&do=index", ids[i]);
	}
	char *out = report(&f, NULL);
	/* Each has the body the other has: only one may say so. */
	CHECK_STR("  --exclude '^/a\\.cgi\\?(.*&)?do=index(&|$)'  # '/a.cgi?id=…&do=index': 4 URLs, 1 distinct "
		  "body (text/html); 'id' changes bodies elsewhere; other URLs have the same content\n"
		  "  --exclude '^/b\\.cgi\\?(.*&)?do=index(&|$)' --seed '/b.cgi?id=a&do=index'  # "
		  "'/b.cgi?id=…&do=index': 4 URLs, 1 distinct body (text/html); 'id' changes bodies elsewhere; "
		  "that body is at no other URL: the --seed keeps one copy\n", out);
	free(out);
	families_release(&f);
}

TEST(families_an_old_revision_date_is_content)
{
	struct families f;
	families_init(&f);
	families_set_now(&f, 1796000000);
	/* DokuWiki's rev=: each a date of its own, each a page of its own. */
	for (int i = 0; i < 4; i++) {
		char t[64];
		snprintf(t, sizeof t, "/doku.php?id=%s&rev=17040000%02d", ids[i], i);
		families_note(&f, t, body(60 + i), "text/html");
		note(&f, "text/html", 70 + i, "/doku.php?id=%s", ids[i]);
	}
	char *out = report(&f, NULL);
	CHECK_STR("", out);
	free(out);
	families_release(&f);
}

TEST(families_odd_targets_do_not_break_it)
{
	static const char *const odd[] = {
		"/x?", "/x?&&", "/x?=v", "/x?=v&=w", "/x?a=1&a=2", "/x?a=1&a=1", "/x?a&a=", "/x?a",
		"/x?%00=%FF", "/x?a=1&b=2&c=3&d=4&e=5&f=6&g=7&h=8&i=9&j=10&k=11&l=12&m=13&n=14&o=15&p=16&q=17",
		"/y?1234567890123456789012345&abcdefabcdefabcdef", "/y?123456789", "/", "no-slash", "/tab\there",
		"/x?a=1", "/x?a=1",
	};
	struct families f;
	struct strlist notes = STRLIST_INIT, table = STRLIST_INIT;
	families_init(&f);
	families_set_now(&f, 1733000000);
	families_note(&f, NULL, body(1), NULL);
	for (size_t i = 0; i < sizeof odd / sizeof *odd; i++)
		for (int b = 0; b < 4; b++)
			families_note(&f, odd[i], body(b % 2), b ? "text/html" : NULL);
	families_report(&f, &notes, &table);
	CHECK(table.n > 0);
	/* the tab and the relative target are not taken */
	for (size_t i = 0; i < f.n; i++)
		CHECK(f.urls[i].target[0] == '/' && !strchr(f.urls[i].target, '\t'));
	strlist_clear(&notes);
	strlist_clear(&table);
	families_release(&f);
}
