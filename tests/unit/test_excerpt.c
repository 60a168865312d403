/* test_excerpt.c - the text lines shown of a failed response (lib/crawl/excerpt.c):
 * a table of bodies and the lines they give. */
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "crawl/excerpt.h"
#include "unit.h"
#include "base/xalloc.h"

TEST(excerpt_table)
{
	static const struct {
		const char *body;
		bool html;
		size_t max_lines, max_chars;
		const char *want; /* the lines joined by '|' */
	} cases[] = {
		/* Debian's wp-config.php answer, as a page. */
		{ "<html><head><title>Not Found</title></head><body>\n<p>could not find "
		  "<b>config-localhost.php</b></p>\n</body></html>\n",
		  true, 5, 200, "could not find config-localhost.php" },
		{ "plain text\n\n  second   line\t \r\nthird", false, 5, 200, "plain text|second line|third" },
		{ "a\nb\nc\nd", false, 2, 200, "a|b" },
		/* Cut lines say so; control bytes are escaped. */
		{ "0123456789abcdef", false, 1, 10, "0123456789..." },
		{ "bell\a and \x1b[31mred", false, 1, 200, "bell\\x07 and \\x1b[31mred" },
		/* Scripts, styles and comments are no text; entities are decoded. */
		{ "<script>var x = '<p>no</p>';</script><style>p { x: y }</style><!-- hidden -->"
		  "<h1>Error &amp; &lt;more&gt; &quot;x&quot; &#39;y&#39;&nbsp;z</h1>",
		  true, 5, 200, "Error & <more> \"x\" 'y' z" },
		{ "<table><tr><td>a</td><td>b</td></tr></table>", true, 5, 200, "a b" },
		{ "1 < 2 & 3 > 2", true, 5, 200, "1 < 2 & 3 > 2" },
		/* Without html, tags are text. */
		{ "<p>x</p>", false, 5, 200, "<p>x</p>" },
		/* Nothing to show. */
		{ "", true, 5, 200, "" },
		{ "<html><body>\n \n</body></html>", true, 5, 200, "" },
		{ "<script>unterminated", true, 5, 200, "" },
		{ "<!-- unterminated", true, 5, 200, "" },
		{ "<a href=\"x\"", true, 5, 200, "" },
	};
	for (size_t i = 0; i < COUNT(cases); i++) {
		struct strlist lines = STRLIST_INIT;
		struct buf joined = BUF_INIT;
		excerpt_lines(cases[i].body, strlen(cases[i].body), cases[i].html, cases[i].max_lines,
			      cases[i].max_chars, &lines);
		for (size_t k = 0; k < lines.n; k++)
			buf_addf(&joined, "%s%s", k ? "|" : "", lines.items[k]);
		CHECK_STR(cases[i].want, buf_str(&joined));
		buf_release(&joined);
		strlist_clear(&lines);
	}
}

TEST(excerpt_first_line_and_types)
{
	CHECK_STR_FREE("first", excerpt_first_line("\n\n<p>first</p><p>second</p>", 27, true, 200));
	CHECK(excerpt_first_line("<br>", 4, true, 200) == NULL);
	/* Bytes past the scanned start are not looked at. */
	size_t n = EXCERPT_SCAN_MAX + 10;
	char *big = xmalloc(n);
	memset(big, ' ', n);
	memcpy(big + EXCERPT_SCAN_MAX + 2, "late", 4);
	CHECK(excerpt_first_line(big, n, false, 200) == NULL);
	free(big);

	CHECK(excerpt_is_text("text/html; charset=utf-8"));
	CHECK(excerpt_is_text("application/json"));
	CHECK(!excerpt_is_text("image/png"));
	CHECK(!excerpt_is_text(NULL));
	CHECK(excerpt_is_html("text/html"));
	CHECK(excerpt_is_html("application/xhtml+xml"));
	CHECK(!excerpt_is_html("text/plain"));
}
