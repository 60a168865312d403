/* css.c - the URL references of a stylesheet, by CSS Syntax's tokenizer
 * rules (css.h).
 *
 * Only as much of the tokenizer as finding references needs: comments,
 * strings (escapes decoded, a newline making a bad string), url tokens
 * (a bad url swallowed up to its ')'), and the words before '(' that
 * matter. Nothing is parsed into rules, so broken CSS costs nothing.
 */
#include "crawl/css.h"

#include <ctype.h>
#include <string.h>

static bool css_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f';
}

static bool css_word_char(unsigned char c)
{
	return isalnum(c) || c == '-' || c == '_' || c >= 0x80;
}

static void add_utf8(struct buf *b, unsigned long cp)
{
	if (cp == 0 || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
		cp = 0xFFFD;
	if (cp < 0x80) {
		buf_addc(b, (char)cp);
	} else if (cp < 0x800) {
		buf_addc(b, (char)(0xC0 | cp >> 6));
		buf_addc(b, (char)(0x80 | (cp & 0x3F)));
	} else if (cp < 0x10000) {
		buf_addc(b, (char)(0xE0 | cp >> 12));
		buf_addc(b, (char)(0x80 | (cp >> 6 & 0x3F)));
		buf_addc(b, (char)(0x80 | (cp & 0x3F)));
	} else {
		buf_addc(b, (char)(0xF0 | cp >> 18));
		buf_addc(b, (char)(0x80 | (cp >> 12 & 0x3F)));
		buf_addc(b, (char)(0x80 | (cp >> 6 & 0x3F)));
		buf_addc(b, (char)(0x80 | (cp & 0x3F)));
	}
}

/* Appends one source byte to a CSS value; NUL becomes U+FFFD. */
static void css_addc(struct buf *val, char c)
{
	if (c)
		buf_addc(val, c);
	else
		add_utf8(val, 0xFFFD);
}

/* Decodes the escape whose backslash is at s[i] into val; returns the index
 * after it. The caller has checked that s[i + 1] exists and is no newline. */
static size_t css_escape(const char *s, size_t len, size_t i, struct buf *val)
{
	i++;
	if (!isxdigit((unsigned char)s[i])) {
		css_addc(val, s[i]); /* bytes of a UTF-8 sequence follow as they are */
		return i + 1;
	}
	unsigned long cp = 0;
	size_t n = 0;
	for (; i < len && n < 6 && isxdigit((unsigned char)s[i]); i++, n++) {
		int c = tolower((unsigned char)s[i]);
		cp = cp * 16 + (unsigned long)(isdigit(c) ? c - '0' : c - 'a' + 10);
	}
	add_utf8(val, cp);
	if (i + 1 < len && s[i] == '\r' && s[i + 1] == '\n')
		return i + 2;
	if (i < len && css_space(s[i]))
		i++;
	return i;
}

/* Reads the string whose quote is at s[i] into val; returns the index after
 * it and sets *ok unless an unescaped newline made it a bad string. */
static size_t css_string(const char *s, size_t len, size_t i, struct buf *val, bool *ok)
{
	char quote = s[i++];
	buf_reset(val);
	*ok = true;
	while (i < len) {
		char c = s[i];
		if (c == quote)
			return i + 1;
		if (c == '\n' || c == '\r' || c == '\f') {
			*ok = false;
			return i;
		}
		if (c == '\\') {
			if (i + 1 >= len)
				return len;
			if (s[i + 1] == '\n' || s[i + 1] == '\f') {
				i += 2;
				continue;
			}
			if (s[i + 1] == '\r') {
				i += (i + 2 < len && s[i + 2] == '\n') ? 3 : 2;
				continue;
			}
			i = css_escape(s, len, i, val);
			continue;
		}
		css_addc(val, c);
		i++;
	}
	return len;
}

/* Reads what follows "url(" at s[i] (CSS Syntax's "consume a url token",
 * or a quoted argument); returns the index after the ')' and sets *ok when
 * val holds a URL. */
static size_t css_url(const char *s, size_t len, size_t i, struct buf *val, bool *ok)
{
	*ok = false;
	buf_reset(val);
	while (i < len && css_space(s[i]))
		i++;
	if (i < len && (s[i] == '"' || s[i] == '\'')) {
		bool good;
		i = css_string(s, len, i, val, &good);
		while (i < len && css_space(s[i]))
			i++;
		if (i >= len || s[i] == ')') {
			*ok = good;
			return i < len ? i + 1 : len;
		}
		return i; /* url("a" junk): not a URL; the caller rescans from here */
	}
	while (i < len) {
		unsigned char c = (unsigned char)s[i];
		if (c == ')') {
			*ok = true;
			return i + 1;
		}
		if (css_space((char)c)) {
			while (i < len && css_space(s[i]))
				i++;
			if (i >= len || s[i] == ')') {
				*ok = true;
				return i < len ? i + 1 : len;
			}
			break; /* bad url */
		}
		if (c == '"' || c == '\'' || c == '(' || (c < 0x20 && c != 0) || c == 0x7F)
			break;
		if (c == '\\') {
			if (i + 1 >= len || s[i + 1] == '\n' || s[i + 1] == '\r' || s[i + 1] == '\f')
				break;
			i = css_escape(s, len, i, val);
			continue;
		}
		css_addc(val, (char)c);
		i++;
	}
	if (i >= len) {
		*ok = true; /* EOF ends a url token as if ')' were there */
		return len;
	}
	/* The remnants of a bad url, up to and including the next ')' */
	while (i < len && s[i] != ')')
		i += (s[i] == '\\' && i + 1 < len) ? 2 : 1;
	return i < len ? i + 1 : len;
}

void css_scan(const char *s, size_t len, css_ref_fn fn, void *arg)
{
	struct buf val = BUF_INIT;
	bool import_next = false; /* after "@import": a string there is a URL */
	int depth = 0;            /* parentheses open */
	int image_set = -1;       /* depth inside image-set(...), or -1 */
	size_t i = 0;

	while (i < len) {
		char c = s[i];
		if (c == '/' && i + 1 < len && s[i + 1] == '*') {
			const char *end = memmem(s + i + 2, len - i - 2, "*/", 2);
			i = end ? (size_t)(end - s) + 2 : len;
			continue;
		}
		if (css_space(c)) {
			i++;
			continue;
		}
		if (c == '"' || c == '\'') {
			bool ok;
			i = css_string(s, len, i, &val, &ok);
			if (ok && (import_next || (image_set >= 0 && depth == image_set)))
				fn(arg, buf_str(&val), val.len);
			import_next = false;
			continue;
		}
		import_next = false;
		if (c == '\\') {
			i += 2;
			continue;
		}
		if (c == '(') {
			depth++;
			i++;
			continue;
		}
		if (c == ')') {
			if (depth == image_set)
				image_set = -1;
			if (depth > 0)
				depth--;
			i++;
			continue;
		}
		if (c == '@' || css_word_char((unsigned char)c)) {
			size_t start = i++;
			while (i < len && (css_word_char((unsigned char)s[i]) ||
					   (s[i] == '\\' && i + 1 < len && s[i + 1] != '\n')))
				i += s[i] == '\\' ? 2 : 1;
			const char *w = s + start;
			size_t n = i - start;
			if (n == 7 && !strncasecmp(w, "@import", 7)) {
				import_next = true;
				continue;
			}
			if (i >= len || s[i] != '(')
				continue;
			if (n == 3 && !strncasecmp(w, "url", 3)) {
				bool ok;
				i = css_url(s, len, i + 1, &val, &ok);
				if (ok)
					fn(arg, buf_str(&val), val.len);
				continue;
			}
			if ((n == 9 && !strncasecmp(w, "image-set", 9)) ||
			    (n == 17 && !strncasecmp(w, "-webkit-image-set", 17)))
				image_set = depth + 1;
			continue;
		}
		i++;
	}
	buf_release(&val);
}
