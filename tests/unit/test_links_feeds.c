/* test_links_feeds.c - feed and sitemap elements are read by namespace,
 * and <link rel> by its table (links.h, docs/links.md). */
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "crawl/links.h"
#include "unit.h"
#include "base/xalloc.h"

#define FEED "http://blog.test/feed/"

static void collect(void *arg, const char *url, unsigned flags)
{
	strlist_add_owned(arg, xasprintf("%s%s", url, flags & LINK_RESOURCE ? " resource" : ""));
}

/* The links of body read as content type, sorted, one a line; the caller
 * frees the string. */
static char *links_of(const char *type, const char *body)
{
	struct strlist l = STRLIST_INIT;
	struct buf b = BUF_INIT;
	links_extract(type, FEED, body, strlen(body), collect, &l, NULL);
	strlist_sort(&l);
	for (size_t i = 0; i < l.n; i++)
		buf_addf(&b, "%s\n", l.items[i]);
	strlist_clear(&l);
	return buf_detach(&b, NULL);
}

#define CHECK_LINKS_OF(type, body, want) CHECK_STR_FREE(want, links_of(type, body))

/* What WordPress sends: the slash: count must never become a URL (it
 * resolved to /feed/0 before), the wfw: comment feed is one. */
TEST(links_feeds_rss2_namespaced_elements_by_uri)
{
	CHECK_LINKS_OF("application/rss+xml",
		       "<?xml version=\"1.0\"?>\n<rss version=\"2.0\""
		       " xmlns:content=\"http://purl.org/rss/1.0/modules/content/\""
		       " xmlns:wfw=\"http://wellformedweb.org/CommentAPI/\""
		       " xmlns:dc=\"http://purl.org/dc/elements/1.1/\""
		       " xmlns:atom=\"http://www.w3.org/2005/Atom\""
		       " xmlns:sy=\"http://purl.org/rss/1.0/modules/syndication/\""
		       " xmlns:slash=\"http://purl.org/rss/1.0/modules/slash/\"><channel>"
		       "<link>http://blog.test/</link><sy:updatePeriod>hourly</sy:updatePeriod>"
		       "<atom:link href=\"http://blog.test/feed/\" rel=\"self\" type=\"application/rss+xml\"/>"
		       "<item><link>http://blog.test/hello/</link>"
		       "<comments>http://blog.test/hello/#respond</comments>"
		       "<dc:creator><![CDATA[admin]]></dc:creator>"
		       "<content:encoded><![CDATA[<p>x</p>]]></content:encoded>"
		       "<wfw:commentRss>http://blog.test/hello/feed/</wfw:commentRss>"
		       "<wfw:comment>http://blog.test/wp-comments-post.php</wfw:comment>"
		       "<slash:comments>0</slash:comments></item>"
		       "<item><link>page/2/</link><slash:comments>2</slash:comments></item>"
		       "</channel></rss>",
		       "http://blog.test/\n"
		       "http://blog.test/feed/\n"
		       "http://blog.test/feed/page/2/\n"
		       "http://blog.test/hello/\n"
		       "http://blog.test/hello/feed/\n");
}

/* The prefix is only a name for the URI: any prefix of a known URI works,
 * a known local name in an unknown or undeclared namespace is no link. */
TEST(links_feeds_prefixes_do_not_decide)
{
	CHECK_LINKS_OF("application/rss+xml",
		       "<rss xmlns:a=\"http://www.w3.org/2005/Atom\" xmlns:c=\"http://wellformedweb.org/CommentAPI/\""
		       " xmlns:x=\"http://example.test/private/\"><channel>"
		       "<a:link rel=\"self\" href=\"/self.xml\"/><c:commentRss>/c.xml</c:commentRss>"
		       "<x:link>http://blog.test/x-link</x:link><x:comments>/x-comments</x:comments>"
		       "<x:loc>/x-loc</x:loc><x:guid>http://blog.test/x-guid</x:guid>"
		       "<x:enclosure url=\"/x.mp3\"/><x:commentRss>/x-feed</x:commentRss>"
		       "<slash:comments>7</slash:comments><undeclared:link>/u</undeclared:link>"
		       "</channel></rss>",
		       "http://blog.test/c.xml\n"
		       "http://blog.test/self.xml\n");

	/* RSS 2.0 under the namespace Userland once gave it */
	CHECK_LINKS_OF("application/rss+xml",
		       "<rss xmlns=\"http://backend.userland.com/rss2\"><channel><link>/u2</link></channel></rss>",
		       "http://blog.test/u2\n");

	/* Atom elements outside the Atom namespace are nothing either */
	CHECK_LINKS_OF("application/atom+xml",
		       "<feed xmlns=\"http://www.w3.org/2005/Atom\" xmlns:t=\"http://example.test/t\">"
		       "<link href=\"/\"/><t:link href=\"/t\"/><t:icon>/t.png</t:icon><icon>/i.png</icon>"
		       "<entry><link href=\"/e\"/><t:content src=\"/tc\"/></entry></feed>",
		       "http://blog.test/\n"
		       "http://blog.test/e\n"
		       "http://blog.test/i.png resource\n");
}

TEST(links_feeds_atom_rels)
{
	CHECK_LINKS_OF("application/atom+xml",
		       "<atom:feed xmlns:atom=\"http://www.w3.org/2005/Atom\">"
		       "<atom:link href=\"/a\"/><atom:link rel=\" alternate \" href=\"/b\"/>"
		       "<atom:link rel=\"self\" href=\"/c\"/><atom:link rel=\"related\" href=\"/d\"/>"
		       "<atom:link rel=\"next\" href=\"/e\"/><atom:link rel=\"prev-archive\" href=\"/f\"/>"
		       "<atom:link rel=\"http://www.iana.org/assignments/relation/replies\" href=\"/g\"/>"
		       "<atom:link rel=\"enclosure\" href=\"/h.ogg\"/>"
		       "<atom:link rel=\"edit\" href=\"/no-1\"/><atom:link rel=\"edit-media\" href=\"/no-2\"/>"
		       "<atom:link rel=\"hub\" href=\"/no-3\"/><atom:link rel=\"payment\" href=\"/no-4\"/>"
		       "<atom:link rel=\"http://example.test/rel\" href=\"/no-5\"/></atom:feed>",
		       "http://blog.test/a\n"
		       "http://blog.test/b\n"
		       "http://blog.test/c\n"
		       "http://blog.test/d\n"
		       "http://blog.test/e\n"
		       "http://blog.test/f\n"
		       "http://blog.test/g\n"
		       "http://blog.test/h.ogg resource\n");
}

TEST(links_feeds_rss1_rdf)
{
	CHECK_LINKS_OF("application/rdf+xml",
		       "<?xml version=\"1.0\"?>\n"
		       "<rdf:RDF xmlns:rdf=\"http://www.w3.org/1999/02/22-rdf-syntax-ns#\""
		       " xmlns=\"http://purl.org/rss/1.0/\" xmlns:slash=\"http://purl.org/rss/1.0/modules/slash/\">"
		       "<channel rdf:about=\"http://blog.test/rss1\"><link>http://blog.test/</link>"
		       "<image rdf:resource=\"http://blog.test/logo.png\"/>"
		       "<items><rdf:Seq><rdf:li rdf:resource=\"http://blog.test/one\"/></rdf:Seq></items></channel>"
		       "<image rdf:about=\"http://blog.test/logo.png\"><url>http://blog.test/logo.png</url></image>"
		       "<item rdf:about=\"http://blog.test/one\"><link>http://blog.test/one</link>"
		       "<slash:comments>0</slash:comments></item>"
		       "<item rdf:about=\"http://blog.test/two\"><title>t</title></item></rdf:RDF>",
		       "http://blog.test/\n"
		       "http://blog.test/logo.png resource\n"
		       "http://blog.test/one\n"
		       "http://blog.test/rss1\n"
		       "http://blog.test/two\n");
}

TEST(links_feeds_sitemap_namespaces)
{
	CHECK_LINKS_OF("application/xml",
		       "<urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\""
		       " xmlns:xhtml=\"http://www.w3.org/1999/xhtml\""
		       " xmlns:video=\"http://www.google.com/schemas/sitemap-video/1.1\""
		       " xmlns:news=\"http://www.google.com/schemas/sitemap-news/0.9\">"
		       "<url><loc>http://blog.test/en/</loc>"
		       "<xhtml:link rel=\"alternate\" hreflang=\"de\" href=\"http://blog.test/de/\"/>"
		       "<video:video><video:thumbnail_loc>/t.jpg</video:thumbnail_loc>"
		       "<video:player_loc>/player</video:player_loc><video:loc>/no</video:loc></video:video>"
		       "<news:news><news:loc>/no-news</news:loc></news:news></url></urlset>",
		       "http://blog.test/de/\n"
		       "http://blog.test/en/\n"
		       "http://blog.test/t.jpg resource\n");
}

/* The <link rel> table of docs/links.md, one row a link. */
TEST(links_feeds_html_rel_table)
{
	CHECK_LINKS_OF("text/html",
		       "<head>"
		       "<link rel=icon href=/r1><link rel=\"shortcut icon\" href=/r2>"
		       "<link rel=apple-touch-icon-precomposed href=/r3><link rel=mask-icon href=/r4>"
		       "<link rel=manifest href=/r5><link rel=prefetch href=/r6>"
		       "<link rel=wlwmanifest href=/r7><link rel=EditURI href=/r8>"
		       "<link rel=search type=\"application/opensearchdescription+xml\" href=/r9>"
		       "<link rel=canonical href=/p1><link rel=next href=/p2><link rel=prev href=/p3>"
		       "<link rel=up href=/p4><link rel=search href=/p5><link rel=help href=/p6>"
		       "<link rel=pingback href=/xmlrpc.php><link rel=dns-prefetch href=//cdn.test>"
		       "<link rel=preconnect href=/n1><link rel=webmention href=/n2>"
		       "<link rel=\"pingback icon\" href=/n3><link rel=openid.server href=/n4>"
		       "<link rel=prerender href=/n5><link rel=bogus href=/n6></head>",
		       "http://blog.test/p1\n"
		       "http://blog.test/p2\n"
		       "http://blog.test/p3\n"
		       "http://blog.test/p4\n"
		       "http://blog.test/p5\n"
		       "http://blog.test/p6\n"
		       "http://blog.test/r1 resource\n"
		       "http://blog.test/r2 resource\n"
		       "http://blog.test/r3 resource\n"
		       "http://blog.test/r4 resource\n"
		       "http://blog.test/r5 resource\n"
		       "http://blog.test/r6 resource\n"
		       "http://blog.test/r7 resource\n"
		       "http://blog.test/r8 resource\n"
		       "http://blog.test/r9 resource\n");
}
