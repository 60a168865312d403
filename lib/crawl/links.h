/* links.h - finding the URLs a response refers to, with libxml2.
 *
 * One entry point per format; links_extract() picks by content type. Every
 * URL handed to the callback is absolute and normalised (url_resolve()
 * against the document's URL, or its <base href>); fragments are gone and
 * anything that is not http(s) is skipped, as are empty and fragment-only
 * references. Each (URL, flags) pair is reported once per document. Broken
 * markup never stops extraction: documents are decoded to UTF-8 first
 * (invalid bytes and NULs become U+FFFD, as in a browser), then parsed in
 * recovery mode, without network access, DTDs or external entities.
 *
 * HTML: a[href], area[href]; link[href] when its rel names a resource
 * (stylesheet, icon, shortcut icon, apple-touch-icon(-precomposed),
 * apple-touch-startup-image, mask-icon, preload, prefetch, modulepreload,
 * manifest, wlwmanifest, EditURI, search of type
 * application/opensearchdescription+xml; also its imagesrcset) or a page
 * (alternate, canonical, prev, next, first, last, up, index, start,
 * contents, author, license, help, search, shortlink) - never when a token
 * is an endpoint (pingback, dns-prefetch, preconnect, webmention) or a URL
 * (WordPress's https://api.w.org/), nor an alternate whose type is JSON
 * (application/json, ...+json) or oEmbed; other rels are not followed;
 * script[src]; img[src|srcset|data-src|data-srcset];
 * source[src|srcset|data-srcset]; iframe[src]; frame[src]; embed[src];
 * object[data]; video[src|poster]; audio[src]; track[src];
 * input[type=image][src]; body/table/td/th[background]; SVG image/use
 * [href|xlink:href]; meta http-equiv=refresh; url() and @import in
 * <style> (type text/css or none) and in every style="...".
 * The document's base is its first <base href>, for links before it too.
 * CSS: url(...), @import "...", strings inside image-set(); not comments.
 * XML: elements are matched by namespace URI, never by prefix or local
 * name alone; an element of any other namespace holds no link (so
 * <slash:comments>0</slash:comments> is a count, not a URL). No namespace
 * (RSS 0.91-2.0, or Userland's http://backend.userland.com/rss2): <link>, <comments>, <enclosure url>, <guid> when
 * isPermaLink is absent or "true" and it is an http(s) URL, <image><url>;
 * a sitemap without xmlns: <loc>. RSS 1.0/0.90: <link>, <image><url>, the
 * rdf:about of channel, item and image, <items> rdf:li rdf:resource.
 * Atom: <link href> of rel alternate (or none), self, related, via,
 * replies, first, last, next, previous, current, prev-archive,
 * next-archive, enclosure (a resource) - not edit, hub or others - <icon>,
 * <logo>, <content src>, all against xml:base. wfw:commentRss (not
 * wfw:comment, an endpoint). Sitemaps (urlset and sitemapindex) <loc>,
 * image:loc, video thumbnail_loc/content_loc, xhtml:link rel=alternate.
 * <?xml-stylesheet href?>. An XML document whose root is <html> is read
 * as HTML.
 *
 * Encodings: a BOM wins, then the charset of the Content-Type (through
 * links_extract), then <meta charset> / the XML declaration. Undeclared
 * XML is UTF-8; undeclared HTML is UTF-8 unless it has more invalid than
 * valid multi-byte sequences, then windows-1252.
 *
 * Threads: call links_init() once before any thread uses this module;
 * after that every function here may run in several threads at once.
 */
#ifndef CGISNAP_LINKS_H
#define CGISNAP_LINKS_H

#include <stdbool.h>
#include <stddef.h>

#include "base/buf.h"
/* The crawl engine still reads robots.txt through this header; it moves
 * to robots.h with the engine (issue 10), and then this include goes. */
#include "crawl/robots.h"

/* A page link whose element carried rel="nofollow". A page's robots meta
 * never flags its links: it is only reported (struct page_meta), and the
 * crawler decides, since wikis mark every freshly edited page nofollow. */
#define LINK_NOFOLLOW 1
/* A sub-resource the page needs (img, css, js, frames, fonts, feed
 * enclosures, sitemap images, ...), not a page link. Everything found in
 * CSS is a resource. */
#define LINK_RESOURCE 2

/* Called once per link; url is valid only during the call (copy it). */
typedef void (*link_fn)(void *arg, const char *url, unsigned flags);

/* What an HTML page says about itself. */
struct page_meta {
	bool noindex;  /* <meta name="robots"> says noindex (or "none") */
	bool nofollow; /* <meta name="robots"> says nofollow (or "none") */
	/* The first <link rel="canonical" href>, absolute (against the
	 * document's base); "" when none, or when it is longer than this. */
	char canonical[2048];
};

/* Call fn for each link in an HTML document fetched from url. The links'
 * own rel="nofollow" is reported in flags; meta (may be NULL) receives the
 * robots meta (<meta name="robots"> or name="cgisnap"; links are neither
 * flagged nor dropped because of it). Returns 0, or -1 only when libxml2 could
 * not parse at all (an empty or all-blank body is 0 with no links). */
int links_from_html(const char *url, const char *body, size_t len, link_fn fn, void *arg,
		    struct page_meta *meta);
/* A stylesheet fetched from url (UTF-8 or ASCII-compatible); always 0. */
int links_from_css(const char *url, const char *body, size_t len, link_fn fn, void *arg);
/* RSS 2.0 (and 0.9x/1.0), Atom, sitemaps (urlset and sitemapindex).
 * Returns 0, or -1 when libxml2 could not parse at all. */
int links_from_xml(const char *url, const char *body, size_t len, link_fn fn, void *arg);

/* By content type (the media type before ';', any case; its charset
 * parameter is honoured): text/html and application/xhtml+xml; text/css;
 * application/rss+xml, application/atom+xml, application/rdf+xml,
 * application/xml, text/xml. Other types and NULL have no links (returns
 * 0). meta (may be NULL) is cleared first, so it is all false for non-HTML. */
int links_extract(const char *content_type, const char *url, const char *body, size_t len,
		  link_fn fn, void *arg, struct page_meta *meta);

/* Call once from main before threads start (libxml2's global set-up);
 * links_cleanup() once at exit, when no thread uses libxml2 any more. */
void links_init(void);
void links_cleanup(void);

#endif
