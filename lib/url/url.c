/* url.c - RFC 3986 parsing, resolution and normalisation of http(s) URLs
 * (url.h states the rules; the site's canonical targets are site.c's). */
#include "url/url.h"
#include "url/url_impl.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/xalloc.h"

/* A piece of a string; p is NULL when the piece is absent, which is not the
 * same as present and empty (RFC 3986 5.2: "defined" components). */
struct span {
	const char *p;
	size_t len;
};

/* A URI reference split as the regular expression of RFC 3986 appendix B
 * splits it: scheme ":" "//" authority path "?" query "#" fragment. The
 * path is always present (maybe empty); the fragment is not kept. */
struct uri_ref {
	struct span scheme, authority, path, query;
};

static bool is_alpha(unsigned char c)
{
	return (c | 0x20) >= 'a' && (c | 0x20) <= 'z';
}

static bool is_digit(unsigned char c)
{
	return c >= '0' && c <= '9';
}

static unsigned char to_lower(unsigned char c)
{
	return c >= 'A' && c <= 'Z' ? c + ('a' - 'A') : c;
}

/* RFC 3986 2.3 unreserved characters: an escape of one of them means the
 * character itself. */
static bool is_unreserved(unsigned char c)
{
	return is_alpha(c) || is_digit(c) || c == '-' || c == '.' || c == '_' || c == '~';
}

/* Bytes that never stay raw in a normalised path or query: controls,
 * space, non-ASCII, and the characters RFC 3986 excludes that browsers
 * and servers disagree about. '[' and ']' stay raw: browsers send them
 * raw in queries (PHP's "a[]=1"), and the files must match. */
static bool must_escape(unsigned char c)
{
	if (c <= 0x20 || c >= 0x7f)
		return true;
	switch (c) {
	case '"': case '<': case '>': case '\\': case '^':
	case '`': case '{': case '|': case '}':
		return true;
	}
	return false;
}

static int hex_value(unsigned char c)
{
	if (is_digit(c))
		return c - '0';
	c = to_lower(c);
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

int url_escape_at(const char *s, size_t len)
{
	if (len < 3 || s[0] != '%')
		return -1;
	int hi = hex_value((unsigned char)s[1]), lo = hex_value((unsigned char)s[2]);
	return hi < 0 || lo < 0 ? -1 : hi << 4 | lo;
}

static const char upper_hex[] = "0123456789ABCDEF";

static bool span_equals_nocase(struct span a, const char *s)
{
	size_t n = strlen(s);
	if (!a.p || a.len != n)
		return false;
	for (size_t i = 0; i < n; i++)
		if (to_lower((unsigned char)a.p[i]) != (unsigned char)s[i])
			return false;
	return true;
}

/* RFC 3986 3.1: scheme = ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ). */
static bool is_scheme(const char *s, size_t len)
{
	if (!len || !is_alpha((unsigned char)s[0]))
		return false;
	for (size_t i = 1; i < len; i++) {
		unsigned char c = (unsigned char)s[i];
		if (!is_alpha(c) && !is_digit(c) && c != '+' && c != '-' && c != '.')
			return false;
	}
	return true;
}

/* Split s[0..len) into r (appendix B). A "scheme" that is not one by the
 * grammar ("1x:y", "a b:c") makes the whole reference a relative path, as
 * browsers read it. */
static void parse_ref(const char *s, size_t len, struct uri_ref *r)
{
	const char *end = s + len, *p = s;
	memset(r, 0, sizeof(*r));

	size_t n = strcspn(s, ":/?#");
	if (n < len && s[n] == ':' && is_scheme(s, n)) {
		r->scheme = (struct span){ s, n };
		p = s + n + 1;
	}
	if (end - p >= 2 && p[0] == '/' && p[1] == '/') {
		const char *a = p + 2;
		p = a;
		while (p < end && *p != '/' && *p != '?' && *p != '#')
			p++;
		r->authority = (struct span){ a, (size_t)(p - a) };
	}
	const char *path = p;
	while (p < end && *p != '?' && *p != '#')
		p++;
	r->path = (struct span){ path, (size_t)(p - path) };
	if (p < end && *p == '?') {
		const char *q = ++p;
		while (p < end && *p != '#')
			p++;
		r->query = (struct span){ q, (size_t)(p - q) };
	}
}

/* Append s[0..len) to out with RFC 3986 6.2.2 percent-encoding
 * normalisation: escapes of unreserved characters decoded, other escapes
 * in upper case, bytes that may not stay raw escaped, and a '%' that
 * starts no escape written "%25". */
void url_add_normalized(struct buf *out, const char *s, size_t len)
{
	buf_grow(out, len * 3);
	char *w = out->data + out->len;
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];
		int v = c == '%' ? url_escape_at(s + i, len - i) : -1;
		if (v >= 0) {
			i += 2;
			if (is_unreserved((unsigned char)v)) {
				*w++ = (char)v;
				continue;
			}
			c = (unsigned char)v;
		} else if (c != '%' && !must_escape(c)) {
			*w++ = (char)c;
			continue;
		}
		*w++ = '%';
		*w++ = upper_hex[c >> 4];
		*w++ = upper_hex[c & 15];
	}
	out->len = (size_t)(w - out->data);
	out->data[out->len] = '\0';
}

/* Remove the last segment and the '/' before it from p[0..*out). */
static void pop_segment(const char *p, size_t *out)
{
	while (*out > 0 && p[*out - 1] != '/')
		(*out)--;
	if (*out > 0)
		(*out)--;
}

/* RFC 3986 5.2.4 remove_dot_segments, in place on p[0..len); returns the
 * new length. The output never outgrows the input read so far, so one
 * buffer serves as both, and every byte is moved at most once and
 * popped at most once: linear time. */
static size_t remove_dot_segments(char *p, size_t len)
{
	size_t in = 0, out = 0;
	while (in < len) {
		const char *s = p + in;
		size_t n = len - in;
		if (n >= 3 && !memcmp(s, "../", 3)) {           /* A */
			in += 3;
		} else if (n >= 2 && !memcmp(s, "./", 2)) {     /* A */
			in += 2;
		} else if (n >= 3 && !memcmp(s, "/./", 3)) {    /* B */
			in += 2;
		} else if (n == 2 && !memcmp(s, "/.", 2)) {     /* B */
			in += 1;
			p[in] = '/';
		} else if (n >= 4 && !memcmp(s, "/../", 4)) {   /* C */
			in += 3;
			pop_segment(p, &out);
		} else if (n == 3 && !memcmp(s, "/..", 3)) {    /* C */
			in += 2;
			p[in] = '/';
			pop_segment(p, &out);
		} else if ((n == 1 && s[0] == '.') || (n == 2 && !memcmp(s, "..", 2))) { /* D */
			in = len;
		} else {                                         /* E */
			size_t end = in + (s[0] == '/');
			while (end < len && p[end] != '/')
				end++;
			memmove(p + out, s, end - in);
			out += end - in;
			in = end;
		}
	}
	return out;
}

/* Append the normalised path (escapes, then dot segments; "" becomes "/"). */
void url_add_path(struct buf *out, const char *path, size_t len)
{
	size_t start = out->len;
	url_add_normalized(out, path, len);
	size_t n = remove_dot_segments(out->data + start, out->len - start);
	buf_truncate(out, start + n);
	if (!n)
		buf_addc(out, '/');
}

/* Append a normalised host (reg-name or IP literal); false when it is
 * empty or not a host cgisnap can reach by name or address. */
static bool add_host(struct buf *out, const char *h, size_t len)
{
	if (!len)
		return false;
	if (h[0] == '[') {
		/* IPv6 literal, kept in brackets: hex digits, ':' and '.' for
		 * an embedded IPv4 address. No zone ids, no IPvFuture. */
		if (len < 4 || h[len - 1] != ']' || !memchr(h, ':', len))
			return false;
		for (size_t i = 1; i < len - 1; i++) {
			unsigned char c = (unsigned char)h[i];
			if (hex_value(c) < 0 && c != ':' && c != '.')
				return false;
		}
		for (size_t i = 0; i < len; i++)
			buf_addc(out, (char)to_lower((unsigned char)h[i]));
		return true;
	}
	/* A reg-name of letters, digits and "-._~" (escaped or not): other
	 * sub-delims and non-ASCII names (which would need IDNA) are not
	 * hosts anything here resolves. */
	for (size_t i = 0; i < len; i++) {
		int c = (unsigned char)h[i];
		if (c == '%') {
			c = url_escape_at(h + i, len - i);
			i += 2;
		}
		if (c < 0 || !is_unreserved((unsigned char)c))
			return false;
		buf_addc(out, (char)to_lower((unsigned char)c));
	}
	return true;
}

/* Append "host[:port]" of an authority, userinfo dropped, the scheme's
 * default port removed; false with *why when the host or port is
 * malformed. */
static bool add_authority(struct buf *out, struct span a, bool https, const char **why)
{
	const char *at = memrchr(a.p, '@', a.len);
	if (at) {
		a.len -= (size_t)(at + 1 - a.p);
		a.p = at + 1;
	}
	const char *end = a.p + a.len, *host_end;
	if (a.len && a.p[0] == '[') {
		const char *close = memchr(a.p, ']', a.len);
		if (!close) {
			*why = "bad host";
			return false;
		}
		host_end = close + 1;
	} else {
		host_end = memchr(a.p, ':', a.len);
		if (!host_end)
			host_end = end;
	}
	if (host_end == a.p) {
		*why = "no host";
		return false;
	}
	if (!add_host(out, a.p, (size_t)(host_end - a.p))) {
		*why = "bad host";
		return false;
	}
	if (host_end == end)
		return true;
	if (*host_end != ':') {
		*why = "bad host";
		return false;
	}

	/* RFC 3986 6.2.3: an empty port is the default port. */
	unsigned long port = 0;
	const char *digits = host_end + 1;
	if (digits == end)
		return true;
	for (const char *p = digits; p < end; p++)
		if (!is_digit((unsigned char)*p)) {
			*why = "bad port";
			return false;
		}
	for (const char *p = digits; p < end && port <= 65535; p++)
		port = port * 10 + (unsigned long)(*p - '0');
	if (port == 0 || port > 65535) {
		*why = "port out of range";
		return false;
	}
	if (port != (https ? 443UL : 80UL))
		buf_addf(out, ":%lu", port);
	return true;
}

/* Append the normalised URL of r to out; false with *why when it is not
 * an http(s) URL with a valid host. */
static bool add_normalized_url(struct buf *out, const struct uri_ref *r, const char **why)
{
	bool https;
	*why = "not an http or https URL";
	if (span_equals_nocase(r->scheme, "http"))
		https = false;
	else if (span_equals_nocase(r->scheme, "https"))
		https = true;
	else
		return false;
	if (!r->authority.p)
		return false;
	buf_adds(out, https ? "https://" : "http://");
	if (!add_authority(out, r->authority, https, why))
		return false;
	url_add_path(out, r->path.p, r->path.len);
	if (r->query.p && r->query.len) {
		size_t mark = out->len;
		buf_addc(out, '?');
		url_add_normalized(out, r->query.p, r->query.len);
		if (out->len == mark + 1)
			buf_truncate(out, mark);
	}
	return true;
}

/* Copy s into out as browsers read an href: leading and trailing spaces
 * and controls dropped, tabs and newlines inside removed. */
static void add_stripped(struct buf *out, const char *s)
{
	size_t len = strlen(s);
	while (len && (unsigned char)s[0] <= 0x20)
		s++, len--;
	while (len && (unsigned char)s[len - 1] <= 0x20)
		len--;
	buf_grow(out, len);
	for (size_t i = 0; i < len; i++)
		if (s[i] != '\t' && s[i] != '\n' && s[i] != '\r')
			buf_addc(out, s[i]);
}

char *url_normalize(const char *url)
{
	const char *why;
	return url_normalize_why(url, &why);
}

char *url_normalize_why(const char *url, const char **why)
{
	struct buf in = BUF_INIT, out = BUF_INIT;
	struct uri_ref r;
	char *result = NULL;

	add_stripped(&in, url);
	parse_ref(in.data, in.len, &r);
	if (add_normalized_url(&out, &r, why))
		result = buf_detach(&out, NULL);
	buf_release(&out);
	buf_release(&in);
	return result;
}

char *url_resolve(const char *base_url, const char *ref_url)
{
	const char *why;
	return url_resolve_why(base_url, ref_url, &why);
}

char *url_resolve_why(const char *base_url, const char *ref_url, const char **why)
{
	struct buf base_buf = BUF_INIT, ref_buf = BUF_INIT, merged = BUF_INIT, out = BUF_INIT;
	struct uri_ref base, ref, t;
	char *result = NULL;

	add_stripped(&base_buf, base_url);
	add_stripped(&ref_buf, ref_url);
	parse_ref(base_buf.data, base_buf.len, &base);
	parse_ref(ref_buf.data, ref_buf.len, &ref);
	*why = "not an http or https URL";
	if (!base.scheme.p)
		goto out;

	/* RFC 3986 5.2.2 allows a parser, for backward compatibility, to
	 * read "http:g" against an http base as the relative "g"; browsers
	 * do, so links written that way lead where a visitor would go. */
	if (ref.scheme.p && !ref.authority.p && ref.scheme.len == base.scheme.len &&
	    !strncasecmp(ref.scheme.p, base.scheme.p, ref.scheme.len))
		ref.scheme.p = NULL;

	/* RFC 3986 5.2.2, the transformation of references; dot segments
	 * are removed by the normalisation that follows. */
	memset(&t, 0, sizeof(t));
	if (ref.scheme.p) {
		t = ref;
	} else {
		t.scheme = base.scheme;
		if (ref.authority.p) {
			t.authority = ref.authority;
			t.path = ref.path;
			t.query = ref.query;
		} else {
			t.authority = base.authority;
			if (!ref.path.len) {
				t.path = base.path;
				t.query = ref.query.p ? ref.query : base.query;
			} else {
				if (ref.path.p[0] == '/') {
					t.path = ref.path;
				} else {
					/* 5.2.3 merge */
					if (base.authority.p && !base.path.len) {
						buf_addc(&merged, '/');
					} else {
						const char *slash = memrchr(base.path.p, '/', base.path.len);
						if (slash)
							buf_add(&merged, base.path.p, (size_t)(slash + 1 - base.path.p));
					}
					buf_add(&merged, ref.path.p, ref.path.len);
					t.path = (struct span){ merged.data, merged.len };
				}
				t.query = ref.query;
			}
		}
	}
	if (add_normalized_url(&out, &t, why))
		result = buf_detach(&out, NULL);
out:
	buf_release(&out);
	buf_release(&merged);
	buf_release(&ref_buf);
	buf_release(&base_buf);
	return result;
}

/* Length of "scheme://authority" at the start of url; 0 when url has no
 * "://". */
size_t url_origin_length(const char *url)
{
	const char *sep = strstr(url, "://");
	if (!sep)
		return 0;
	return (size_t)(sep + 3 - url) + strcspn(sep + 3, "/?#");
}

char *url_origin(const char *url)
{
	size_t n = url_origin_length(url);
	return n ? xstrndup(url, n) : NULL;
}

char *url_target(const char *url)
{
	size_t n = url_origin_length(url);
	if (!n)
		return NULL;
	const char *rest = url + n;
	size_t len = strcspn(rest, "#");
	if (rest[0] != '/')
		return xasprintf("/%.*s", (int)len, rest);
	return xstrndup(rest, len);
}

void url_decode(struct buf *out, const char *s, size_t len)
{
	buf_reset(out);
	buf_grow(out, len);
	for (size_t i = 0; i < len; i++) {
		int v = s[i] == '%' ? url_escape_at(s + i, len - i) : -1;
		if (v >= 0) {
			buf_addc(out, (char)v);
			i += 2;
		} else {
			buf_addc(out, s[i]);
		}
	}
}
