/* test_css.c - the URL references of a stylesheet, unresolved (css.h). */
#include <string.h>

#include "base/buf.h"
#include "crawl/css.h"
#include "unit.h"

/* The references as "[ref]" one after another, so order, empty values and
 * decoded escapes all show. */
static void collect(void *arg, const char *ref, size_t len)
{
	struct buf *b = arg;
	buf_addc(b, '[');
	buf_add(b, ref, len);
	buf_addc(b, ']');
}

#define CHECK_REFS(want, text)                                              \
	do {                                                                \
		struct buf got_ = BUF_INIT;                                 \
		css_scan((text), sizeof(text) - 1, collect, &got_);         \
		CHECK_STR((want), buf_str(&got_));                          \
		buf_release(&got_);                                         \
	} while (0)

TEST(css_references_are_reported_as_written_in_order)
{
	/* not resolved, not filtered: that is the caller's */
	CHECK_REFS("[../a.png][data:x][][#f]",
		   "a{b:url(../a.png)} c{d:url( data:x )} e{f:url()} g{h:url('#f')}");
	CHECK_REFS("[x.css][y.css][z.css]", "@import 'x.css'; @import url(y.css); @import \"z.css\" screen;");
	CHECK_REFS("[1x.png][2x.png]", "a{b:image-set('1x.png' 1x, url(2x.png) 2x)}");
	/* strings elsewhere, comments and look-alike words are no references */
	CHECK_REFS("", "a{content:'url(x)'; b:myurl(y); font-family:\"z\"} /* url(w) */");
	CHECK_REFS("[in]", "a{b:image-set(f('out.png') 'in' 1x)}");
}

TEST(css_escapes_are_decoded)
{
	CHECK_REFS("[hex.png]", "a{b:url(\\68 ex.png)}");
	CHECK_REFS("[a(b).png]", "a{b:url(a\\(b\\).png)}");
	CHECK_REFS("[\xC3\xA9.png]", "a{b:url('\\e9.png')}");
	/* a NUL, a surrogate and too big a code point all become U+FFFD */
	CHECK_REFS("[\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD]", "a{b:url('\\0 \\d800 \\110000 ')}");
	/* an escaped newline inside a string continues it */
	CHECK_REFS("[ab]", "@import 'a\\\nb';");
}

TEST(css_bad_tokens_are_no_references)
{
	/* a space inside an unquoted url, a quote, an unescaped newline */
	CHECK_REFS("[ok]", "a{b:url(bad url)} c{d:url(ok)}");
	CHECK_REFS("[ok]", "a{b:url(bad\"q)} c{d:url(ok)}");
	CHECK_REFS("[ok]", "@import 'broken\n; c{d:url(ok)}");
	/* junk after a quoted url argument */
	CHECK_REFS("[ok]", "a{b:url('x' junk)} c{d:url(ok)}");
	/* the end of the text closes an open url and string */
	CHECK_REFS("[eof]", "a{b:url(eof");
	CHECK_REFS("[eof]", "@import 'eof");
	/* an unterminated comment hides the rest */
	CHECK_REFS("[yes]", "a{b:url(yes)} /* url(no)");
}

TEST(css_nul_bytes_become_replacement_characters)
{
	CHECK_REFS("[a\xEF\xBF\xBD" "b]", "a{b:url(a\0b)}");
	CHECK_REFS("[c\xEF\xBF\xBD" "d]", "@import 'c\0d';");
}
