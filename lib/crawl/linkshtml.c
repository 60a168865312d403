/* linkshtml.c - the links of an HTML page (links.h, docs/links.md). The
 * tree libxml2 builds in recovery mode is walked twice: once for <base
 * href> and the robots meta (which apply to the whole document), once for
 * links.
 */
#include "crawl/links_impl.h"

#include <ctype.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include <libxml/HTMLparser.h>
#include <libxml/tree.h>

#include "crawl/charset.h"
#include "base/xalloc.h"

/* rel values of <link> (docs/links.md has the table). Resources are
 * fetched like stylesheets: files a page or a publishing client needs,
 * even when they come from a script (WordPress's wlwmanifest.xml and its
 * RSD document xmlrpc.php?rsd). Pages are followed as links. Endpoints
 * are never fetched: pingback is xmlrpc.php, which only answers POST;
 * dns-prefetch and preconnect name an origin, not a document. A rel
 * that names none of these (or is a URL, as WordPress's
 * https://api.w.org/ is) is not followed. */
static const char *const resource_rels[] = {
	"stylesheet", "icon", "apple-touch-icon", "apple-touch-icon-precomposed",
	"apple-touch-startup-image", "mask-icon", "manifest", "preload", "prefetch", "modulepreload",
	"wlwmanifest", "edituri", NULL
};
static const char *const page_rels[] = {
	"alternate", "canonical", "prev", "previous", "next", "first", "last", "up", "index",
	"start", "contents", "author", "license", "help", "search",
	/* WordPress: the /?p=ID form of a post; a redirect worth recording */
	"shortlink", NULL
};
static const char *const endpoint_rels[] = {
	"pingback", "dns-prefetch", "preconnect", "webmention", NULL
};

struct html {
	struct out o;
	const char *base; /* the document's base URL */
	struct buf tmp;   /* attribute values that needed assembling */
	struct buf text;  /* element text (style) */
};

/* Reports each URL of a srcset attribute (HTML's "parse a srcset
 * attribute": a URL is a run of non-space characters, trailing commas
 * end it; descriptors run to the next comma outside parentheses). */
static void srcset_scan(struct out *o, const char *base, const char *s, unsigned flags)
{
	if (!s)
		return;
	while (*s) {
		while (*s && (links_ascii_space(*s) || *s == ','))
			s++;
		if (!*s)
			break;
		const char *u = s;
		while (*s && !links_ascii_space(*s))
			s++;
		size_t n = (size_t)(s - u);
		if (u[n - 1] == ',') {
			while (n && u[n - 1] == ',')
				n--;
		} else {
			int paren = 0;
			for (; *s; s++) {
				if (*s == '(')
					paren++;
				else if (*s == ')' && paren)
					paren--;
				else if (*s == ',' && !paren) {
					s++;
					break;
				}
			}
		}
		links_emit(o, base, u, n, flags);
	}
}

/* The URL of a refresh declaration (HTML's "shared declarative refresh
 * steps"): sets *url and *len and returns true, or false when it has none. */
static bool refresh_url(const char *s, const char **url, size_t *len)
{
	while (links_ascii_space(*s))
		s++;
	const char *digits = s;
	while (isdigit((unsigned char)*s))
		s++;
	if (s == digits && *s != '.')
		return false;
	while (isdigit((unsigned char)*s) || *s == '.')
		s++;
	if (!*s || !(*s == ';' || *s == ',' || links_ascii_space(*s)))
		return false;
	while (links_ascii_space(*s))
		s++;
	if (*s == ';' || *s == ',')
		s++;
	while (links_ascii_space(*s))
		s++;
	if (!*s)
		return false;
	const char *p = s;
	if ((p[0] == 'u' || p[0] == 'U') && (p[1] == 'r' || p[1] == 'R') && (p[2] == 'l' || p[2] == 'L')) {
		p += 3;
		while (links_ascii_space(*p))
			p++;
		if (*p == '=') {
			p++;
			while (links_ascii_space(*p))
				p++;
			s = p;
		}
	}
	char quote = 0;
	if (*s == '"' || *s == '\'')
		quote = *s++;
	*url = s;
	const char *end = quote ? strchr(s, quote) : NULL;
	*len = end ? (size_t)(end - s) : strlen(s);
	return true;
}

/* Reads a robots meta content ("noindex, nofollow", "none") into meta. */
static void robots_meta(const char *content, struct page_meta *meta)
{
	const char *s = content;
	while (s && *s) {
		while (*s && (links_ascii_space(*s) || *s == ','))
			s++;
		size_t n = 0;
		while (s[n] && !links_ascii_space(s[n]) && s[n] != ',')
			n++;
		if ((n == 7 && !strncasecmp(s, "noindex", 7)) || (n == 4 && !strncasecmp(s, "none", 4)))
			meta->noindex = true;
		if ((n == 8 && !strncasecmp(s, "nofollow", 8)) || (n == 4 && !strncasecmp(s, "none", 4)))
			meta->nofollow = true;
		s += n;
	}
}

bool links_name_is(xmlNode *n, const char *name)
{
	return !strcmp((const char *)n->name, name);
}

/* The first walk: the base URL (first <base href>, resolved against the
 * document URL) into *base, and the robots meta into meta. */
static void html_prepass(struct html *h, xmlDoc *doc, const char *url, char **base, struct page_meta *meta)
{
	char *canonical = NULL; /* resolved once the base is known: it may come later */
	for (xmlNode *n = doc->children; n; n = links_next_node(n, (xmlNode *)doc)) {
		if (n->type != XML_ELEMENT_NODE)
			continue;
		if (!*base && links_name_is(n, "base")) {
			const char *href = links_attr(n, "href", &h->tmp);
			if (href) {
				/* an unusable base (javascript:, garbage) leaves the document URL */
				char *b = links_resolve_ref(&h->text, url, href, strlen(href));
				*base = b ? b : xstrdup(url);
			}
		} else if (links_name_is(n, "meta")) {
			const char *name = links_attr(n, "name", &h->tmp);
			if (name && (!strcasecmp(name, "robots") || !strcasecmp(name, "cgisnap")))
				robots_meta(links_attr(n, "content", &h->tmp), meta);
		} else if (!canonical && links_name_is(n, "link") &&
			   links_has_token(links_attr(n, "rel", &h->tmp), "canonical")) {
			const char *href = links_attr(n, "href", &h->tmp);
			if (href)
				canonical = xstrdup(href);
		}
	}
	if (canonical) {
		char *abs = links_resolve_ref(&h->text, *base ? *base : url, canonical, strlen(canonical));
		if (abs && strlen(abs) < sizeof meta->canonical)
			strcpy(meta->canonical, abs);
		free(abs);
		free(canonical);
	}
}

/* How html_refs[] reads an attribute, beside the link's own flags. */
#define REF_SRCSET 0x100       /* a srcset: every URL in it */
#define REF_REL_NOFOLLOW 0x200 /* LINK_NOFOLLOW when the element's rel says nofollow */
#define REF_IMAGE_INPUT 0x400  /* only when the element's type is "image" */
#define REF_LINK_FLAGS (LINK_NOFOLLOW | LINK_RESOURCE)
_Static_assert(!((REF_SRCSET | REF_REL_NOFOLLOW | REF_IMAGE_INPUT) & REF_LINK_FLAGS),
	       "REF_ flags apart from the link flags");

/* The attributes that hold URLs, element by element, in the order they are
 * reported; <link>, <meta> and <style> need code of their own
 * (html_link, html_refresh, html_style), and every element's style
 * attribute is read as CSS. */
static const struct html_ref {
	const char *tag;
	const char *attr;
	unsigned flags; /* link flags and REF_ */
} html_refs[] = {
	{ "a", "href", REF_REL_NOFOLLOW },
	{ "area", "href", REF_REL_NOFOLLOW },
	{ "audio", "src", LINK_RESOURCE },
	{ "body", "background", LINK_RESOURCE },
	{ "embed", "src", LINK_RESOURCE },
	{ "frame", "src", LINK_RESOURCE },
	{ "iframe", "src", LINK_RESOURCE },
	{ "image", "href", LINK_RESOURCE }, /* SVG */
	{ "image", "xlink:href", LINK_RESOURCE },
	{ "img", "src", LINK_RESOURCE },
	{ "img", "srcset", LINK_RESOURCE | REF_SRCSET },
	/* lazy-loading scripts move the real image here */
	{ "img", "data-src", LINK_RESOURCE },
	{ "img", "data-srcset", LINK_RESOURCE | REF_SRCSET },
	{ "input", "src", LINK_RESOURCE | REF_IMAGE_INPUT },
	{ "object", "data", LINK_RESOURCE },
	{ "script", "src", LINK_RESOURCE },
	{ "source", "src", LINK_RESOURCE },
	{ "source", "srcset", LINK_RESOURCE | REF_SRCSET },
	{ "source", "data-srcset", LINK_RESOURCE | REF_SRCSET },
	{ "table", "background", LINK_RESOURCE },
	{ "td", "background", LINK_RESOURCE },
	{ "th", "background", LINK_RESOURCE },
	{ "track", "src", LINK_RESOURCE },
	{ "use", "href", LINK_RESOURCE }, /* SVG */
	{ "use", "xlink:href", LINK_RESOURCE },
	{ "video", "src", LINK_RESOURCE },
	{ "video", "poster", LINK_RESOURCE },
};

/* Reports what the html_refs[] entry r names in n. */
static void html_ref(struct html *h, xmlNode *n, const struct html_ref *r)
{
	unsigned flags = r->flags & REF_LINK_FLAGS;
	const char *v;

	if (r->flags & REF_REL_NOFOLLOW) {
		if (links_has_token(links_attr(n, "rel", &h->tmp), "nofollow"))
			flags |= LINK_NOFOLLOW;
	}
	if (r->flags & REF_IMAGE_INPUT) {
		v = links_attr(n, "type", &h->tmp);
		if (!v || strcasecmp(v, "image"))
			return;
	}
	v = links_attr(n, r->attr, &h->tmp);
	if (r->flags & REF_SRCSET)
		srcset_scan(&h->o, h->base, v, flags);
	else
		links_emit_str(&h->o, h->base, v, flags);
}

/* <link href>: a resource or a page by its rel, never an endpoint. */
static void html_link(struct html *h, xmlNode *n)
{
	const char *rel = links_attr(n, "rel", &h->tmp);
	if (!rel || links_any_token(rel, endpoint_rels) || strstr(rel, "://"))
		return;
	bool resource = links_any_token(rel, resource_rels);
	if (!resource && !links_any_token(rel, page_rels))
		return;
	const char *v = links_attr(n, "type", &h->tmp);
	size_t tn = v ? strcspn(v, ";") : 0;
	while (tn && links_ascii_space(v[tn - 1]))
		tn--;
	/* an OpenSearch description is a file the browser reads, no page */
	if (!resource && links_has_token(rel, "search") && v && tn == 37 &&
	    !strncasecmp(v, "application/opensearchdescription+xml", 37))
		resource = true;
	if (!resource && links_has_token(rel, "alternate")) {
		/* JSON (REST API, oEmbed, ActivityPub) and XML oEmbed endpoints */
		if (v && ((tn >= 16 && !strncasecmp(v, "application/json", 16)) ||
			  (tn >= 5 && !strncasecmp(v + tn - 5, "+json", 5)) ||
			  (tn >= 7 && !strncasecmp(v + tn - 7, "+oembed", 7))))
			return;
	}
	unsigned flags = resource ? LINK_RESOURCE : 0;
	links_emit_str(&h->o, h->base, links_attr(n, "href", &h->tmp), flags);
	if (resource)
		srcset_scan(&h->o, h->base, links_attr(n, "imagesrcset", &h->tmp), flags);
}

/* <meta http-equiv=refresh content="5; url=...">: a page link. */
static void html_refresh(struct html *h, xmlNode *n)
{
	const char *v = links_attr(n, "http-equiv", &h->tmp);
	if (!v || strcasecmp(v, "refresh"))
		return;
	const char *url;
	size_t len;
	v = links_attr(n, "content", &h->tmp);
	if (v && refresh_url(v, &url, &len))
		links_emit(&h->o, h->base, url, len, 0);
}

/* <style> (of type text/css, or none): its text is CSS. */
static void html_style(struct html *h, xmlNode *n)
{
	const char *v = links_attr(n, "type", &h->tmp);
	if (v && *v && strncasecmp(v, "text/css", 8))
		return;
	links_text_of(&h->text, n);
	links_css_links(&h->o, h->base, h->text.data ? h->text.data : "", h->text.len);
}

static void html_element(struct html *h, xmlNode *n)
{
	const char *name = (const char *)n->name;

	for (size_t i = 0; i < sizeof html_refs / sizeof html_refs[0]; i++) {
		const struct html_ref *r = &html_refs[i];
		if (r->tag[0] == name[0] && !strcmp(r->tag, name))
			html_ref(h, n, r);
	}
	if (!strcmp(name, "link"))
		html_link(h, n);
	else if (!strcmp(name, "meta"))
		html_refresh(h, n);
	else if (!strcmp(name, "style"))
		html_style(h, n);
	const char *v = links_attr(n, "style", &h->tmp);
	if (v && *v)
		links_css_links(&h->o, h->base, v, strlen(v));
}

/* links_from_html with the charset the HTTP header named (or NULL). */
int links_html(const char *url, const char *body, size_t len, const char *charset,
	       link_fn fn, void *arg, struct page_meta *meta)
{
	struct page_meta dummy;
	struct buf text = BUF_INIT;
	struct html h;
	char *base = NULL;

	if (!meta)
		meta = &dummy;
	meta->noindex = meta->nofollow = false;
	meta->canonical[0] = '\0';
	charset_decode(&text, body, len, charset, CHARSET_HTML);
	if (text.len > INT_MAX) {
		buf_release(&text);
		return -1;
	}
	xmlDoc *doc = htmlReadMemory(buf_str(&text), (int)text.len, url, "UTF-8",
				     HTML_PARSE_RECOVER | HTML_PARSE_NOERROR | HTML_PARSE_NOWARNING |
					     HTML_PARSE_NONET | HTML_PARSE_COMPACT);
	if (!doc) {
		/* libxml2 builds no tree for an empty or all-blank page: no links */
		size_t i = 0;
		while (i < text.len && (unsigned char)text.data[i] <= ' ')
			i++;
		buf_release(&text);
		return i < text.len ? -1 : 0;
	}
	buf_release(&text);

	memset(&h, 0, sizeof h);
	links_out_init(&h.o, fn, arg);
	html_prepass(&h, doc, url, &base, meta);
	h.base = base ? base : url;
	for (xmlNode *n = doc->children; n; n = links_next_node(n, (xmlNode *)doc))
		if (n->type == XML_ELEMENT_NODE)
			html_element(&h, n);

	free(base);
	buf_release(&h.tmp);
	buf_release(&h.text);
	links_out_release(&h.o);
	xmlFreeDoc(doc);
	return 0;
}

int links_from_html(const char *url, const char *body, size_t len, link_fn fn, void *arg,
		    struct page_meta *meta)
{
	return links_html(url, body, len, NULL, fn, arg, meta);
}
