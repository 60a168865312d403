/* fuzz_links_xml.c - links of feeds and sitemaps (lib/crawl/links.h,
 * links_check.h).
 *
 * The input is an XML document, read as application/rss+xml and as text/xml
 * declared ISO-8859-1 (an RSS or Atom feed, a sitemap, or XHTML that is
 * then read as HTML).
 */
#include "links_check.h"

LINKS_FUZZ_INITIALIZE

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	links_check_extract("application/rss+xml", "https://blog.example.org/feed/", data, size,
			    false);
	links_check_extract("text/xml; charset=ISO-8859-1", "http://example.com/sitemap.xml", data,
			    size, false);
	return 0;
}
