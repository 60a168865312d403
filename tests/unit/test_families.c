/* test_families.c - what the query parameters of a crawl did (lib/crawl/families.c). */
#include <stdio.h>
#include <stdlib.h>

#include "crawl/families.h"
#include "base/log.h"
#include "base/rewrite.h"
#include "helpers.h"
#include "unit.h"
#include "base/xalloc.h"

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

/* f initialised with the seed "/" and five DokuWiki pages, each linking
 * its own copy of the sitemap (doku.php?id=X&do=index): one body for all. */
static void dokuwiki_sitemaps(struct families *f)
{
	families_init(f);
	families_set_default_seed(f, "/");
	for (int i = 0; i < 5; i++) {
		note(f, "text/html", 100 + i, "/doku.php?id=%s", ids[i]);
		note(f, "text/html", 1, "/doku.php?id=%s&do=index", ids[i]);
	}
}

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

/* The rule of the first "--canonical WORD" in out, WORD read as a POSIX
 * shell reads it (unquoted, '...', \x): the rule as --canonical takes it.
 * -1 when there is none or it does not parse. */
static int canonical_rule(const char *out, struct rewrite *rw)
{
	char err[ERR_LEN];
	const char *s = strstr(out, "--canonical ");
	if (!s)
		return -1;
	struct buf word = BUF_INIT;
	for (s += strlen("--canonical "); *s && *s != ' ' && *s != '\n'; s++) {
		if (*s == '\'') {
			while (*++s && *s != '\'')
				buf_addc(&word, *s);
		} else if (*s == '\\' && s[1]) {
			buf_addc(&word, *++s);
		} else {
			buf_addc(&word, *s);
		}
	}
	int rc = rewrite_parse(rw, buf_str(&word), "--canonical", err);
	buf_release(&word);
	return rc;
}

/* The --canonical rule in out, read back, sends each sends[i].in to
 * sends[i].want, "-" where it does not match. */
static void check_rule_sends(const char *out, const struct str_case *sends, size_t n)
{
	struct rewrite rw;
	if (canonical_rule(out, &rw) < 0) {
		unit_fail(__FILE__, __LINE__, "no --canonical rule that parses in \"%s\"", out);
		return;
	}
	for (size_t i = 0; i < n; i++) {
		char *to = rewrite_apply(&rw, sends[i].in);
		CHECK_STR(sends[i].want, to ? to : "-");
		free(to);
	}
	rewrite_release(&rw);
}

TEST(families_a_sitemap_per_page_is_sent_to_the_first)
{
	struct families f;
	dokuwiki_sitemaps(&f);
	char *out = report(&f, NULL);
	/* id matters for the page: no --ignore-param id, but one rule sends
	 * every copy of the sitemap to the first, which no rule matches:
	 * links to the others still answer, and no --seed is needed. */
	CHECK_STR("  --canonical '^/doku\\.php\\?id=([^&a][^&]*|a[^&]+)?&do=index$ => /doku.php?id=a&do=index'"
		  "  # '/doku.php?id=…&do=index': 5 URLs, 1 distinct body (text/html); 'id' changes bodies "
		  "elsewhere; the rule answers the others with a 302 to /doku.php?id=a&do=index, which keeps "
		  "the one copy\n", out);
	static const struct str_case sends[] = {
		{ "/doku.php?id=b&do=index", "/doku.php?id=a&do=index" },
		{ "/doku.php?id=c&do=index", "/doku.php?id=a&do=index" },
		{ "/doku.php?id=d&do=index", "/doku.php?id=a&do=index" },
		{ "/doku.php?id=e&do=index", "/doku.php?id=a&do=index" },
		{ "/doku.php?id=a&do=index", "-" },
		{ "/doku.php?id=&do=index", "/doku.php?id=a&do=index" },
		{ "/doku.php?id=ab&do=index", "/doku.php?id=a&do=index" },
		{ "/doku.php?id=new&do=index", "/doku.php?id=a&do=index" },
		{ "/doku.php?id=a", "-" },
	};
	check_rule_sends(out, sends, COUNT(sends));
	free(out);
	families_release(&f);
}

TEST(families_the_one_sitemap_url_is_the_rules)
{
	struct families f;
	dokuwiki_sitemaps(&f);
	/* DokuWiki: doku.php?do=index is the sitemap too, linked once; the
	 * per-id copies are sent there, by their shape: it has no id. */
	note(&f, "text/html", 1, "/doku.php?do=%s", "index");
	char *out = report(&f, NULL);
	CHECK_STR("  --canonical '^/doku\\.php\\?id=[^&]*&do=index$ => /doku.php?do=index'"
		  "  # '/doku.php?do=index': 6 URLs, 1 distinct body (text/html); 'id' changes bodies "
		  "elsewhere; the rule answers the others with a 302 to /doku.php?do=index, which keeps "
		  "the one copy\n", out);
	static const struct str_case sends[] = {
		{ "/doku.php?id=c&do=index", "/doku.php?do=index" },
		{ "/doku.php?do=index", "-" },
	};
	check_rule_sends(out, sends, COUNT(sends));
	free(out);
	families_release(&f);
}

TEST(families_a_body_found_elsewhere_is_where_the_rule_sends)
{
	struct families f;
	dokuwiki_sitemaps(&f);
	note(&f, "text/html", 1, "/sitemap%s", ".html");
	char *out = report(&f, NULL);
	CHECK_STR("  --canonical '^/doku\\.php\\?(.*&)?do=index(&|$) => /sitemap.html'  # '/doku.php?id=…&do=index': "
		  "5 URLs, 1 distinct body (text/html); 'id' changes bodies elsewhere; the same body is at "
		  "/sitemap.html: the rule answers them with a 302 there\n", out);
	static const struct str_case sends[] = {
		{ "/doku.php?id=a&do=index", "/sitemap.html" },
		{ "/sitemap.html", "-" },
	};
	check_rule_sends(out, sends, COUNT(sends));
	free(out);
	families_release(&f);
}

TEST(families_several_bodies_keep_the_exclude)
{
	struct families f;
	families_init(&f);
	families_set_default_seed(&f, "/");
	/* Two bodies (a sitemap per namespace): one rule cannot send each
	 * copy to its own; --exclude with a --seed for each stays. */
	for (int i = 0; i < 6; i++) {
		note(&f, "text/html", 100 + i, "/doku.php?id=%s", i < 5 ? ids[i] : "f");
		note(&f, "text/html", 1 + i % 2, "/doku.php?id=%s&do=index", i < 5 ? ids[i] : "f");
	}
	char *out = report(&f, NULL);
	CHECK_STR("  --exclude '^/doku\\.php\\?(.*&)?do=index(&|$)' --seed / --seed '/doku.php?id=a&do=index' "
		  "--seed '/doku.php?id=b&do=index'  # '/doku.php?id=…&do=index': 6 URLs, 2 distinct bodies; 'id' "
		  "changes bodies elsewhere; those bodies are at no other URL: the --seed keeps one copy each\n", out);
	free(out);
	families_release(&f);
}

TEST(families_copies_of_mixed_shapes_keep_the_exclude)
{
	struct families f;
	families_init(&f);
	families_set_default_seed(&f, "/");
	/* The pieces come in no one order: no regex of one shape matches
	 * them all but one, and POSIX has no negation to say "but that one". */
	for (int i = 0; i < 5; i++) {
		note(&f, "text/html", 100 + i, "/doku.php?id=%s", ids[i]);
		note(&f, "text/html", 1, i % 2 ? "/doku.php?id=%s&do=index" : "/doku.php?do=index&id=%s", ids[i]);
	}
	char *out = report(&f, NULL);
	CHECK_HAS(out, "  --exclude '^/doku\\.php\\?(.*&)?do=index(&|$)' --seed / --seed '/doku.php?do=index&id=a'  # ");
	CHECK_LACKS(out, "--canonical");
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
	 * the whole path is one family. It is an <img>: an --exclude would
	 * leave every page with a broken image, a rule sends each to one
	 * copy, rendered once. Its regex spells out "not id=a" and "not
	 * 1700000000": each render links a new time, all sent there. */
	CHECK_HAS(out, "  --canonical '^/lib/exe/taskrunner\\.php\\?(id=([^&a][^&]*|a[^&]+)?&[^&]*|id=[^&]*&"
		       "([^&1][^&]*|1([^&7][^&]*|7([^&0][^&]*|0(");
	CHECK_HAS(out, ")$ => /lib/exe/taskrunner.php?id=a&1700000000'  # '/lib/exe/taskrunner.php?id=…&…': 5 URLs, "
		       "1 distinct body (image/gif); 'id' changes bodies elsewhere; the rule answers the others "
		       "with a 302 to /lib/exe/taskrunner.php?id=a&1700000000, which keeps the one copy\n");
	static const struct str_case sends[] = {
		{ "/lib/exe/taskrunner.php?id=a&1796000000", "/lib/exe/taskrunner.php?id=a&1700000000" },
		{ "/lib/exe/taskrunner.php?id=e&1700000000", "/lib/exe/taskrunner.php?id=a&1700000000" },
		{ "/lib/exe/taskrunner.php?id=d&1700000003", "/lib/exe/taskrunner.php?id=a&1700000000" },
		{ "/lib/exe/taskrunner.php?id=a&170000000", "/lib/exe/taskrunner.php?id=a&1700000000" },
		{ "/lib/exe/taskrunner.php?id=a&1700000000", "-" },
	};
	check_rule_sends(out, sends, COUNT(sends));
	free(out);
	families_release(&f);
}

TEST(families_a_rule_leaves_out_what_an_ignore_param_drops)
{
	struct families f;
	families_init(&f);
	/* The sample wiki: two renders of each page id (the page and its
	 * revisions) link the web bug with two times, one body: the bare
	 * time never changes a body (--ignore-param), id does elsewhere. With
	 * both pasted the rule sees "taskrunner.php?id=X": the time may be
	 * there or not, and the rule's URL has none. */
	for (int i = 0; i < 5; i++) {
		char t[80];
		note(&f, "text/html", 100 + i, "/doku.php?id=%s", ids[i]);
		for (int r = 0; r < 2; r++) {
			snprintf(t, sizeof t, "/lib/exe/taskrunner.php?id=%s&17000000%d%d", ids[i], i, r);
			families_note(&f, t, body(2), "image/gif");
		}
	}
	char *out = report(&f, NULL);
	CHECK_HAS(out, "  --canonical '^/lib/exe/taskrunner\\.php\\?id=([^&a][^&]*|a[^&]+)?(&[^&]*)?$ => "
		       "/lib/exe/taskrunner.php?id=a'  # '/lib/exe/taskrunner.php?id=…&…': 10 URLs, 1 distinct body "
		       "(image/gif); 'id' changes bodies elsewhere; the rule answers the others with a 302 to "
		       "/lib/exe/taskrunner.php?id=a, which keeps the one copy\n");
	CHECK_HAS(out, "  --ignore-param '[0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9]*'  # '<number>' never changed a body");
	static const struct str_case sends[] = {
		{ "/lib/exe/taskrunner.php?id=b", "/lib/exe/taskrunner.php?id=a" },
		{ "/lib/exe/taskrunner.php?id=b&1796000000", "/lib/exe/taskrunner.php?id=a" },
		{ "/lib/exe/taskrunner.php?id=a", "-" },
	};
	check_rule_sends(out, sends, COUNT(sends));
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
	CHECK_STR_FREE("  --ignore-param utm_source  # 'utm_source' never changed a body: 3 URLs on 3 paths "
		       "(e.g. /a.cgi?utm_source=feed)\n", report(&f, NULL));
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
	CHECK_HAS(out, "  --canonical '^/q\\.cgi\\?(.*&)?v=it'\\''s(&|$) => /elsewhere'  # '/q.cgi?name=…&v=it's': 4 URLs");
	free(out);
	families_release(&f);
	/* Values with quotes, brackets and '$' spelt out in a regex, and a
	 * '$' of the URL as "$$": the rule, read back, sends each copy to the
	 * first and matches the first not. */
	static const char *const odd[] = { "$a]", "'b-", "[c^", "d$e" };
	families_init(&f);
	for (int i = 0; i < 4; i++) {
		note(&f, "text/html", 10 + i, "/q.cgi?name=%s", odd[i]);
		note(&f, "text/html", 1, "/q.cgi?name=%s&v=1", odd[i]);
	}
	out = report(&f, NULL);
	CHECK_HAS(out, "=> /q.cgi?name=$$a]&v=1'  # ");
	static const struct str_case sends[] = {
		{ "/q.cgi?name='b-&v=1", "/q.cgi?name=$a]&v=1" },
		{ "/q.cgi?name=[c^&v=1", "/q.cgi?name=$a]&v=1" },
		{ "/q.cgi?name=d$e&v=1", "/q.cgi?name=$a]&v=1" },
		{ "/q.cgi?name=$a]&v=1", "-" },
		{ "/q.cgi?name=]&v=1", "/q.cgi?name=$a]&v=1" },
		{ "/q.cgi?name=$a]]&v=1", "/q.cgi?name=$a]&v=1" },
	};
	check_rule_sends(out, sends, COUNT(sends));
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
	/* Each has the body the other has: the first is sent to a copy of
	 * the second, which keeps that copy for its own rule, so that no
	 * rule sends on. */
	CHECK_STR("  --canonical '^/a\\.cgi\\?(.*&)?do=index(&|$) => /b.cgi?id=a&do=index'  # '/a.cgi?id=…&do=index': "
		  "4 URLs, 1 distinct body (text/html); 'id' changes bodies elsewhere; the same body is at "
		  "/b.cgi?id=a&do=index: the rule answers them with a 302 there\n"
		  "  --canonical '^/b\\.cgi\\?id=([^&a][^&]*|a[^&]+)?&do=index$ => /b.cgi?id=a&do=index'  # "
		  "'/b.cgi?id=…&do=index': 4 URLs, 1 distinct body (text/html); 'id' changes bodies elsewhere; "
		  "the rule answers the others with a 302 to /b.cgi?id=a&do=index, which keeps the one copy\n", out);
	free(out);
	families_release(&f);
}

TEST(families_a_url_a_rule_sends_to_is_seeded_by_an_exclude)
{
	struct families f;
	families_init(&f);
	/* /a.cgi's copies go to /b.cgi?id=a&do=index; /b.cgi's do=index
	 * family has two bodies, so it keeps an --exclude: it must seed the
	 * URL /a.cgi's rule sends to, or that would answer 404. */
	for (int i = 0; i < 6; i++) {
		const char *id = i < 5 ? ids[i] : "f";
		note(&f, "text/html", 10 + i, "/a.cgi?id=%s", id);
		note(&f, "text/html", 1, "/a.cgi?id=%s&do=index&x=1&y=2", id);
		note(&f, "text/html", 20 + i, "/b.cgi?id=%s", id);
		note(&f, "text/html", 1 + (i >= 3), "/b.cgi?id=%s&do=index", id);
	}
	note(&f, "text/html", 2, "/elsewhere%s", "");
	char *out = report(&f, NULL);
	CHECK_HAS(out, "  --canonical '^/a\\.cgi\\?(.*&)?do=index(&|$) => /b.cgi?id=a&do=index'  # ");
	CHECK_HAS(out, "  --exclude '^/b\\.cgi\\?(.*&)?do=index(&|$)' --seed '/b.cgi?id=a&do=index'  # ");
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
