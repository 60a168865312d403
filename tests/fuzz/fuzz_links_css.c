/* fuzz_links_css.c - links of stylesheets (lib/crawl/links.h, links_check.h).
 *
 * The input is a stylesheet, read as text/css: every link a resource, the
 * extraction never fails.
 */
#include "links_check.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	links_check_extract("text/css", "http://wiki.example.com/lib/exe/css.php?t=dokuwiki", data,
			    size, false);
	return 0;
}
