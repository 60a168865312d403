/* charset.c - decoding HTML and XML documents to clean UTF-8 (charset.h).
 *
 * libxml2 stops at a NUL and at a failed conversion; decoding here first,
 * every invalid byte and NUL becoming U+FFFD as in a browser, means no byte
 * of a page can end the walk early.
 */
#include "crawl/charset.h"

#include <ctype.h>
#include <errno.h>
#include <iconv.h>
#include <string.h>

/* The HTML spec's prescan looks at the first 1024 bytes; pages with long
 * comments or scripts before <meta charset> are common enough to look further. */
#define PRESCAN_BYTES 4096

/* ASCII whitespace as HTML, CSS and HTTP read it. */
static bool ascii_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f';
}

/* Length of the valid UTF-8 sequence at s[0..len), or 0 when it is not one
 * (overlong forms, surrogates and code points past U+10FFFF are invalid). */
static size_t utf8_seq(const unsigned char *s, size_t len)
{
	if (s[0] < 0x80)
		return 1;
	size_t n;
	unsigned long cp;
	if (s[0] >= 0xC2 && s[0] <= 0xDF)
		n = 2, cp = s[0] & 0x1F;
	else if (s[0] >= 0xE0 && s[0] <= 0xEF)
		n = 3, cp = s[0] & 0x0F;
	else if (s[0] >= 0xF0 && s[0] <= 0xF4)
		n = 4, cp = s[0] & 0x07;
	else
		return 0;
	if (len < n)
		return 0;
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xC0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3F);
	}
	if ((n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) || cp > 0x10FFFF ||
	    (cp >= 0xD800 && cp <= 0xDFFF))
		return 0;
	return n;
}

/* Copies s into out as UTF-8, each invalid byte and each NUL as U+FFFD. */
static void utf8_clean(struct buf *out, const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	buf_grow(out, len);
	for (size_t i = 0; i < len;) {
		size_t n = utf8_seq(p + i, len - i);
		if (n == 0 || p[i] == 0) {
			buf_add(out, "\xEF\xBF\xBD", 3);
			i++;
			continue;
		}
		buf_add(out, p + i, n);
		i += n;
	}
}

/* Does undeclared text look like UTF-8? Yes when it has more valid
 * multi-byte sequences than invalid bytes: a PHP page that cut a character
 * in half in a teaser is still UTF-8, a Latin-1 page has no valid ones. */
static bool looks_utf8(const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t good = 0, bad = 0;
	for (size_t i = 0; i < len;) {
		if (p[i] < 0x80) {
			i++;
			continue;
		}
		size_t n = utf8_seq(p + i, len - i);
		if (n)
			good++, i += n;
		else
			bad++, i++;
	}
	return good >= bad;
}

/* Converts s from charset to UTF-8 into out; undecodable bytes become
 * U+FFFD. Returns false when iconv does not know the charset. */
static bool convert_to_utf8(struct buf *out, const char *charset, const char *s, size_t len)
{
	iconv_t cd = iconv_open("UTF-8", charset);
	if (cd == (iconv_t)-1)
		return false;
	char *in = (char *)s;
	size_t inleft = len;
	buf_grow(out, len + len / 2 + 16);
	while (inleft) {
		char *dst = out->data + out->len;
		size_t room = out->cap - out->len - 1, before = room;
		size_t r = iconv(cd, &in, &inleft, &dst, &room);
		out->len += before - room;
		out->data[out->len] = '\0';
		if (r != (size_t)-1)
			break;
		if (errno == E2BIG) {
			buf_grow(out, inleft * 2 + 16);
		} else if (errno == EILSEQ) {
			buf_add(out, "\xEF\xBF\xBD", 3);
			in++, inleft--;
		} else { /* EINVAL: a sequence cut off by the end of the text */
			buf_add(out, "\xEF\xBF\xBD", 3);
			break;
		}
	}
	iconv(cd, NULL, NULL, NULL, NULL);
	iconv_close(cd);
	return true;
}

/* Copies the charset name at s (up to a quote, space, ';' or '>') into
 * name (CHARSET_NAME_MAX bytes); returns false when there is none or it is
 * too long. */
static bool take_label(const char *s, const char *end, char *name)
{
	size_t n = 0;
	while (s < end && (*s == '"' || *s == '\'' || ascii_space(*s)))
		s++;
	while (s < end && *s != '"' && *s != '\'' && *s != ';' && *s != '>' && *s != '/' && !ascii_space(*s)) {
		if (n + 1 >= CHARSET_NAME_MAX)
			return false;
		name[n++] = (char)tolower((unsigned char)*s++);
	}
	name[n] = '\0';
	return n > 0;
}

/* Looks for charset= inside the <meta> tags near the top of the page (a
 * light version of the HTML spec's prescan); fills name (CHARSET_NAME_MAX
 * bytes). */
static bool prescan_charset(const char *s, size_t len, char *name)
{
	size_t limit = len < PRESCAN_BYTES ? len : PRESCAN_BYTES;
	for (size_t i = 0; i < limit; i++) {
		if (s[i] != '<')
			continue;
		if (i + 4 <= len && !memcmp(s + i, "<!--", 4)) {
			const char *end = memmem(s + i + 4, len - i - 4, "-->", 3);
			if (!end)
				return false;
			i = (size_t)(end - s) + 2;
			continue;
		}
		if (i + 6 > len || strncasecmp(s + i + 1, "meta", 4) ||
		    !(ascii_space(s[i + 5]) || s[i + 5] == '/'))
			continue;
		const char *tag = s + i + 5;
		const char *end = memchr(tag, '>', len - (size_t)(tag - s));
		if (!end)
			end = s + len;
		for (const char *p = tag; p + 7 <= end; p++) {
			if (strncasecmp(p, "charset", 7))
				continue;
			const char *q = p + 7;
			while (q < end && ascii_space(*q))
				q++;
			if (q < end && *q == '=' && take_label(q + 1, end, name))
				return true;
		}
		i = (size_t)(end - s);
	}
	return false;
}

/* The encoding named by an XML declaration into name (CHARSET_NAME_MAX bytes). */
static bool xml_decl_charset(const char *s, size_t len, char *name)
{
	if (len < 6 || memcmp(s, "<?xml", 5))
		return false;
	const char *end = memmem(s, len < 256 ? len : 256, "?>", 2);
	if (!end)
		return false;
	for (const char *p = s + 5; p + 8 <= end; p++) {
		if (memcmp(p, "encoding", 8))
			continue;
		const char *q = p + 8;
		while (q < end && ascii_space(*q))
			q++;
		if (q < end && *q == '=' && take_label(q + 1, end, name))
			return true;
	}
	return false;
}

/* Decodes a document to clean UTF-8 into out. charset is the HTTP one, or
 * NULL. A BOM comes first, then charset, then what the document says (a
 * <meta> tag, an XML declaration); undeclared XML is UTF-8, undeclared
 * HTML is UTF-8 when it looks like it, else windows-1252 as browsers read it. */
/* The charset s[0..*len) is to be read in (a fixed label, or name
 * filled in); *s and *len step over a byte order mark. */
static const char *choose(const char **sp, size_t *lenp, const char *charset, enum charset_doc kind,
			  char name[CHARSET_NAME_MAX])
{
	const char *s = *sp;
	size_t len = *lenp;
	const char *use = NULL;

	if (len >= 3 && !memcmp(s, "\xEF\xBB\xBF", 3)) {
		s += 3, len -= 3;
		use = "utf-8";
	} else if (len >= 2 && !memcmp(s, "\xFF\xFE", 2)) {
		use = "UTF-16LE";
		s += 2, len -= 2;
	} else if (len >= 2 && !memcmp(s, "\xFE\xFF", 2)) {
		use = "UTF-16BE";
		s += 2, len -= 2;
	} else if (charset && take_label(charset, charset + strlen(charset), name)) {
		use = name;
	} else if (kind == CHARSET_XML && len >= 4 && !memcmp(s, "<\0?\0", 4)) {
		use = "UTF-16LE";
	} else if (kind == CHARSET_XML && len >= 4 && !memcmp(s, "\0<\0?", 4)) {
		use = "UTF-16BE";
	} else if (kind == CHARSET_HTML ? prescan_charset(s, len, name) : xml_decl_charset(s, len, name)) {
		/* a document that could be read to find the declaration is not UTF-16 */
		use = !strncmp(name, "utf-16", 6) ? "utf-8" : name;
	}
	if (!use)
		use = kind == CHARSET_XML || looks_utf8(s, len) ? "utf-8" : "windows-1252";
	/* WHATWG Encoding: these labels all mean windows-1252 */
	if (!strcmp(use, "iso-8859-1") || !strcmp(use, "latin1") || !strcmp(use, "us-ascii") ||
	    !strcmp(use, "ascii") || !strcmp(use, "l1") || !strcmp(use, "iso8859-1"))
		use = "windows-1252";
	*sp = s;
	*lenp = len;
	return use;
}

static bool is_utf8(const char *use)
{
	return !strcasecmp(use, "utf-8") || !strcasecmp(use, "utf8");
}

/* Is s[0..len) UTF-8 already as utf8_clean leaves it: valid, no NUL? */
static bool utf8_is_clean(const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	for (size_t i = 0; i < len;) {
		if (p[i] && p[i] < 0x80) {
			i++;
			continue;
		}
		size_t n = utf8_seq(p + i, len - i);
		if (n == 0 || p[i] == 0)
			return false;
		i += n;
	}
	return true;
}

void charset_decode(struct buf *out, const char *s, size_t len, const char *charset,
		    enum charset_doc kind)
{
	char name[CHARSET_NAME_MAX];
	const char *use = choose(&s, &len, charset, kind, name);
	if (is_utf8(use)) {
		utf8_clean(out, s, len);
		return;
	}
	struct buf converted = BUF_INIT;
	if (convert_to_utf8(&converted, use, s, len))
		utf8_clean(out, converted.data, converted.len); /* NULs */
	else
		utf8_clean(out, s, len); /* an unknown label: as if undeclared */
	buf_release(&converted);
}

const char *charset_text(struct buf *scratch, const char *s, size_t len, const char *charset,
			 enum charset_doc kind, size_t *n)
{
	char name[CHARSET_NAME_MAX];
	const char *from = s;
	size_t from_len = len;
	if (is_utf8(choose(&from, &from_len, charset, kind, name)) && utf8_is_clean(from, from_len)) {
		*n = from_len;
		return from;
	}
	buf_reset(scratch);
	charset_decode(scratch, s, len, charset, kind);
	*n = scratch->len;
	return buf_str(scratch);
}

/* The charset parameter of a Content-Type into name (CHARSET_NAME_MAX
 * bytes), or NULL. */
const char *charset_of_type(const char *ct, char *name)
{
	for (const char *p = strchr(ct, ';'); p; p = strchr(p + 1, ';')) {
		const char *q = p + 1;
		while (ascii_space(*q))
			q++;
		if (strncasecmp(q, "charset", 7))
			continue;
		q += 7;
		while (ascii_space(*q))
			q++;
		if (*q == '=' && take_label(q + 1, q + 1 + strlen(q + 1), name))
			return name;
	}
	return NULL;
}
