/* excerpt.c - the first lines of text of a response body (excerpt.h). */
#include "crawl/excerpt.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "base/xalloc.h"

struct lines {
	struct strlist *out;
	size_t max_lines, max_chars;
	size_t count;
	struct buf line;
	bool space; /* a space is due before the next character */
	bool cut;   /* the line reached max_chars */
};

static bool full(const struct lines *l)
{
	return l->count >= l->max_lines;
}

static void end_line(struct lines *l)
{
	if (l->line.len && !full(l)) {
		if (l->cut)
			buf_adds(&l->line, "...");
		strlist_add(l->out, buf_str(&l->line));
		l->count++;
	}
	buf_reset(&l->line);
	l->space = l->cut = false;
}

static void add_char(struct lines *l, unsigned char c)
{
	if (c == '\n' || c == '\r') {
		end_line(l);
		return;
	}
	if (c == ' ' || c == '\t' || c == '\f' || c == '\v') {
		l->space = l->line.len > 0;
		return;
	}
	if (l->cut)
		return;
	size_t need = (l->space ? 1 : 0) + (c < 0x20 || c == 0x7f ? 4 : 1);
	if (l->line.len + need > l->max_chars) {
		l->cut = true;
		return;
	}
	if (l->space)
		buf_addc(&l->line, ' ');
	l->space = false;
	if (c < 0x20 || c == 0x7f)
		buf_addf(&l->line, "\\x%02x", c);
	else
		buf_addc(&l->line, (char)c);
}

/* Tags after which the text goes on on a line of its own. */
static bool is_block(const char *name, size_t n)
{
	static const char *const blocks[] = { "p", "br", "div", "h1", "h2", "h3", "h4", "h5", "h6",
					      "li", "tr", "title", "pre", "blockquote", "hr", "table",
					      "ul", "ol", "dt", "dd", "body", "head", "html", "section",
					      "article", "header", "footer", "address", "form", "main",
					      "nav" };
	for (size_t i = 0; i < sizeof blocks / sizeof blocks[0]; i++)
		if (strlen(blocks[i]) == n && !strncasecmp(blocks[i], name, n))
			return true;
	return false;
}

/* Where s[0..n) first holds needle (ASCII case ignored), or n. */
static size_t find_ci(const char *s, size_t n, const char *needle)
{
	size_t k = strlen(needle);
	for (size_t i = 0; i + k <= n; i++)
		if (!strncasecmp(s + i, needle, k))
			return i;
	return n;
}

/* The tag at s[0] == '<': where the text goes on after it. */
static size_t skip_tag(struct lines *l, const char *s, size_t n)
{
	if (n >= 4 && !memcmp(s, "<!--", 4)) {
		size_t end = find_ci(s + 4, n - 4, "-->");
		return end == n - 4 ? n : 4 + end + 3;
	}
	size_t i = 1;
	bool closing = i < n && s[i] == '/';
	if (closing)
		i++;
	size_t name = i;
	while (i < n && isalnum((unsigned char)s[i]))
		i++;
	size_t name_len = i - name;
	if (!name_len && !(i < n && (s[i] == '!' || s[i] == '?'))) {
		add_char(l, '<'); /* not a tag: a "<" of the text */
		return 1;
	}
	size_t gt = i + find_ci(s + i, n - i, ">");
	size_t after = gt < n ? gt + 1 : n;
	/* A title repeats the status ("404 Not Found"): the body says more. */
	static const char *const skipped[] = { "script", "style", "title" };
	const char *close = NULL;
	for (size_t k = 0; k < sizeof skipped / sizeof skipped[0] && !closing; k++)
		if (name_len == strlen(skipped[k]) && !strncasecmp(s + name, skipped[k], name_len))
			close = k == 0 ? "</script" : k == 1 ? "</style" : "</title";
	if (close) {
		size_t end = find_ci(s + after, n - after, close);
		if (after + end == n)
			return n;
		size_t gt2 = after + end + find_ci(s + after + end, n - after - end, ">");
		return gt2 < n ? gt2 + 1 : n;
	}
	if (is_block(s + name, name_len))
		end_line(l);
	else if (name_len == 2 && (!strncasecmp(s + name, "td", 2) || !strncasecmp(s + name, "th", 2)))
		add_char(l, ' ');
	return after;
}

/* The entity at s[0] == '&': how many bytes it took (1: none known). */
static size_t decode_entity(struct lines *l, const char *s, size_t n)
{
	static const struct {
		const char *name;
		char c;
	} named[] = { { "&amp;", '&' }, { "&lt;", '<' }, { "&gt;", '>' }, { "&quot;", '"' },
		      { "&#39;", '\'' }, { "&apos;", '\'' }, { "&nbsp;", ' ' } };
	for (size_t i = 0; i < sizeof named / sizeof named[0]; i++) {
		size_t k = strlen(named[i].name);
		if (k <= n && !strncasecmp(s, named[i].name, k)) {
			add_char(l, (unsigned char)named[i].c);
			return k;
		}
	}
	add_char(l, '&');
	return 1;
}

void excerpt_lines(const char *data, size_t len, bool html, size_t max_lines, size_t max_chars,
		   struct strlist *out)
{
	struct lines l = { out, max_lines, max_chars, 0, BUF_INIT, false, false };
	size_t n = len < EXCERPT_SCAN_MAX ? len : EXCERPT_SCAN_MAX;
	size_t i = 0;
	while (i < n && !full(&l)) {
		if (html && data[i] == '<')
			i += skip_tag(&l, data + i, n - i);
		else if (html && data[i] == '&')
			i += decode_entity(&l, data + i, n - i);
		else
			add_char(&l, (unsigned char)data[i++]);
	}
	end_line(&l);
	buf_release(&l.line);
}

char *excerpt_first_line(const char *data, size_t len, bool html, size_t max_chars)
{
	struct strlist one = STRLIST_INIT;
	excerpt_lines(data, len, html, 1, max_chars, &one);
	char *line = one.n ? xstrdup(one.items[0]) : NULL;
	strlist_clear(&one);
	return line;
}

bool excerpt_is_text(const char *type)
{
	if (!type)
		return false;
	return !strncasecmp(type, "text/", 5) || strcasestr(type, "xml") || strcasestr(type, "javascript") ||
	       strcasestr(type, "json");
}

bool excerpt_is_html(const char *type)
{
	return type && (strcasestr(type, "html") || strcasestr(type, "xml"));
}
