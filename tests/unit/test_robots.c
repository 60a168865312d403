/* test_robots.c - robots.txt groups, patterns and sitemaps (robots.h). */
#include <stdlib.h>

#include "crawl/robots.h"
#include "unit.h"

struct verdict {
	const char *target;
	bool allowed;
};

static void check_verdicts(const char *file, int line, const char *txt, const struct verdict *v)
{
	struct robots r;
	robots_parse(&r, txt, strlen(txt));
	for (; v->target; v++)
		if (robots_allowed(&r, v->target) != v->allowed)
			unit_fail(file, line, "'%s' should be %s", v->target, v->allowed ? "allowed" : "disallowed");
	robots_release(&r);
}

#define CHECK_VERDICTS(txt, ...)                                                      \
	do {                                                                          \
		static const struct verdict v_[] = { __VA_ARGS__, { NULL, false } }; \
		check_verdicts(__FILE__, __LINE__, txt, v_);                          \
	} while (0)

TEST(robots_star_group_and_prefixes)
{
	CHECK_VERDICTS("User-agent: *\nDisallow: /admin\nDisallow: /tmp/\n",
		       { "/", true }, { "/admin", false }, { "/admin/x", false }, { "/administrator", false },
		       { "/tmp", true }, { "/tmp/", false }, { "/tmp/a?b=1", false }, { "/public", true },
		       { "/ADMIN", true });
}

TEST(robots_empty_and_missing_rules_allow_all)
{
	CHECK_VERDICTS("User-agent: *\nDisallow:\n", { "/", true }, { "/anything", true });
	CHECK_VERDICTS("", { "/", true }, { "/x", true });
	/* rules before any User-agent line belong to no group */
	CHECK_VERDICTS("Disallow: /\n", { "/x", true });
	/* a group for another crawler does not apply */
	CHECK_VERDICTS("User-agent: Googlebot\nDisallow: /\n", { "/x", true });
}

TEST(robots_own_group_wins_over_star)
{
	const char *txt = "User-agent: *\nDisallow: /\n\n"
			  "User-agent: otherbot\nUser-agent: CGISnap/1.0\nDisallow: /private\n";
	CHECK_VERDICTS(txt, { "/", true }, { "/page", true }, { "/private/x", false });
	/* an empty group of its own allows everything */
	CHECK_VERDICTS("User-agent: *\nDisallow: /\n\nUser-agent: cgisnap\n", { "/page", true });
	/* "cgisnapper" is another crawler */
	CHECK_VERDICTS("User-agent: *\nDisallow: /a\nUser-agent: cgisnapper\nDisallow: /b\n",
		       { "/a", false }, { "/b", true });
}

TEST(robots_groups_for_one_agent_merge)
{
	CHECK_VERDICTS("User-agent: cgisnap\nDisallow: /a\n\nUser-agent: x\nDisallow: /x\n\n"
		       "User-agent: cgisnap\nDisallow: /b\n",
		       { "/a", false }, { "/b", false }, { "/x", true });
	/* User-agent lines in a row share the rules that follow; Crawl-delay is no rule */
	CHECK_VERDICTS("User-agent: a\nCrawl-delay: 5\nUser-agent: *\nDisallow: /s\n", { "/s", false });
	/* a User-agent after rules starts a new group */
	CHECK_VERDICTS("User-agent: *\nDisallow: /s\nUser-agent: other\nDisallow: /t\n",
		       { "/s", false }, { "/t", true });
}

TEST(robots_wildcards_and_end_anchor)
{
	CHECK_VERDICTS("User-agent: *\nDisallow: /*.pdf$\nDisallow: /*?sort=\nDisallow: /priv*/data\n"
		       "Disallow: /exact$\nDisallow: *session\n",
		       { "/doc.pdf", false }, { "/a/b/doc.pdf", false }, { "/doc.pdf?x=1", true },
		       { "/doc.pdfx", true }, { "/list?sort=asc", false }, { "/list?page=2&sort=asc", true },
		       { "/private/data", false }, { "/priv/data", false }, { "/privx/y/data/z", false },
		       { "/private/other", true }, { "/exact", false }, { "/exact/", true },
		       { "/x?session=1", false }, { "/", true });
	/* a '$' that is not last is an ordinary character */
	CHECK_VERDICTS("User-agent: *\nDisallow: /a$b\n", { "/a$b/c", false }, { "/a", true });
	/* many stars are no exponential blow-up */
	CHECK_VERDICTS("User-agent: *\nDisallow: /*a*a*a*a*a*a*a*a*a*a*b$\n",
		       { "/aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", true },
		       { "/aaaaaaaaaaab", false });
}

TEST(robots_longest_match_wins_and_allow_wins_ties)
{
	CHECK_VERDICTS("User-agent: *\nDisallow: /shop\nAllow: /shop/cart\nDisallow: /shop/cart/secret\n",
		       { "/shop/item", false }, { "/shop/cart", true }, { "/shop/cart/view", true },
		       { "/shop/cart/secret/1", false });
	CHECK_VERDICTS("User-agent: *\nAllow: /page\nDisallow: /page\n", { "/page", true });
	CHECK_VERDICTS("User-agent: *\nDisallow: /page\nAllow: /pag*\n", { "/page", true });
	CHECK_VERDICTS("User-agent: *\nDisallow: /\nAllow: /$\n", { "/", true }, { "/x", false });
	/* robots.txt itself is never off limits */
	CHECK_VERDICTS("User-agent: *\nDisallow: /\n", { "/robots.txt", true }, { "/index.html", false });
}

TEST(robots_syntax_comments_crlf_case)
{
	CHECK_VERDICTS("\xEF\xBB\xBF# a comment\r\nUSER-AGENT : * # everyone\r\n"
		       "disallow:/no # why not\r\n  Allow :  /no/yes  \r\nFoo: bar\r\nno colon here\r\n"
		       "Disallow: /cr\rDisallow: /last",
		       { "/no", false }, { "/no/yes", true }, { "/cr", false }, { "/last", false },
		       { "/ok", true });
}

TEST(robots_patterns_compare_as_canonical_targets)
{
	/* targets arrive percent-encoded with upper-case hex, unreserved decoded */
	CHECK_VERDICTS("User-agent: *\nDisallow: /caf\xc3\xa9\nDisallow: /%7euser\nDisallow: /a%2fb\n"
		       "Disallow: /sp ace\n",
		       { "/caf%C3%A9/menu", false }, { "/~user/x", false }, { "/a%2Fb", false },
		       { "/sp%20ace", false }, { "/cafe", true });
}

TEST(robots_sitemaps_from_any_group)
{
	struct robots r;
	const char *txt = "Sitemap: http://site.test/sitemap.xml\n"
			  "User-agent: other\nDisallow: /\nSitemap: http://site.test/news.xml # news\n"
			  "User-agent: *\nsitemap:   https://site.test/s3.xml  \nSitemap:\n";
	robots_parse(&r, txt, strlen(txt));
	CHECK_INT(3, r.sitemaps.n);
	if (r.sitemaps.n == 3) {
		CHECK_STR("http://site.test/sitemap.xml", r.sitemaps.items[0]);
		CHECK_STR("http://site.test/news.xml", r.sitemaps.items[1]);
		CHECK_STR("https://site.test/s3.xml", r.sitemaps.items[2]);
	}
	CHECK(robots_allowed(&r, "/x"));
	robots_release(&r);
	CHECK_INT(0, r.sitemaps.n);
}

TEST(robots_binary_body_is_harmless)
{
	static const char junk[] = "User-agent: *\0Disallow: /a\n\xff\xfe\x00:\x01\nDisallow: /b";
	struct robots r;
	robots_parse(&r, junk, sizeof junk - 1);
	CHECK(!robots_allowed(&r, "/a"));
	CHECK(!robots_allowed(&r, "/b"));
	CHECK(robots_allowed(&r, "/c"));
	robots_release(&r);
}
