/* fuzz_links_html.c - links of HTML pages (lib/crawl/links.h, links_check.h).
 *
 * The input is a page; it is read as text/html (encoding sniffed), as
 * text/html declared windows-1252 and as application/xhtml+xml.
 */
#include "links_check.h"

LINKS_FUZZ_INITIALIZE

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *url = "http://wiki.example.com/doku.php?id=wiki:syntax";
	links_check_extract("text/html", url, data, size, true);
	links_check_extract("text/html; charset=windows-1252", url, data, size, true);
	links_check_extract("application/xhtml+xml", "https://blog.example.org/2024/05/hello/", data,
			    size, true);
	return 0;
}
