/* urlkey.c - the mapping from canonical request targets to files of the
 * snapshot tree, and the content types plain servers give those files
 * (urlkey.h states the rules; docs/url-keys.md shows them). */
#include "url/urlkey.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "base/buf.h"
#include "base/log.h"
#include "base/sha256.h"
#include "url/url.h"

/* A hashed name keeps this much of the original (see urlkey.h). */
#define KEEP_BEFORE_HASH 150
#define HASH_HEX 32
/* A plain file name keeps an extension this long (".woff2") when hashed,
 * so that it is still served with its type. */
#define MAX_KEPT_EXT 10

/* Media types: the part of a Content-Type before parameters. */
struct media {
	const char *p;
	size_t len;
};

static struct media media_of(const char *content_type)
{
	struct media m = { "", 0 };
	if (!content_type)
		return m;
	while (*content_type == ' ' || *content_type == '\t')
		content_type++;
	m.p = content_type;
	m.len = strcspn(content_type, "; \t");
	return m;
}

static bool media_is(struct media m, const char *type)
{
	return strlen(type) == m.len && !strncasecmp(m.p, type, m.len);
}

/* Which suffix a query key gets for each type. A plain server maps the
 * suffix back with mime_from_name(); where it gives another type (RSS and
 * Atom become text/xml, XHTML text/html) mime_implied() says so and the
 * generated server configuration sends the recorded type. */
static const struct {
	const char *type, *suffix;
} suffixes[] = {
	{ "text/html", ".html" },
	{ "application/xhtml+xml", ".html" },
	{ "text/css", ".css" },
	{ "application/javascript", ".js" },
	{ "text/javascript", ".js" },
	{ "application/x-javascript", ".js" },
	{ "application/json", ".json" },
	{ "text/xml", ".xml" },
	{ "application/xml", ".xml" },
	{ "application/rss+xml", ".xml" },
	{ "application/atom+xml", ".xml" },
	{ "text/plain", ".txt" },
	{ "text/csv", ".csv" },
	{ "text/markdown", ".md" },
	{ "image/png", ".png" },
	{ "image/jpeg", ".jpg" },
	{ "image/gif", ".gif" },
	{ "image/svg+xml", ".svg" },
	{ "image/webp", ".webp" },
	{ "image/x-icon", ".ico" },
	{ "image/vnd.microsoft.icon", ".ico" },
	{ "application/pdf", ".pdf" },
	{ "font/woff2", ".woff2" },
	{ "font/woff", ".woff" },
	{ "font/ttf", ".ttf" },
	{ "font/otf", ".otf" },
	{ "video/mp4", ".mp4" },
	{ "video/webm", ".webm" },
	{ "audio/mpeg", ".mp3" },
	{ "application/wasm", ".wasm" },
	{ "application/gzip", ".gz" },
};

/* True for a suffix urlkey_for() gives query keys (".bin" included). */
static bool is_query_suffix(const char *suffix)
{
	if (!strcmp(suffix, ".bin"))
		return true;
	for (size_t i = 0; i < sizeof(suffixes) / sizeof(suffixes[0]); i++)
		if (!strcmp(suffix, suffixes[i].suffix))
			return true;
	return false;
}

const char *urlkey_suffix(const char *content_type)
{
	struct media m = media_of(content_type);
	if (!m.len)
		return ".html";
	for (size_t i = 0; i < sizeof(suffixes) / sizeof(suffixes[0]); i++)
		if (media_is(m, suffixes[i].type))
			return suffixes[i].suffix;
	return ".bin";
}

/* What a plain server (nginx's mime.types, the generated configuration)
 * sends for an extension; text types with charset=utf-8. */
static const struct {
	const char *ext, *type;
} by_extension[] = {
	{ "html", "text/html; charset=utf-8" },
	{ "htm", "text/html; charset=utf-8" },
	{ "css", "text/css; charset=utf-8" },
	{ "js", "application/javascript; charset=utf-8" },
	{ "mjs", "application/javascript; charset=utf-8" },
	{ "json", "application/json; charset=utf-8" },
	{ "map", "application/json; charset=utf-8" },
	{ "xml", "text/xml; charset=utf-8" },
	{ "rss", "application/rss+xml; charset=utf-8" },
	{ "atom", "application/atom+xml; charset=utf-8" },
	{ "txt", "text/plain; charset=utf-8" },
	{ "csv", "text/csv; charset=utf-8" },
	{ "md", "text/markdown; charset=utf-8" },
	{ "svg", "image/svg+xml; charset=utf-8" },
	{ "png", "image/png" },
	{ "jpg", "image/jpeg" },
	{ "jpeg", "image/jpeg" },
	{ "gif", "image/gif" },
	{ "webp", "image/webp" },
	{ "ico", "image/x-icon" },
	{ "pdf", "application/pdf" },
	{ "woff2", "font/woff2" },
	{ "woff", "font/woff" },
	{ "ttf", "font/ttf" },
	{ "otf", "font/otf" },
	{ "mp4", "video/mp4" },
	{ "webm", "video/webm" },
	{ "mp3", "audio/mpeg" },
	{ "wasm", "application/wasm" },
	{ "gz", "application/gzip" },
};

const char *mime_from_name(const char *name)
{
	const char *base = strrchr(name, '/');
	base = base ? base + 1 : name;
	const char *dot = strrchr(base, '.');
	if (dot && dot != base) {
		for (size_t i = 0; i < sizeof(by_extension) / sizeof(by_extension[0]); i++)
			if (!strcasecmp(dot + 1, by_extension[i].ext))
				return by_extension[i].type;
	}
	return "application/octet-stream";
}

/* Names of one type that clients treat alike, so a file served under the
 * other name needs no type of its own. */
static const char *canonical_media(struct media m)
{
	static const char *const same[][2] = {
		{ "text/javascript", "application/javascript" },
		{ "application/x-javascript", "application/javascript" },
		{ "image/vnd.microsoft.icon", "image/x-icon" },
	};
	for (size_t i = 0; i < sizeof(same) / sizeof(same[0]); i++)
		if (media_is(m, same[i][0]))
			return same[i][1];
	return NULL;
}

static bool same_media(struct media a, struct media b)
{
	const char *ca = canonical_media(a), *cb = canonical_media(b);
	if (ca)
		a = (struct media){ ca, strlen(ca) };
	if (cb)
		b = (struct media){ cb, strlen(cb) };
	return a.len == b.len && !strncasecmp(a.p, b.p, a.len);
}

/* The charset parameter's value of a Content-Type (quotes removed) in
 * out (size n); false when there is none. */
static bool charset_of(const char *content_type, char *out, size_t n)
{
	for (const char *p = strchr(content_type, ';'); p; p = strchr(p, ';')) {
		p++;
		p += strspn(p, " \t");
		if (strncasecmp(p, "charset", 7))
			continue;
		const char *v = p + 7;
		v += strspn(v, " \t");
		if (*v != '=')
			continue;
		v++;
		v += strspn(v, " \t");
		size_t len = strcspn(v, "; \t");
		if (len >= 2 && v[0] == '"' && v[len - 1] == '"')
			v++, len -= 2;
		snprintf(out, n, "%.*s", (int)len, v);
		return true;
	}
	return false;
}

bool mime_implied(const char *name, const char *content_type)
{
	struct media given = media_of(content_type);
	if (!given.len)
		return true; /* the origin named no type: any will do */
	const char *plain = mime_from_name(name);
	if (!same_media(media_of(plain), given))
		return false;
	char charset[32];
	/* The site named no charset: a plain server's "charset=utf-8" would
	 * be one it never sent, so the recorded type is sent instead, as
	 * cgisnap serve does. */
	if (!charset_of(content_type, charset, sizeof(charset)))
		return !strchr(plain, ';');
	return !strcasecmp(charset, "utf-8") || !strcasecmp(charset, "utf8");
}

bool mime_compressible(const char *content_type)
{
	struct media m = media_of(content_type);
	if (m.len > 5 && !strncasecmp(m.p, "text/", 5))
		return true;
	if (media_is(m, "application/javascript") || media_is(m, "application/x-javascript") ||
	    media_is(m, "application/json") || media_is(m, "application/xml") ||
	    media_is(m, "image/svg+xml"))
		return true;
	/* application/rss+xml, application/ld+json, ... */
	if (m.len > 12 && !strncasecmp(m.p, "application/", 12)) {
		const char *end = m.p + m.len;
		if (!strncasecmp(end - 4, "+xml", 4) || !strncasecmp(end - 5, "+json", 5))
			return true;
	}
	return false;
}

/* err is optional: set it when given, and return NULL. */
static char *no_key(char *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static char *no_key(char *err, const char *fmt, ...)
{
	if (err) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(err, ERR_LEN, fmt, ap);
		va_end(ap);
	}
	return NULL;
}

static bool is_control(unsigned char c)
{
	return c < 0x20 || c == 0x7f;
}

/* Append name[0..len) followed by suffix, or, when that is longer than
 * URLKEY_MAX_NAME, the first bytes of name, '#', a hash of all of it and
 * the suffix. '#' never reaches a key otherwise, so a hashed name cannot
 * be the plain name of another target. */
static void add_name(struct buf *out, const char *name, size_t len, const char *suffix)
{
	size_t suffix_len = strlen(suffix);
	if (len + suffix_len <= URLKEY_MAX_NAME) {
		buf_add(out, name, len);
		buf_add(out, suffix, suffix_len);
		return;
	}
	char hex[65];
	sha256_hex(name, len, hex);
	buf_add(out, name, KEEP_BEFORE_HASH);
	buf_addc(out, '#');
	buf_add(out, hex, HASH_HEX);
	buf_add(out, suffix, suffix_len);
}

/* Decode one path segment seg[0..len) into out (reset first), writing
 * '%', '@' and '#' as "%25", "%40" and "%23", an encoded '/' as "%2F"
 * (the name of one file, never a separator), and a leading '.' as "%2E"
 * (no file of the tree is a dotfile: those are the temp files of a
 * publish and .cgisnap/, and servers hide them); NULL when it may be
 * stored, else what is wrong with it. */
static const char *decode_segment(struct buf *out, const char *seg, size_t len)
{
	buf_reset(out);
	buf_grow(out, len);
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)seg[i];
		int v = c == '%' ? url_escape_at(seg + i, len - i) : -1;
		if (v >= 0) {
			c = (unsigned char)v;
			i += 2;
			if (c == '/') {
				/* Not a separator: "%2F" in the name, which
				 * no '%' of the URL can write (that is "%25"). */
				buf_adds(out, "%2F");
				continue;
			}
		}
		if (c == 0)
			return "a NUL byte in the path";
		if (is_control(c))
			return "a control character in the path";
		if (c == '\\')
			return "a '\\' in the path";
		if (c == '.' && !out->len)
			buf_adds(out, "%2E");
		else if (c == '%')
			buf_adds(out, "%25");
		else if (c == '@')
			buf_adds(out, "%40");
		else if (c == '#')
			buf_adds(out, "%23");
		else
			buf_addc(out, (char)c);
	}
	if (!strcmp(buf_str(out), "%2E") || !strcmp(buf_str(out), "%2E."))
		return "a '.' or '..' segment in the path";
	return NULL;
}

/* True for a decoded segment whose name starts with '.' ("%2E" in the
 * key): ".htaccess" has a dot like "a.css", and is a file. */
static bool starts_with_dot(const struct buf *seg)
{
	return seg->len >= 3 && !memcmp(seg->data, "%2E", 3);
}

/* The extension of a plain file name worth keeping through hashing
 * (".css"), or "". */
static const char *kept_extension(const char *name, size_t len)
{
	const char *dot = memrchr(name, '.', len);
	if (!dot || dot == name || (size_t)(name + len - dot) > MAX_KEPT_EXT)
		return "";
	for (const char *p = dot + 1; p < name + len; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9')))
			return "";
	return dot;
}

char *urlkey_for(const char *target, const char *content_type, char *err)
{
	if (target[0] != '/')
		return no_key(err, "cannot be stored: '%s' is not a request target", target);

	const char *query = strchr(target, '?');
	const char *path_end = query ? query : target + strlen(target);
	if (query && !query[1])
		query = NULL; /* "/a?" is "/a" */
	if (query) {
		/* A canonical query is printable ASCII without '#'. */
		for (const unsigned char *p = (const unsigned char *)query + 1; *p; p++)
			if (*p <= 0x20 || *p >= 0x7f || *p == '\\' || *p == '#')
				return no_key(err, "cannot be stored: the query of '%s' is not canonical", target);
	}

	struct buf out = BUF_INIT, seg = BUF_INIT;
	const char *why;

	/* Every segment but the last is a directory. */
	const char *s = target + 1;
	for (;;) {
		const char *slash = memchr(s, '/', (size_t)(path_end - s));
		if (!slash)
			break;
		if ((why = decode_segment(&seg, s, (size_t)(slash - s))))
			goto refuse;
		if (!seg.len) {
			why = "an empty path segment";
			goto refuse;
		}
		add_name(&out, seg.data, seg.len, "");
		buf_addc(&out, '/');
		s = slash + 1;
	}
	if ((why = decode_segment(&seg, s, (size_t)(path_end - s))))
		goto refuse;

	if (query) {
		/* PATH "@" QUERY SUFFIX, the query's '/' written "%2F" so
		 * that the file stays in its directory. */
		buf_addc(&seg, '@');
		for (const char *p = query + 1; *p; p++) {
			if (*p == '/')
				buf_adds(&seg, "%2F");
			else
				buf_addc(&seg, *p);
		}
		add_name(&out, seg.data, seg.len, urlkey_suffix(content_type));
	} else if (!seg.len) {
		buf_adds(&out, "index.html");
	} else if (memchr(seg.data, '.', seg.len) || starts_with_dot(&seg)) {
		const char *ext = kept_extension(seg.data, seg.len);
		add_name(&out, seg.data, seg.len - strlen(ext), ext);
	} else {
		add_name(&out, seg.data, seg.len, "");
		buf_adds(&out, "/index.html");
	}

	if (out.len > URLKEY_MAX_PATH) {
		why = "its file name would be too long";
		goto refuse;
	}
	/* The rules above cannot make an unsafe key; this is the proof
	 * that is checked, not assumed. */
	if (!urlkey_is_safe(out.data)) {
		why = "its file name would be unsafe";
		goto refuse;
	}
	buf_release(&seg);
	return buf_detach(&out, NULL);
refuse:
	buf_release(&seg);
	buf_release(&out);
	return no_key(err, "cannot be stored: %s", why);
}

bool urlkey_is_safe(const char *key)
{
	if (!key || !*key || strlen(key) > URLKEY_MAX_PATH)
		return false;
	const char *seg = key; /* start of the current segment */
	for (const char *p = key;; p++) {
		unsigned char c = (unsigned char)*p;
		if (c == '/' || c == '\0') {
			if (p == seg || seg[0] == '.')
				return false; /* "", "a//b", "a/", ".x", "..", "." */
			if (!c)
				return true;
			seg = p + 1;
		} else if (c == '\\' || is_control(c)) {
			return false;
		}
	}
}

char *urlkey_target(const char *key)
{
	if (!urlkey_is_safe(key) || strchr(key, '#'))
		return NULL;
	const char *last = strrchr(key, '/');
	last = last ? last + 1 : key;
	const char *at = strchr(last, '@');
	if (!at)
		return NULL;
	const char *dot = strrchr(at, '.');
	if (!dot || dot == at + 1 || !is_query_suffix(dot))
		return NULL; /* no query, or not a suffix urlkey_for writes */

	/* The path as a target would carry it: the key's escapes undone, then
	 * '%', '?' and '#' escaped again; site_canonical_target does the rest
	 * (spaces, non-ASCII...). The query is kept as it is. */
	struct buf t = BUF_INIT;
	buf_addc(&t, '/');
	for (const char *p = key; p < at; p++) {
		char c = *p;
		if (c == '%' && p + 3 <= at) {
			if (!strncmp(p, "%2F", 3)) {
				buf_adds(&t, "%2F"); /* an encoded '/' stays one */
				p += 2;
				continue;
			}
			if (!strncmp(p, "%2E", 3) && (p == key || p[-1] == '/'))
				c = '.', p += 2; /* a dot-leading name */
			else if (!strncmp(p, "%25", 3))
				p += 2; /* c is '%' already */
			else if (!strncmp(p, "%40", 3))
				c = '@', p += 2;
			else if (!strncmp(p, "%23", 3))
				c = '#', p += 2;
		}
		if (c == '%' || c == '?' || c == '#')
			buf_addf(&t, "%%%02X", (unsigned char)c);
		else
			buf_addc(&t, c);
	}
	buf_addc(&t, '?');
	buf_add(&t, at + 1, (size_t)(dot - at - 1));

	struct site plain = { 0 }; /* no query policy: normalisation only */
	char *target = site_canonical_target(&plain, t.data);
	buf_release(&t);
	return target;
}
