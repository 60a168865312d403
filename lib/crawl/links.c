/* links.c - the URLs an HTML, CSS or XML document refers to (links.h):
 * what every document type shares (each link resolved and reported once,
 * the tree walk's helpers), stylesheets, and the choice by media type.
 *
 * HTML and XML are first decoded to clean UTF-8 (charset.c: BOM, HTTP
 * charset, <meta> or XML declaration, or a guess), invalid bytes and NULs
 * becoming U+FFFD as in a browser: libxml2 stops at a NUL and at a failed
 * conversion, and this way no byte of a page can end the walk early.
 */
#include "crawl/links_impl.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include <libxml/parser.h>
#include <libxml/tree.h>

#include "crawl/charset.h"
#include "crawl/css.h"
#include "base/hashmap.h"
#include "url/url.h"
#include "base/xalloc.h"

/* ------------------------------------------------------------------ */
/* Emitting: clean the reference, resolve it, report each link once.  */

void links_out_init(struct out *o, link_fn fn, void *arg)
{
	memset(o, 0, sizeof *o);
	o->fn = fn;
	o->arg = arg;
}

void links_out_release(struct out *o)
{
	free(o->seen.slots);
	buf_release(&o->ref);
}

/* splitmix64's finaliser: every input bit moves every output bit. */
static uint64_t mix64(uint64_t x)
{
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

/* Two independent 64-bit hashes of url with flags, never both 0. */
static void link_hash(const char *url, unsigned flags, uint64_t h[2])
{
	uint64_t a = 0xcbf29ce484222325ULL, b = 0x9e3779b97f4a7c15ULL;
	for (const unsigned char *p = (const unsigned char *)url; *p; p++) {
		a = (a ^ *p) * 0x100000001b3ULL;      /* FNV-1a */
		b = (b + *p) * 0xff51afd7ed558ccdULL; /* a multiplicative hash */
		b ^= b >> 29;
	}
	h[0] = mix64(a ^ flags);
	h[1] = mix64(b + flags) | (h[0] ? 0 : 1);
}

static void set_insert(struct link_set *set, const uint64_t h[2])
{
	size_t i = h[0] & (set->cap - 1);
	while (set->slots[i][0] || set->slots[i][1])
		i = (i + 1) & (set->cap - 1);
	set->slots[i][0] = h[0];
	set->slots[i][1] = h[1];
	set->count++;
}

/* Adds url with flags to the set; false when it was there already. */
static bool seen_add(struct link_set *set, const char *url, unsigned flags)
{
	uint64_t h[2];
	link_hash(url, flags, h);
	for (size_t i = set->cap ? h[0] & (set->cap - 1) : 0; set->cap; i = (i + 1) & (set->cap - 1)) {
		if (!set->slots[i][0] && !set->slots[i][1])
			break;
		if (set->slots[i][0] == h[0] && set->slots[i][1] == h[1])
			return false;
	}
	if ((set->count + 1) * 10 > set->cap * 8) { /* at most 80% full */
		struct link_set bigger = { NULL, set->cap ? set->cap * 2 : 64, 0 };
		bigger.slots = xcalloc(bigger.cap, sizeof *bigger.slots);
		for (size_t i = 0; i < set->cap; i++)
			if (set->slots[i][0] || set->slots[i][1])
				set_insert(&bigger, set->slots[i]);
		free(set->slots);
		*set = bigger;
	}
	set_insert(set, h);
	return true;
}

/* ASCII whitespace as HTML and CSS read it. */
bool links_ascii_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f';
}

/* A reference with a scheme other than http(s) can never resolve to a URL
 * cgisnap wants; checking here spares url_resolve() a copy of data: URIs. */
static bool foreign_scheme(const char *ref)
{
	if (!isalpha((unsigned char)ref[0]))
		return false;
	size_t n = 1;
	while (isalnum((unsigned char)ref[n]) || ref[n] == '+' || ref[n] == '-' || ref[n] == '.')
		n++;
	if (ref[n] != ':')
		return false;
	return !((n == 4 && !strncasecmp(ref, "http", 4)) || (n == 5 && !strncasecmp(ref, "https", 5)));
}

/* ref[0..len) resolved against base as the HTML URL parser would: C0
 * controls and spaces trimmed at both ends, tabs and newlines removed
 * inside. NULL for an empty or fragment-only reference or a non-http(s)
 * result; the caller frees the URL. scratch holds the cleaned reference. */
char *links_resolve_ref(struct buf *scratch, const char *base, const char *ref, size_t len)
{
	while (len && (unsigned char)ref[0] <= ' ')
		ref++, len--;
	while (len && (unsigned char)ref[len - 1] <= ' ')
		len--;
	buf_reset(scratch);
	for (size_t i = 0; i < len; i++)
		if (ref[i] != '\t' && ref[i] != '\n' && ref[i] != '\r')
			buf_addc(scratch, ref[i]);
	const char *clean = buf_str(scratch);
	if (!*clean || *clean == '#' || foreign_scheme(clean))
		return NULL;
	return url_resolve(base, clean);
}

/* Reports ref[0..len) resolved against base, unless it was reported with
 * the same flags before or is no http(s) link. */
void links_emit(struct out *o, const char *base, const char *ref, size_t len, unsigned flags)
{
	char *abs = links_resolve_ref(&o->ref, base, ref, len);
	if (!abs)
		return;
	if (seen_add(&o->seen, abs, flags))
		o->fn(o->arg, abs, flags);
	free(abs);
}

void links_emit_str(struct out *o, const char *base, const char *ref, unsigned flags)
{
	if (ref)
		links_emit(o, base, ref, strlen(ref), flags);
}

/* CSS (css.c): every reference is a resource of the page. */

struct css_emit {
	struct out *o;
	const char *base;
};

static void css_ref(void *arg, const char *ref, size_t len)
{
	struct css_emit *c = arg;
	links_emit(c->o, c->base, ref, len, LINK_RESOURCE);
}

void links_css_links(struct out *o, const char *base, const char *s, size_t len)
{
	struct css_emit c = { o, base };
	css_scan(s, len, css_ref, &c);
}

int links_from_css(const char *url, const char *body, size_t len, link_fn fn, void *arg)
{
	struct out o;
	links_out_init(&o, fn, arg);
	/* a UTF-8 byte order mark is no part of the first token */
	if (len >= 3 && !memcmp(body, "\xEF\xBB\xBF", 3))
		body += 3, len -= 3;
	links_css_links(&o, url, body, len);
	links_out_release(&o);
	return 0;
}

/* ------------------------------------------------------------------ */
/* Tree helpers.                                                       */

bool links_name_is(xmlNode *n, const char *name)
{
	return !strcmp((const char *)n->name, name);
}

/* The next node after n in document order inside root (NULL at the end). */
xmlNode *links_next_node(xmlNode *n, xmlNode *root)
{
	if (n->type == XML_ELEMENT_NODE && n->children)
		return n->children;
	while (n && n != root) {
		if (n->next)
			return n->next;
		n = n->parent;
	}
	return NULL;
}

/* Concatenates the text and CDATA children of node into out; entity
 * references are left out, so nothing is expanded or loaded. */
void links_text_of(struct buf *out, xmlNode *node)
{
	buf_reset(out);
	for (xmlNode *c = node->children; c; c = c->next)
		if ((c->type == XML_TEXT_NODE || c->type == XML_CDATA_SECTION_NODE) && c->content)
			buf_adds(out, (const char *)c->content);
}

/* The value of node's attribute name (no namespace), or NULL. tmp holds
 * the value when it had to be assembled; the pointer is valid until the
 * next call with the same tmp. */
const char *links_attr(xmlNode *node, const char *name, struct buf *tmp)
{
	for (xmlAttr *a = node->properties; a; a = a->next) {
		if (a->ns || strcmp((const char *)a->name, name))
			continue;
		xmlNode *c = a->children;
		if (!c)
			return "";
		if (!c->next && c->type == XML_TEXT_NODE)
			return c->content ? (const char *)c->content : "";
		links_text_of(tmp, (xmlNode *)a);
		return buf_str(tmp);
	}
	return NULL;
}

/* Does the space-separated token list s contain token (ASCII case-insensitive)? */
bool links_has_token(const char *s, const char *token)
{
	size_t n = strlen(token);
	while (s && *s) {
		while (*s && links_ascii_space(*s))
			s++;
		size_t len = 0;
		while (s[len] && !links_ascii_space(s[len]))
			len++;
		if (len == n && !strncasecmp(s, token, n))
			return true;
		s += len;
	}
	return false;
}

bool links_any_token(const char *s, const char *const *tokens)
{
	for (; *tokens; tokens++)
		if (links_has_token(s, *tokens))
			return true;
	return false;
}

/* ------------------------------------------------------------------ */

/* Does the media type mt[0..n) equal want (ASCII case-insensitive)? */
static bool type_is(const char *mt, size_t n, const char *want)
{
	return strlen(want) == n && !strncasecmp(mt, want, n);
}

int links_extract(const char *content_type, const char *url, const char *body, size_t len,
		  link_fn fn, void *arg, struct page_meta *meta)
{
	if (meta)
		meta->noindex = meta->nofollow = false, meta->canonical[0] = '\0';
	if (!content_type)
		return 0;
	const char *mt = content_type;
	while (links_ascii_space(*mt))
		mt++;
	size_t n = strcspn(mt, ";");
	while (n && links_ascii_space(mt[n - 1]))
		n--;
	char name[CHARSET_NAME_MAX];
	if (type_is(mt, n, "text/html") || type_is(mt, n, "application/xhtml+xml"))
		return links_html(url, body, len, charset_of_type(mt, name), fn, arg, meta);
	if (type_is(mt, n, "text/css"))
		return links_from_css(url, body, len, fn, arg);
	if (type_is(mt, n, "application/rss+xml") || type_is(mt, n, "application/atom+xml") ||
	    type_is(mt, n, "application/rdf+xml") || type_is(mt, n, "application/xml") ||
	    type_is(mt, n, "text/xml"))
		return links_xml(url, body, len, charset_of_type(mt, name), fn, arg);
	return 0;
}

void links_init(void)
{
	xmlInitParser();
}

void links_cleanup(void)
{
	xmlCleanupParser();
}
