/* test_canonical.c - --canonical 'REGEX => URL' rules: parsing and its
 * errors (lib/base/rewrite.c, site_add_canonical), matching (first rule wins,
 * groups, the replacement canonicalised), the set-up check for literal
 * loops, and what cgisnap config writes of them (config/common.c, nginx.c,
 * apache.c). t0397 runs them in a crawl, serve, nginx and Apache. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../config/config.h"
#include "helpers.h"
#include "base/log.h"
#include "base/rewrite.h"
#include "unit.h"
#include "url/url.h"
#include "base/xalloc.h"


static void wiki_site(struct site *s)
{
	char err[ERR_LEN];
	CHECK_INT(0, site_init(s, "http://wiki.example.org/", err));
}

/* The wiki's site with the one --canonical rule, which must parse. */
static void wiki_site_with(struct site *s, const char *rule)
{
	char err[ERR_LEN];
	wiki_site(s);
	CHECK_INT(0, site_add_canonical(s, rule, err));
}

TEST(canonical_parse_errors_name_the_rule)
{
	static const struct str_case cases[] = {
		{ "no arrow here", "bad --canonical rule 'no arrow here': expected 'REGEX => URL'" },
		{ " => /x", "bad --canonical rule ' => /x': expected 'REGEX => URL'" },
		{ "^/a =>   ", "bad --canonical rule '^/a =>   ': expected 'REGEX => URL'" },
		{ "^/a => doku.php", "bad --canonical rule '^/a => doku.php': the URL 'doku.php' must start with '/'" },
		{ "^/a => http://other/", "bad --canonical rule '^/a => http://other/': the URL 'http://other/' must start with '/'" },
		{ "^/a\n => /b", "bad --canonical rule '^/a\n => /b': it holds a control character" },
		{ "(unclosed => /x", "bad --canonical regex in '(unclosed => /x': " },
	};
	for (size_t i = 0; i < COUNT(cases); i++) {
		struct site s;
		char err[ERR_LEN];
		wiki_site(&s);
		CHECK_INT(-1, site_add_canonical(&s, cases[i].in, err));
		CHECK(strncmp(err, cases[i].want, strlen(cases[i].want)) == 0);
		CHECK(!strchr(err, '\n') || strchr(cases[i].in, '\n'));
		CHECK_INT(0, s.ncanonical);
		site_release(&s);
	}
}

TEST(canonical_rewrite_names_its_option)
{
	struct rewrite rw;
	char err[ERR_LEN];
	CHECK_INT(-1, rewrite_parse(&rw, "x", "--depends", err));
	CHECK_STR("bad --depends rule 'x': expected 'REGEX => URL'", err);
	CHECK_INT(0, rewrite_parse(&rw, "a(b) => /c?$1", "--canonical", err));
	CHECK_STR("/c?$1", rw.url);
	CHECK_STR_FREE("/c?b", rewrite_apply(&rw, "xab"));
	CHECK(rewrite_apply(&rw, "xa") == NULL);
	rewrite_release(&rw);
	rewrite_release(&rw); /* harmless twice */
}

TEST(canonical_first_rule_wins_groups_and_policy)
{
	struct site s;
	char err[ERR_LEN];
	size_t rule = 99;
	wiki_site(&s);
	strlist_add(&s.ignore_params, "utm_*");
	CHECK_INT(0, site_add_canonical(&s, "^/doku\\.php\\?id=[^&]*&do=index$ => /doku.php?do=index", err));
	CHECK_INT(0, site_add_canonical(&s, "^/doku\\.php\\?id=([^&]*)&do=(export_[a-z]+)$ => /doku.php?id=$1", err));
	CHECK_INT(0, site_add_canonical(&s, "^/doku\\.php\\?id=([^&]*)&do=.*$ => /x/./$1?utm_source=a&b=$$", err));
	CHECK_INT(3, s.ncanonical);

	char *r = site_canonical_redirect(&s, "/doku.php?id=wiki:syntax&do=index", &rule);
	CHECK_STR("/doku.php?do=index", r);
	CHECK_INT(0, rule);
	free(r);
	r = site_canonical_redirect(&s, "/doku.php?id=a&do=export_raw", &rule);
	CHECK_STR("/doku.php?id=a", r);
	CHECK_INT(1, rule);
	free(r);
	/* The replacement is a target like any other: normalised, with the
	 * query policy applied. */
	r = site_canonical_redirect(&s, "/doku.php?id=a&do=edit", &rule);
	CHECK_STR("/x/a?b=$", r);
	CHECK_INT(2, rule);
	free(r);
	CHECK(site_canonical_redirect(&s, "/doku.php?id=a", &rule) == NULL);
	CHECK(site_canonical_redirect(&s, "/doku.php?do=index", &rule) == NULL);
	CHECK_INT(0, site_check_canonical(&s, err));
	site_release(&s);
	CHECK_INT(0, s.ncanonical);
}

TEST(canonical_literal_loops_are_refused)
{
	struct site s;
	char err[ERR_LEN];
	wiki_site_with(&s, "^/doku\\.php\\?.*do=index => /doku.php?do=index");
	CHECK_INT(-1, site_check_canonical(&s, err));
	CHECK_STR("bad --canonical rule '^/doku\\.php\\?.*do=index => /doku.php?do=index': its URL "
		  "'/doku.php?do=index' is matched by --canonical '^/doku\\.php\\?.*do=index => "
		  "/doku.php?do=index': a redirect loop", err);
	site_release(&s);

	/* With groups the replacement depends on the match: the crawl checks
	 * each one (t0397). */
	wiki_site_with(&s, "^/a(.*)$ => /a/$1");
	CHECK_INT(0, site_check_canonical(&s, err));
	site_release(&s);
}

TEST(canonical_regex_for_pcre)
{
	static const struct str_case cases[] = { /* want NULL: refused */
		{ "^/doku\\.php\\?id=[^&]*&do=index$ => /x", "^/doku\\.php\\?id=[^&]*&do=index$" },
		{ "^/a[\\.]b$ => /x", "^/a[\\\\.]b$" },                  /* a POSIX bracket's backslash is literal */
		{ "^/[[:alpha:]]+[]x]\"$ => /x", "^/[[:alpha:]]+[]x]\\x22$" },
		{ "^/(a|b)(c)$ => /x", "^/(a|b)(c)$" },
		{ "^/a{0,3}$ => /x", "^/a{0,3}$" },
		{ "^/a\\\\ => /x", "^/a\\\\(?:)" },                 /* no backslash before the quote */
		{ "^/(a)\\1$ => /x", NULL },                            /* back-reference */
		{ "^/\\<a\\>$ => /x", NULL },                           /* GNU word anchors */
		{ "^/\\w+$ => /x", NULL },
		{ "^/a{,3}$ => /x", NULL },
		{ "^/[[.a.]]$ => /x", NULL },
		{ "^/[[=a=]]$ => /x", NULL },
	};
	for (size_t i = 0; i < COUNT(cases); i++) {
		struct rewrite rw;
		char err[ERR_LEN];
		struct buf out = BUF_INIT;
		size_t groups;
		CHECK_INT(0, rewrite_parse(&rw, cases[i].in, "--canonical", err));
		int rc = config_canonical_pcre(&rw, &out, &groups, err);
		if (cases[i].want) {
			CHECK_INT(0, rc);
			CHECK_STR(cases[i].want, buf_str(&out));
		} else {
			CHECK_INT(-1, rc);
			char want[256];
			snprintf(want, sizeof want, "--canonical '%s': ", cases[i].in);
			CHECK(strncmp(err, want, strlen(want)) == 0);
		}
		buf_release(&out);
		rewrite_release(&rw);
	}
}

static char *config_text(const struct treeinfo *ti, bool nginx)
{
	struct config_params p;
	char err[ERR_LEN];
	struct buf out = BUF_INIT;
	CHECK_INT(0, config_check_canonical(&ti->site, err));
	CHECK_INT(0, config_params_init(&p, ti, "127.0.0.1:8090", NULL, NULL, err));
	if (nginx)
		nginx_write(&out, ti, &p);
	else
		apache_write(&out, NULL, ti, &p);
	config_params_release(&p);
	return buf_detach(&out, NULL);
}

static void wiki_tree(struct treeinfo *ti)
{
	char err[ERR_LEN];
	treeinfo_init(ti, "http://wiki.example.org/");
	ti->dir = xstrdup("out");
	ti->root = xstrdup("/srv/wiki");
	CHECK_INT(0, site_add_canonical(&ti->site, "^/doku\\.php\\?id=[^&]*&do=index$ => /doku.php?do=index", err));
	CHECK_INT(0, site_add_canonical(&ti->site, "^/doku\\.php\\?id=([^&]*)&do=export_raw$ => /doku.php?id=$1", err));
	CHECK_INT(0, site_add_canonical(&ti->site, "^/x/([a-z]+)$ => /y?all=$0&one=$1&cost=$$5", err));
	unit_treeinfo_add(ti, "/doku.php?id=start", 200, "doku.php@id=start.html", "text/html", NULL);
}

TEST(canonical_nginx_rules)
{
	struct treeinfo ti;
	wiki_tree(&ti);
	char *t = config_text(&ti, true);
	CHECK_HAS(t, "    # 2. The tree's --canonical rules");
	CHECK_HAS(t, "    if ($request_uri ~ \"^/doku\\\\.php\\\\?id=[^&]*&do=index$\") {\n"
		     "        return 302 \"http://wiki.example.org/doku.php?do=index\";\n    }\n");
	CHECK_HAS(t, "        return 302 \"http://wiki.example.org/doku.php?id=$1\";\n");
	/* nginx has no $0: the regex gets a group of its own; $$ is a dollar. */
	CHECK_HAS(t, "    if ($request_uri ~ \"(^/x/([a-z]+)$)\") {\n"
		     "        return 302 \"http://wiki.example.org/y?all=$1&one=$2&cost="
		     "${cgisnap_wiki_example_org_8090_dollar}5\";\n");
	CHECK_HAS(t, "geo $cgisnap_wiki_example_org_8090_dollar {");
	/* The rules come before the recorded answers and the dotfile rule. */
	CHECK(strstr(t, "--canonical rules") < strstr(t, "# 3. No other dotfile"));
	free(t);
	treeinfo_release(&ti);
}

TEST(canonical_apache_rules)
{
	struct treeinfo ti;
	wiki_tree(&ti);
	char *t = config_text(&ti, false);
	CHECK_HAS(t, "    RewriteCond %{THE_REQUEST} \"^\\S+\\s+(?:[a-z][a-z0-9+.-]*://[^/?\\s]*)?(/\\S*)\" [NC]\n"
		     "    RewriteCond %1 \"^/doku\\.php\\?id=[^&]*&do=index$\"\n"
		     "    RewriteRule ^ \"http://wiki.example.org/doku.php?do=index\" [R=302,NE,QSD,L]\n");
	CHECK_HAS(t, "    RewriteRule ^ \"http://wiki.example.org/doku.php?id=%1\" [R=302,NE,QSD,L]\n");
	CHECK_HAS(t, "    RewriteRule ^ \"http://wiki.example.org/y?all=%0&one=%1&cost=\\$5\" [R=302,NE,QSD,L]\n");
	CHECK(strstr(t, "--canonical rules") < strstr(t, "# 3. No other dotfile"));
	free(t);
	treeinfo_release(&ti);
}

TEST(canonical_config_refuses_what_it_cannot_write)
{
	struct site s;
	char err[ERR_LEN];
	wiki_site_with(&s, "^/(a)(b)(c)(d)(e)(f)(g)(h)(i)$ => /x?$0");
	CHECK_INT(-1, config_check_canonical(&s, err));
	CHECK_HAS(err, "nginx has no $0");
	site_release(&s);
}
