/* test_charset.c - which charset a document is in, and its UTF-8 (charset.h). */
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "crawl/charset.h"
#include "unit.h"

/* The UTF-8 of s decoded as kind with the HTTP charset http (or NULL); the
 * caller frees it. */
static char *decode(const char *s, size_t len, const char *http, enum charset_doc kind)
{
	struct buf out = BUF_INIT;
	charset_decode(&out, s, len, http, kind);
	return buf_detach(&out, NULL);
}

#define CHECK_DECODES(want, s, http, kind) CHECK_STR_FREE((want), decode((s), sizeof(s) - 1, (http), (kind)))

TEST(charset_utf8_is_cleaned_byte_by_byte)
{
	/* each invalid byte and each NUL is one U+FFFD; valid sequences stay */
	CHECK_DECODES("a\xEF\xBF\xBD" "b\xC3\xA9", "a\0b\xC3\xA9", NULL, CHARSET_HTML);
	CHECK_DECODES("\xEF\xBF\xBD\xEF\xBF\xBD" "x\xC3\xA9\xC3\xA9", "\xC0\xAFx\xC3\xA9\xC3\xA9", NULL,
		      CHARSET_HTML);
	/* overlong forms and surrogates are invalid too (three bytes each) */
	CHECK_DECODES("\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD", "\xE0\x80\xAF", "utf-8", CHARSET_HTML);
	CHECK_DECODES("\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD", "\xED\xA0\x80", "utf-8", CHARSET_XML);
	/* a UTF-8 BOM is dropped */
	CHECK_DECODES("<p>", "\xEF\xBB\xBF<p>", NULL, CHARSET_HTML);
}

TEST(charset_evidence_order)
{
	/* a BOM wins over the HTTP charset */
	CHECK_DECODES("\xC3\xA9", "\xEF\xBB\xBF\xC3\xA9", "iso-8859-1", CHARSET_HTML);
	CHECK_DECODES("<a>", "\xFF\xFE<\0a\0>\0", "iso-8859-1", CHARSET_HTML);
	CHECK_DECODES("<a>", "\xFE\xFF\0<\0a\0>", NULL, CHARSET_XML);
	/* the HTTP charset over <meta>, <meta> over the guess */
	CHECK_DECODES("<meta charset=utf-8>\xC3\xA9", "<meta charset=utf-8>\xE9", "ISO-8859-1",
		      CHARSET_HTML);
	CHECK_DECODES("<meta charset=\"koi8-r\">\xD0\xB0", "<meta charset=\"koi8-r\">\xC1", NULL,
		      CHARSET_HTML);
	/* an http-equiv declaration is found, a commented-out one is not */
	CHECK_DECODES("<meta http-equiv=content-type content='text/html; charset=windows-1252'>\xE2\x82\xAC",
		      "<meta http-equiv=content-type content='text/html; charset=windows-1252'>\x80", NULL,
		      CHARSET_HTML);
	CHECK_DECODES("<!-- <meta charset=koi8-r> -->\xC3\xA9", "<!-- <meta charset=koi8-r> -->\xC3\xA9",
		      NULL, CHARSET_HTML);
	/* the XML declaration counts for XML only */
	CHECK_DECODES("<?xml version='1.0' encoding='ISO-8859-1'?><a>\xC3\xA9</a>",
		      "<?xml version='1.0' encoding='ISO-8859-1'?><a>\xE9</a>", NULL, CHARSET_XML);
	/* UTF-16 without a BOM, told by the XML declaration's first bytes */
	CHECK_DECODES("<?x", "<\0?\0x\0", NULL, CHARSET_XML);
}

TEST(charset_undeclared_html_is_guessed)
{
	/* more valid multi-byte sequences than invalid bytes: UTF-8 */
	CHECK_DECODES("caf\xEF\xBF\xBD \xC3\xA9\xC3\xA9", "caf\xC3 \xC3\xA9\xC3\xA9", NULL, CHARSET_HTML);
	/* none valid: windows-1252, as a browser reads Latin-1 */
	CHECK_DECODES("caf\xC3\xA9 \xE2\x82\xAC", "caf\xE9 \x80", NULL, CHARSET_HTML);
	/* undeclared XML is UTF-8 whatever it looks like */
	CHECK_DECODES("caf\xEF\xBF\xBD", "caf\xE9", NULL, CHARSET_XML);
}

TEST(charset_labels)
{
	/* the labels that mean windows-1252; an unknown one counts as none */
	CHECK_DECODES("\xE2\x82\xAC", "\x80", "us-ascii", CHARSET_HTML);
	CHECK_DECODES("\xE2\x82\xAC", "\x80", "latin1", CHARSET_XML);
	CHECK_DECODES("\xC3\xA9\xEF\xBF\xBD", "\xC3\xA9\xE9", "no-such-charset", CHARSET_HTML);
	/* a declaration of UTF-16 in a document read as ASCII is a lie */
	CHECK_DECODES("<meta charset=utf-16>\xC3\xA9", "<meta charset=utf-16>\xC3\xA9", NULL,
		      CHARSET_HTML);
}

TEST(charset_of_content_type)
{
	char name[CHARSET_NAME_MAX];
	CHECK_STR("utf-8", charset_of_type("text/html; charset=UTF-8", name));
	CHECK_STR("iso-8859-1", charset_of_type("text/html;charset=\"ISO-8859-1\"", name));
	CHECK_STR("koi8-r", charset_of_type("text/html; q=1 ; Charset = 'koi8-r' ; x=y", name));
	CHECK_STR(NULL, charset_of_type("text/html", name));
	CHECK_STR(NULL, charset_of_type("text/html; charset=", name));
	CHECK_STR(NULL, charset_of_type("text/html; charset=x123456789012345678901234567890123456789",
					name));
}
