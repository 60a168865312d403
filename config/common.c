/* config/common.c - what the nginx and Apache writers share: the types by
 * extension, the regular expressions guarding against hostile targets,
 * escaping and comments. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "base/log.h"
#include "url/urlkey.h"
#include "base/xalloc.h"

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
	{ "%(?:[01][0-9a-f]|7f|5c)", "an encoded control byte or '\\'" },
	{ "[\\x5c#]", "a raw '\\' or '#'" },
	{ "/(?:\\.|%2e){1,2}(?=[/?\\s]|$)", "a '.' or '..' segment, raw or encoded" },
	{ "%c[01]|%f[5-9a-f]|%e0%[89]|%f0%8|%ed%[ab]", "overlong UTF-8 or a surrogate, encoded" },
	{ "[\\xc0\\xc1\\xf5-\\xff]|\\xe0[\\x80-\\x9f]|\\xf0[\\x80-\\x8f]|\\xed[\\xa0-\\xbf]",
	  "overlong UTF-8 or a surrogate, raw" },
	{ NULL, NULL },
};

void config_guards_regex(struct buf *out)
{
	buf_adds(out, "(?:");
	for (const struct config_guard *g = config_bad_targets; g->re; g++)
		buf_addf(out, "%s(?:%s)", g == config_bad_targets ? "" : "|", g->re);
	buf_adds(out, ")");
}

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

int config_canonical_pcre(const struct rewrite *rw, struct buf *out, size_t *groups, char *err)
{
	const char *re = rw->regex, *end = re + strlen(re);
	*groups = 0;
	for (const char *p = re; p < end; p++) {
		if (*p == '"') {
			buf_adds(out, "\\x22"); /* survives both servers' quoting */
		} else if (*p == '\\') {
			char c = p + 1 < end ? p[1] : '\0';
			/* GNU's \w \s \b \< \> \` \' and back-references \1..\9
			 * mean other things, or nothing, to PCRE. */
			if (!c || (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
			    strchr("<>`'", c))
				return err_set(err, "--canonical '%s': '\\%c' in the regex has no equal in "
					       "nginx's and Apache's PCRE", rw->spec, c ? c : ' ');
			buf_add(out, p, 2);
			p++;
		} else if (*p == '{' && p + 1 < end && p[1] == ',') {
			return err_set(err, "--canonical '%s': PCRE reads '{,' as text: write '{0,'", rw->spec);
		} else if (*p == '[') {
			/* A bracket expression: its backslashes are literal in POSIX,
			 * escapes in PCRE. */
			buf_addc(out, '[');
			p++;
			if (p < end && *p == '^')
				buf_addc(out, *p++);
			if (p < end && *p == ']')
				buf_addc(out, *p++);
			for (; p < end && *p != ']'; p++) {
				if (*p == '[' && p + 1 < end && (p[1] == '.' || p[1] == '='))
					return err_set(err, "--canonical '%s': PCRE has no collating elements "
						       "or equivalence classes ('[%c')", rw->spec, p[1]);
				if (*p == '[' && p + 1 < end && p[1] == ':') {
					const char *close = strstr(p + 2, ":]");
					size_t n = close && close < end ? (size_t)(close + 2 - p) : 1;
					buf_add(out, p, n);
					p += n - 1;
				} else if (*p == '\\') {
					buf_adds(out, "\\\\");
				} else if (*p == '"') {
					buf_adds(out, "\\x22");
				} else {
					buf_addc(out, *p);
				}
			}
			buf_addc(out, ']');
		} else {
			if (*p == '(')
				(*groups)++;
			buf_addc(out, *p);
		}
	}
	/* A backslash just before the closing quote would escape it. */
	if (out->len && out->data[out->len - 1] == '\\')
		buf_adds(out, "(?:)");
	return 0;
}

int config_check_canonical(const struct site *s, char *err)
{
	for (size_t i = 0; i < s->ncanonical; i++) {
		struct buf re = BUF_INIT;
		size_t groups;
		int rc = config_canonical_pcre(&s->canonical[i], &re, &groups, err);
		buf_release(&re);
		if (rc < 0)
			return -1;
		if (groups >= 9 && strstr(s->canonical[i].url, "$0"))
			return err_set(err, "--canonical '%s': nginx has no $0: with it, at most 8 groups",
				       s->canonical[i].spec);
		if (config_unquotable(s->canonical[i].spec))
			return err_set(err, "--canonical '%s' cannot be written", s->canonical[i].spec);
	}
	return 0;
}

void config_header(struct buf *out, const char *server, const char *command, const struct treeinfo *ti,
		   const struct config_params *p)
{
	config_comment(out, "", "%s configuration for the cgisnap tree %s (%s),", server, ti->dir, ti->site.url);
	config_comment(out, "", "written by cgisnap %s: cgisnap config %s DIR", p->version, command);
	buf_adds(out, "#\n");
}
