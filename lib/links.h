/* links.h - finding the URLs a response refers to, with libxml2.
 *
 * One entry point per format; links_extract() picks by content type. Every
 * URL handed to the callback is absolute and normalised (url_resolve()
 * against the document's URL, or its <base href>); fragments are gone and
 * anything that is not http(s) is skipped. Broken markup never stops
 * extraction: HTML and XML are parsed in recovery mode, without network
 * access or external entities.
 *
 * HTML: a[href], area[href]; link[href] when its rel names a resource or a
 * page (stylesheet, icon, shortcut icon, apple-touch-icon, alternate,
 * prev, next, preload, prefetch, manifest, canonical, first, last, up,
 * index, author, license, help) - not API, EditURI, pingback, search,
 * wlwmanifest, dns-prefetch, preconnect; script[src]; img[src|srcset];
 * source[src|srcset]; iframe[src]; embed[src]; object[data];
 * video[src|poster]; audio[src]; track[src]; input[type=image][src];
 * meta http-equiv=refresh; url() and @import in <style> and style="...".
 * CSS: url(...) and @import. XML: RSS <link>, <enclosure url>, <guid
 * isPermaLink="true">, Atom <link href>, sitemap <loc>.
 */
#ifndef CGISNAP_LINKS_H
#define CGISNAP_LINKS_H

#include <stdbool.h>
#include <stddef.h>

#include "buf.h"

#define LINK_NOFOLLOW 1 /* the element carried rel="nofollow" (or the page's robots meta said nofollow) */
#define LINK_RESOURCE 2 /* a sub-resource the page needs (img, css, js, ...), not a page link */

typedef void (*link_fn)(void *arg, const char *url, unsigned flags);

/* What an HTML page says about itself. */
struct page_meta {
	bool noindex;  /* <meta name="robots"> says noindex (or "none") */
	bool nofollow; /* <meta name="robots"> says nofollow (or "none") */
};

/* Call fn for each link in an HTML document fetched from url. The links'
 * own rel="nofollow" is reported in flags; meta (may be NULL) receives the
 * robots meta. Returns 0, or -1 only when libxml2 could not parse at all. */
int links_from_html(const char *url, const char *body, size_t len, link_fn fn, void *arg,
		    struct page_meta *meta);
int links_from_css(const char *url, const char *body, size_t len, link_fn fn, void *arg);
/* RSS 2.0, Atom, sitemaps (urlset and sitemapindex). */
int links_from_xml(const char *url, const char *body, size_t len, link_fn fn, void *arg);

/* By content type: text/html and application/xhtml+xml; text/css;
 * application/rss+xml, application/atom+xml, application/xml, text/xml.
 * Other types have no links (returns 0). */
int links_extract(const char *content_type, const char *url, const char *body, size_t len,
		  link_fn fn, void *arg, struct page_meta *meta);

/* robots.txt: the rules for user-agent "*" (or "cgisnap", which wins) and
 * the Sitemap: lines. */
struct robots {
	struct strlist disallow; /* path prefixes; '*' and a final '$' as Google reads them */
	struct strlist allow;
	struct strlist sitemaps; /* absolute URLs as written */
};

void robots_parse(struct robots *r, const char *body, size_t len);
/* Is target ("/path?query") allowed? The longest matching rule wins; Allow
 * wins a tie. */
bool robots_allowed(const struct robots *r, const char *target);
void robots_release(struct robots *r);

/* Call once from main before threads start (libxml2's global set-up). */
void links_init(void);
void links_cleanup(void);

#endif
