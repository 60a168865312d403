/* reqpath.c - refuse hostile request targets before anything else
 * looks at them (see reqpath.h for the rules). */
#include "url/reqpath.h"

#include <stdbool.h>
#include <string.h>
#include <strings.h>

#include "base/buf.h"
#include "url/url.h"

/* Bytes that never appear raw in a target we accept. */
static bool raw_forbidden(unsigned char c)
{
	return c <= 0x20 || c == 0x7f || c == '\\' || c == '#';
}

/* Tracks the decoded bytes of the path to spot overlong UTF-8: the
 * previous byte when it was a lead byte whose follower is restricted. */
struct utf8_guard {
	unsigned char lead;
};

/* False when byte c (decoded) completes or starts a forbidden sequence. */
static bool utf8_ok(struct utf8_guard *g, unsigned char c)
{
	unsigned char lead = g->lead;
	g->lead = 0;
	if (lead == 0xe0 && c >= 0x80 && c <= 0x9f)
		return false; /* overlong 3-byte form */
	if (lead == 0xf0 && c >= 0x80 && c <= 0x8f)
		return false; /* overlong 4-byte form */
	if (lead == 0xed && c >= 0xa0 && c <= 0xbf)
		return false; /* surrogate */
	if (c == 0xc0 || c == 0xc1 || c >= 0xf5)
		return false; /* overlong 2-byte form, beyond U+10FFFF */
	if (c == 0xe0 || c == 0xf0 || c == 0xed)
		g->lead = c;
	return true;
}

/* Check one path segment raw[0..n) (no '/'); 0, 400 or 404. */
static int check_segment(const char *s, size_t n)
{
	struct utf8_guard guard = { 0 }, *g = &guard;
	size_t decoded = 0;
	unsigned char first = 0;
	int dots = 0;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (raw_forbidden(c))
			return 400;
		if (c == '%') {
			int v = url_escape_at(s + i, n - i);
			if (v < 0)
				return 400;
			c = (unsigned char)v;
			i += 2;
			/* An encoded '/' is a byte of this segment (urlkey.h
			 * keeps it "%2F" in one file name), never a separator. */
			if (c < 0x20 || c == 0x7f || c == '\\')
				return 400;
		}
		if (!utf8_ok(g, c))
			return 400;
		if (decoded == 0)
			first = c;
		if (c == '.')
			dots++;
		decoded++;
	}
	if (decoded && dots == (int)decoded && decoded <= 2)
		return 400; /* "." or ".." */
	if (first == '.')
		return 404;
	return 0;
}

int reqpath_check(const char *raw, const char **origin_form)
{
	const char *p = raw;

	/* Absolute form (RFC 9112 3.2.2): skip "scheme://authority". */
	if (!strncasecmp(p, "http://", 7) || !strncasecmp(p, "https://", 8)) {
		p = strstr(p, "://") + 3;
		while (*p && *p != '/' && *p != '?') {
			if (raw_forbidden((unsigned char)*p))
				return 400;
			p++;
		}
		if (!*p) {
			*origin_form = "/";
			return 0;
		}
		if (*p == '?')
			return 400;
	}
	if (*p != '/')
		return 400;
	*origin_form = p;

	const char *seg = p + 1;
	for (;;) {
		size_t n = strcspn(seg, "/?");
		int rc = check_segment(seg, n);
		if (rc)
			return rc;
		seg += n;
		if (*seg != '/')
			break;
		seg++;
	}
	if (*seg == '?')
		for (const char *q = seg + 1; *q; q++)
			if (raw_forbidden((unsigned char)*q) && *q != '\\')
				return 400;
	return 0;
}

static bool ext_is(const char *ext, size_t n, const char *want)
{
	return strlen(want) == n && !strncasecmp(ext, want, n);
}

bool reqpath_is_script(const char *key, const struct strlist *extra)
{
	static const char *const exts[] = { REQPATH_SCRIPT_EXTS, NULL };
	const char *name = strrchr(key, '/');
	name = name ? name + 1 : key;
	size_t len = strlen(name);
	if (len > 3 && !strcasecmp(name + len - 3, ".gz"))
		len -= 3;
	/* An editor's or an admin's copy of a script is its source too:
	 * "local.php~", "wp-config.php.bak", "index.php.orig". */
	static const char *const backups[] = { ".bak", ".backup", ".orig", ".old", ".save", ".swp",
					       ".tmp", ".dist", ".copy", NULL };
	while (len > 1 && name[len - 1] == '~')
		len--;
	for (size_t i = 0; backups[i]; i++) {
		size_t b = strlen(backups[i]);
		if (len > b && !strncasecmp(name + len - b, backups[i], b)) {
			len -= b;
			break;
		}
	}
	const char *dot = memrchr(name, '.', len);
	if (!dot || dot == name)
		return false;
	const char *ext = dot + 1;
	size_t n = len - (size_t)(ext - name);
	for (size_t i = 0; exts[i]; i++)
		if (ext_is(ext, n, exts[i]))
			return true;
	for (size_t i = 0; extra && i < extra->n; i++)
		if (ext_is(ext, n, extra->items[i]))
			return true;
	return false;
}
