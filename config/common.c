/* config/common.c - what the nginx and Apache writers share: the types by
 * extension, the regular expressions guarding against hostile targets,
 * escaping and comments. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "urlkey.h"
#include "xalloc.h"

/* The extensions urlkey.h's mime_from_name knows, grouped by the type it
 * gives them. The types themselves come from mime_from_name, so that the
 * plain servers send exactly what cgisnap serve sends for a file. */
static const char *const ext_groups[] = {
	"html|htm", "css", "js|mjs", "json|map", "xml", "rss", "atom", "txt", "csv", "md",
	"svg", "png", "jpg|jpeg", "gif", "webp", "ico", "pdf", "woff2", "woff", "ttf", "otf",
	"mp4", "webm", "mp3", "wasm", "gz",
};

size_t config_type_groups(size_t i, const char **type, const char **exts)
{
	size_t n = sizeof ext_groups / sizeof ext_groups[0];
	if (i < n) {
		char name[16];
		snprintf(name, sizeof name, "x.%.*s", (int)strcspn(ext_groups[i], "|"), ext_groups[i]);
		*exts = ext_groups[i];
		*type = mime_from_name(name);
	}
	return n;
}

const struct config_guard config_bad_targets[] = {
	{ "%(?![0-9a-f]{2})", "a '%' that starts no escape" },
	{ "%(?:[01][0-9a-f]|7f|2f|5c)", "an encoded control byte, '/' or '\\'" },
	{ "[\\x5c#]", "a raw '\\' or '#'" },
	{ "/(?:\\.|%2e){1,2}(?=[/?\\s]|$)", "a '.' or '..' segment, raw or encoded" },
	{ "%c[01]|%f[5-9a-f]|%e0%[89]|%f0%8|%ed%[ab]", "overlong UTF-8 or a surrogate, encoded" },
	{ "[\\xc0\\xc1\\xf5-\\xff]|\\xe0[\\x80-\\x9f]|\\xf0[\\x80-\\x8f]|\\xed[\\xa0-\\xbf]",
	  "overlong UTF-8 or a surrogate, raw" },
	{ NULL, NULL },
};

void config_regex_escape(struct buf *out, const char *s)
{
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		unsigned char c = *p;
		if (c == ' ' || c == '"' || c == '\\' || c == '\'' || c < 0x20 || c == 0x7f)
			buf_addf(out, "\\x%02x", c);
		else if (c < 0x80 && !(c >= '0' && c <= '9') && !((c | 0x20) >= 'a' && (c | 0x20) <= 'z') &&
			 c != '_')
			buf_addc(out, '\\'), buf_addc(out, (char)c);
		else
			buf_addc(out, (char)c);
	}
}

bool config_unquotable(const char *s)
{
	for (const unsigned char *p = (const unsigned char *)s; *p; p++)
		if (*p < 0x20 || *p == 0x7f)
			return true;
	return false;
}

void config_comment(struct buf *out, const char *indent, const char *fmt, ...)
{
	va_list ap, again;
	va_start(ap, fmt);
	va_copy(again, ap);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	char *text = xmalloc(n > 0 ? (size_t)n + 1 : 1);
	vsnprintf(text, n > 0 ? (size_t)n + 1 : 1, fmt, again);
	va_end(again);
	for (char *p = text; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			*p = '?';
	buf_addf(out, "%s# %s\n", indent, text);
	free(text);
}

/* one or many, after n. */
static const char *plural(size_t n, const char *one, const char *many)
{
	return n == 1 ? one : many;
}

void config_summary(struct buf *out, const struct treeinfo *ti)
{
	config_comment(out, "", "Listed per URL: %zu %s, %zu recorded %s, %zu %s; found by the rules: %zu %s.",
		       ti->redirects.n, plural(ti->redirects.n, "redirect", "redirects"), ti->statuses.n,
		       plural(ti->statuses.n, "status", "statuses"), ti->files.n,
		       plural(ti->files.n, "page", "pages"), ti->by_rule, plural(ti->by_rule, "page", "pages"));
}
