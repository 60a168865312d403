/* links.c - the URLs an HTML, CSS or XML document refers to (links.h).
 *
 * HTML and XML are first decoded to clean UTF-8 (charset.c: BOM, HTTP
 * charset, <meta> or XML declaration, or a guess), invalid bytes and NULs
 * becoming U+FFFD as in a browser: libxml2 stops at a NUL and at a failed
 * conversion, and this way no byte of a page can end the walk early. The
 * HTML tree libxml2 builds in recovery mode is then walked twice: once for
 * <base href> and the robots meta (which apply to the whole document),
 * once for links.
 */
#include "crawl/links.h"

#include <ctype.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include <libxml/HTMLparser.h>
#include <libxml/parser.h>
#include <libxml/tree.h>

#include "crawl/charset.h"
#include "crawl/css.h"
#include "base/hashmap.h"
#include "url/url.h"
#include "base/xalloc.h"

#define ATOM_NS "http://www.w3.org/2005/Atom"
#define RDF_NS "http://www.w3.org/1999/02/22-rdf-syntax-ns#"

/* ------------------------------------------------------------------ */
/* Emitting: clean the reference, resolve it, report each link once.  */

struct out {
	link_fn fn;
	void *arg;
	struct hashmap seen; /* "F url" for each link reported, F the flags */
	struct buf ref;      /* scratch: the reference being cleaned */
	struct buf key;      /* scratch: the dedup key */
};

static void out_init(struct out *o, link_fn fn, void *arg)
{
	memset(o, 0, sizeof *o);
	o->fn = fn;
	o->arg = arg;
}

static void out_release(struct out *o)
{
	hashmap_release(&o->seen);
	buf_release(&o->ref);
	buf_release(&o->key);
}

/* Adds key to the set; returns false when it was there already. The value
 * only has to be non-NULL. */
static bool seen_add(struct hashmap *seen, const char *key)
{
	return hashmap_put(seen, key, seen) == NULL;
}

/* ASCII whitespace as HTML and CSS read it. */
static bool ascii_space(char c)
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
static char *resolve_ref(struct buf *scratch, const char *base, const char *ref, size_t len)
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
static void emit(struct out *o, const char *base, const char *ref, size_t len, unsigned flags)
{
	char *abs = resolve_ref(&o->ref, base, ref, len);
	if (!abs)
		return;
	buf_reset(&o->key);
	buf_addf(&o->key, "%u %s", flags, abs);
	if (seen_add(&o->seen, o->key.data))
		o->fn(o->arg, abs, flags);
	free(abs);
}

static void emit_str(struct out *o, const char *base, const char *ref, unsigned flags)
{
	if (ref)
		emit(o, base, ref, strlen(ref), flags);
}

/* CSS (css.c): every reference is a resource of the page. */

struct css_emit {
	struct out *o;
	const char *base;
};

static void css_ref(void *arg, const char *ref, size_t len)
{
	struct css_emit *c = arg;
	emit(c->o, c->base, ref, len, LINK_RESOURCE);
}

static void css_links(struct out *o, const char *base, const char *s, size_t len)
{
	struct css_emit c = { o, base };
	css_scan(s, len, css_ref, &c);
}

int links_from_css(const char *url, const char *body, size_t len, link_fn fn, void *arg)
{
	struct out o;
	out_init(&o, fn, arg);
	/* a UTF-8 byte order mark is no part of the first token */
	if (len >= 3 && !memcmp(body, "\xEF\xBB\xBF", 3))
		body += 3, len -= 3;
	css_links(&o, url, body, len);
	out_release(&o);
	return 0;
}

/* ------------------------------------------------------------------ */
/* Tree helpers.                                                       */

/* The next node after n in document order inside root (NULL at the end). */
static xmlNode *next_node(xmlNode *n, xmlNode *root)
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
static void text_of(struct buf *out, xmlNode *node)
{
	buf_reset(out);
	for (xmlNode *c = node->children; c; c = c->next)
		if ((c->type == XML_TEXT_NODE || c->type == XML_CDATA_SECTION_NODE) && c->content)
			buf_adds(out, (const char *)c->content);
}

/* The value of node's attribute name (no namespace), or NULL. tmp holds
 * the value when it had to be assembled; the pointer is valid until the
 * next call with the same tmp. */
static const char *attr(xmlNode *node, const char *name, struct buf *tmp)
{
	for (xmlAttr *a = node->properties; a; a = a->next) {
		if (a->ns || strcmp((const char *)a->name, name))
			continue;
		xmlNode *c = a->children;
		if (!c)
			return "";
		if (!c->next && c->type == XML_TEXT_NODE)
			return c->content ? (const char *)c->content : "";
		text_of(tmp, (xmlNode *)a);
		return buf_str(tmp);
	}
	return NULL;
}

/* Does the space-separated token list s contain token (ASCII case-insensitive)? */
static bool has_token(const char *s, const char *token)
{
	size_t n = strlen(token);
	while (s && *s) {
		while (*s && ascii_space(*s))
			s++;
		size_t len = 0;
		while (s[len] && !ascii_space(s[len]))
			len++;
		if (len == n && !strncasecmp(s, token, n))
			return true;
		s += len;
	}
	return false;
}

static bool any_token(const char *s, const char *const *tokens)
{
	for (; *tokens; tokens++)
		if (has_token(s, *tokens))
			return true;
	return false;
}

/* ------------------------------------------------------------------ */
/* HTML.                                                               */

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
		while (*s && (ascii_space(*s) || *s == ','))
			s++;
		if (!*s)
			break;
		const char *u = s;
		while (*s && !ascii_space(*s))
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
		emit(o, base, u, n, flags);
	}
}

/* The URL of a refresh declaration (HTML's "shared declarative refresh
 * steps"): sets *url and *len and returns true, or false when it has none. */
static bool refresh_url(const char *s, const char **url, size_t *len)
{
	while (ascii_space(*s))
		s++;
	const char *digits = s;
	while (isdigit((unsigned char)*s))
		s++;
	if (s == digits && *s != '.')
		return false;
	while (isdigit((unsigned char)*s) || *s == '.')
		s++;
	if (!*s || !(*s == ';' || *s == ',' || ascii_space(*s)))
		return false;
	while (ascii_space(*s))
		s++;
	if (*s == ';' || *s == ',')
		s++;
	while (ascii_space(*s))
		s++;
	if (!*s)
		return false;
	const char *p = s;
	if ((p[0] == 'u' || p[0] == 'U') && (p[1] == 'r' || p[1] == 'R') && (p[2] == 'l' || p[2] == 'L')) {
		p += 3;
		while (ascii_space(*p))
			p++;
		if (*p == '=') {
			p++;
			while (ascii_space(*p))
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
		while (*s && (ascii_space(*s) || *s == ','))
			s++;
		size_t n = 0;
		while (s[n] && !ascii_space(s[n]) && s[n] != ',')
			n++;
		if ((n == 7 && !strncasecmp(s, "noindex", 7)) || (n == 4 && !strncasecmp(s, "none", 4)))
			meta->noindex = true;
		if ((n == 8 && !strncasecmp(s, "nofollow", 8)) || (n == 4 && !strncasecmp(s, "none", 4)))
			meta->nofollow = true;
		s += n;
	}
}

static bool name_is(xmlNode *n, const char *name)
{
	return !strcmp((const char *)n->name, name);
}

/* The first walk: the base URL (first <base href>, resolved against the
 * document URL) into *base, and the robots meta into meta. */
static void html_prepass(struct html *h, xmlDoc *doc, const char *url, char **base, struct page_meta *meta)
{
	for (xmlNode *n = doc->children; n; n = next_node(n, (xmlNode *)doc)) {
		if (n->type != XML_ELEMENT_NODE)
			continue;
		if (!*base && name_is(n, "base")) {
			const char *href = attr(n, "href", &h->tmp);
			if (href) {
				/* an unusable base (javascript:, garbage) leaves the document URL */
				char *b = resolve_ref(&h->text, url, href, strlen(href));
				*base = b ? b : xstrdup(url);
			}
		} else if (name_is(n, "meta")) {
			const char *name = attr(n, "name", &h->tmp);
			if (name && (!strcasecmp(name, "robots") || !strcasecmp(name, "cgisnap")))
				robots_meta(attr(n, "content", &h->tmp), meta);
		}
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
		if (has_token(attr(n, "rel", &h->tmp), "nofollow"))
			flags |= LINK_NOFOLLOW;
	}
	if (r->flags & REF_IMAGE_INPUT) {
		v = attr(n, "type", &h->tmp);
		if (!v || strcasecmp(v, "image"))
			return;
	}
	v = attr(n, r->attr, &h->tmp);
	if (r->flags & REF_SRCSET)
		srcset_scan(&h->o, h->base, v, flags);
	else
		emit_str(&h->o, h->base, v, flags);
}

/* <link href>: a resource or a page by its rel, never an endpoint. */
static void html_link(struct html *h, xmlNode *n)
{
	const char *rel = attr(n, "rel", &h->tmp);
	if (!rel || any_token(rel, endpoint_rels) || strstr(rel, "://"))
		return;
	bool resource = any_token(rel, resource_rels);
	if (!resource && !any_token(rel, page_rels))
		return;
	const char *v = attr(n, "type", &h->tmp);
	size_t tn = v ? strcspn(v, ";") : 0;
	while (tn && ascii_space(v[tn - 1]))
		tn--;
	/* an OpenSearch description is a file the browser reads, no page */
	if (!resource && has_token(rel, "search") && v && tn == 37 &&
	    !strncasecmp(v, "application/opensearchdescription+xml", 37))
		resource = true;
	if (!resource && has_token(rel, "alternate")) {
		/* JSON (REST API, oEmbed, ActivityPub) and XML oEmbed endpoints */
		if (v && ((tn >= 16 && !strncasecmp(v, "application/json", 16)) ||
			  (tn >= 5 && !strncasecmp(v + tn - 5, "+json", 5)) ||
			  (tn >= 7 && !strncasecmp(v + tn - 7, "+oembed", 7))))
			return;
	}
	unsigned flags = resource ? LINK_RESOURCE : 0;
	emit_str(&h->o, h->base, attr(n, "href", &h->tmp), flags);
	if (resource)
		srcset_scan(&h->o, h->base, attr(n, "imagesrcset", &h->tmp), flags);
}

/* <meta http-equiv=refresh content="5; url=...">: a page link. */
static void html_refresh(struct html *h, xmlNode *n)
{
	const char *v = attr(n, "http-equiv", &h->tmp);
	if (!v || strcasecmp(v, "refresh"))
		return;
	const char *url;
	size_t len;
	v = attr(n, "content", &h->tmp);
	if (v && refresh_url(v, &url, &len))
		emit(&h->o, h->base, url, len, 0);
}

/* <style> (of type text/css, or none): its text is CSS. */
static void html_style(struct html *h, xmlNode *n)
{
	const char *v = attr(n, "type", &h->tmp);
	if (v && *v && strncasecmp(v, "text/css", 8))
		return;
	text_of(&h->text, n);
	css_links(&h->o, h->base, h->text.data ? h->text.data : "", h->text.len);
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
	const char *v = attr(n, "style", &h->tmp);
	if (v && *v)
		css_links(&h->o, h->base, v, strlen(v));
}

/* links_from_html with the charset the HTTP header named (or NULL). */
static int html_links(const char *url, const char *body, size_t len, const char *charset,
		      link_fn fn, void *arg, struct page_meta *meta)
{
	struct page_meta dummy;
	struct buf text = BUF_INIT;
	struct html h;
	char *base = NULL;

	if (!meta)
		meta = &dummy;
	meta->noindex = meta->nofollow = false;
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
	out_init(&h.o, fn, arg);
	html_prepass(&h, doc, url, &base, meta);
	h.base = base ? base : url;
	for (xmlNode *n = doc->children; n; n = next_node(n, (xmlNode *)doc))
		if (n->type == XML_ELEMENT_NODE)
			html_element(&h, n);

	free(base);
	buf_release(&h.tmp);
	buf_release(&h.text);
	out_release(&h.o);
	xmlFreeDoc(doc);
	return 0;
}

int links_from_html(const char *url, const char *body, size_t len, link_fn fn, void *arg,
		    struct page_meta *meta)
{
	return html_links(url, body, len, NULL, fn, arg, meta);
}

/* ------------------------------------------------------------------ */
/* XML: RSS, Atom, sitemaps.                                           */

/* The base URL for node: the xml:base attributes of it and its ancestors
 * resolved in turn against the document URL. The caller frees it. */
static char *xml_base(xmlNode *node, const char *url)
{
	if (!node || node->type != XML_ELEMENT_NODE)
		return xstrdup(url);
	char *outer = xml_base(node->parent, url);
	xmlChar *b = xmlGetNsProp(node, (const xmlChar *)"base", XML_XML_NAMESPACE);
	if (!b)
		return outer;
	char *resolved = url_resolve(outer, (const char *)b);
	xmlFree(b);
	if (!resolved)
		return outer;
	free(outer);
	return resolved;
}

/* The vocabularies whose elements hold links, by namespace URI: an
 * element is read by its namespace, never by its prefix or its local name
 * alone (WordPress feeds carry <slash:comments>3</slash:comments>, a count,
 * beside <comments>, a URL). Elements of any other namespace hold none. */
enum vocab {
	V_NONE,    /* no namespace (or Userland's): RSS 0.91-2.0, a sitemap without xmlns */
	V_RSS1,    /* RSS 1.0 and 0.90 (RDF) */
	V_RDF,
	V_ATOM,
	V_WFW,     /* wfw:commentRss, an item's comment feed */
	V_SITEMAP,
	V_IMAGE,   /* image sitemaps */
	V_VIDEO,   /* video sitemaps */
	V_XHTML,   /* xhtml:link hreflang alternates in sitemaps */
	V_OTHER
};

static const struct {
	const char *uri;
	enum vocab v;
} vocabs[] = {
	/* Userland's RSS 2.0 namespace, which a few feeds still declare */
	{ "http://backend.userland.com/rss2", V_NONE },
	{ "http://purl.org/rss/1.0/", V_RSS1 },
	{ "http://my.netscape.com/rdf/simple/0.9/", V_RSS1 },
	{ RDF_NS, V_RDF },
	{ ATOM_NS, V_ATOM },
	{ "http://wellformedweb.org/CommentAPI/", V_WFW },
	{ "http://www.sitemaps.org/schemas/sitemap/0.9", V_SITEMAP },
	{ "http://www.google.com/schemas/sitemap/0.9", V_SITEMAP },
	{ "http://www.google.com/schemas/sitemap/0.84", V_SITEMAP },
	{ "http://www.google.com/schemas/sitemap-image/1.1", V_IMAGE },
	{ "http://www.google.com/schemas/sitemap-video/1.1", V_VIDEO },
	{ "http://www.w3.org/1999/xhtml", V_XHTML },
};

static enum vocab vocab_of(const xmlNode *n)
{
	if (!n->ns || !n->ns->href)
		return V_NONE;
	for (size_t i = 0; i < sizeof vocabs / sizeof vocabs[0]; i++)
		if (!strcmp((const char *)n->ns->href, vocabs[i].uri))
			return vocabs[i].v;
	return V_OTHER;
}

/* Is n's parent the element name of vocabulary v? */
static bool parent_is(xmlNode *n, enum vocab v, const char *name)
{
	return n->parent && n->parent->type == XML_ELEMENT_NODE && vocab_of(n->parent) == v &&
	       name_is(n->parent, name);
}

/* The value of node's attribute name in the RDF namespace (rdf:about,
 * rdf:resource), or NULL; the caller frees it with xmlFree. */
static xmlChar *rdf_attr(xmlNode *node, const char *name)
{
	return xmlGetNsProp(node, (const xmlChar *)name, (const xmlChar *)RDF_NS);
}

/* Emits text (the element's own) or value against node's base URL. */
static void xml_emit(struct out *o, xmlNode *node, const char *url, const char *value, size_t len,
		     unsigned flags)
{
	char *base = xml_base(node, url);
	emit(o, base, value, len, flags);
	free(base);
}

/* The href pseudo-attribute of an <?xml-stylesheet?> instruction. */
static void xml_stylesheet(struct out *o, xmlNode *pi, const char *url)
{
	const char *s = (const char *)pi->content;
	const char *p = s ? strstr(s, "href") : NULL;
	if (!p)
		return;
	p += 4;
	while (ascii_space(*p))
		p++;
	if (*p++ != '=')
		return;
	while (ascii_space(*p))
		p++;
	if (*p != '"' && *p != '\'')
		return;
	const char *end = strchr(p + 1, *p);
	if (end)
		emit(o, url, p + 1, (size_t)(end - p - 1), LINK_RESOURCE);
}

/* Flags for an Atom <link rel>, or -1 when it is not followed (RFC 4287
 * and the IANA registry: publishing and WebSub endpoints, licences and
 * unknown relations are no part of the site to crawl). */
static int atom_rel_flags(const char *rel)
{
	static const char *const pages[] = { "alternate", "self", "related", "via", "replies",
					     "first", "last", "next", "previous", "prev", "current",
					     "prev-archive", "next-archive", NULL };
	static const char iana[] = "http://www.iana.org/assignments/relation/";
	if (!rel)
		return 0; /* alternate */
	while (ascii_space(*rel))
		rel++;
	if (!strncasecmp(rel, iana, sizeof iana - 1))
		rel += sizeof iana - 1;
	size_t n = strlen(rel);
	while (n && ascii_space(rel[n - 1]))
		n--;
	if (n == 0)
		return 0;
	if (n == 9 && !strncasecmp(rel, "enclosure", 9))
		return LINK_RESOURCE;
	for (const char *const *p = pages; *p; p++)
		if (strlen(*p) == n && !strncasecmp(rel, *p, n))
			return 0;
	return -1;
}

/* The element text of n against its base, with flags. */
static void xml_emit_text(struct out *o, xmlNode *n, const char *url, struct buf *text, unsigned flags)
{
	text_of(text, n);
	xml_emit(o, n, url, buf_str(text), text->len, flags);
}

static void xml_emit_attr(struct out *o, xmlNode *n, const char *url, const char *v, unsigned flags)
{
	if (v)
		xml_emit(o, n, url, v, strlen(v), flags);
}

/* RSS 0.91-2.0 (no namespace), and a sitemap that declares none. */
static void xml_rss2(struct out *o, xmlNode *n, const char *url, struct buf *text, struct buf *tmp)
{
	const char *v;
	if (name_is(n, "link") || name_is(n, "comments") || name_is(n, "loc")) {
		xml_emit_text(o, n, url, text, 0);
	} else if (name_is(n, "enclosure")) {
		xml_emit_attr(o, n, url, attr(n, "url", tmp), LINK_RESOURCE);
	} else if (name_is(n, "url") && parent_is(n, V_NONE, "image")) {
		xml_emit_text(o, n, url, text, LINK_RESOURCE);
	} else if (name_is(n, "guid")) {
		v = attr(n, "isPermaLink", tmp);
		size_t vn = v ? strlen(v) : 0;
		while (v && ascii_space(*v))
			v++, vn--;
		while (vn && ascii_space(v[vn - 1]))
			vn--;
		if (v && !(vn == 4 && !strncasecmp(v, "true", 4)))
			return;
		text_of(text, n);
		const char *t = buf_str(text);
		while (ascii_space(*t))
			t++;
		if (!strncasecmp(t, "http://", 7) || !strncasecmp(t, "https://", 8))
			xml_emit(o, n, url, t, strlen(t), 0);
	}
}

/* RSS 1.0 and 0.90: <link> text, <image><url>, and the rdf:about of
 * channel, item and image (the item's page, the image's file), the
 * rdf:resource of <items><rdf:Seq><rdf:li> (an item's page). */
static void xml_rss1(struct out *o, xmlNode *n, const char *url, struct buf *text)
{
	if (name_is(n, "link")) {
		xml_emit_text(o, n, url, text, 0);
	} else if (name_is(n, "url") && parent_is(n, V_RSS1, "image")) {
		xml_emit_text(o, n, url, text, LINK_RESOURCE);
	} else if (name_is(n, "channel") || name_is(n, "item") || name_is(n, "image")) {
		unsigned flags = name_is(n, "image") ? LINK_RESOURCE : 0;
		xmlChar *about = rdf_attr(n, "about");
		if (!about && name_is(n, "image"))
			about = rdf_attr(n, "resource");
		if (about)
			xml_emit_attr(o, n, url, (const char *)about, flags);
		xmlFree(about);
	}
}

static void xml_element(struct out *o, xmlNode *n, const char *url, struct buf *text, struct buf *tmp)
{
	int flags;

	switch (vocab_of(n)) {
	case V_NONE:
		xml_rss2(o, n, url, text, tmp);
		break;
	case V_RSS1:
		xml_rss1(o, n, url, text);
		break;
	case V_RDF:
		if (name_is(n, "li") && n->parent && parent_is(n->parent, V_RSS1, "items")) {
			xmlChar *r = rdf_attr(n, "resource");
			xml_emit_attr(o, n, url, (const char *)r, 0);
			xmlFree(r);
		}
		break;
	case V_ATOM:
		if (name_is(n, "link")) {
			flags = atom_rel_flags(attr(n, "rel", tmp));
			if (flags >= 0)
				xml_emit_attr(o, n, url, attr(n, "href", tmp), (unsigned)flags);
		} else if (name_is(n, "icon") || name_is(n, "logo")) {
			xml_emit_text(o, n, url, text, LINK_RESOURCE);
		} else if (name_is(n, "content")) {
			xml_emit_attr(o, n, url, attr(n, "src", tmp), 0);
		}
		break;
	case V_WFW:
		/* wfw:comment is the Comment API's POST endpoint */
		if (name_is(n, "commentRss"))
			xml_emit_text(o, n, url, text, 0);
		break;
	case V_SITEMAP:
		if (name_is(n, "loc"))
			xml_emit_text(o, n, url, text, 0);
		break;
	case V_IMAGE:
		if (name_is(n, "loc"))
			xml_emit_text(o, n, url, text, LINK_RESOURCE);
		break;
	case V_VIDEO:
		if (name_is(n, "thumbnail_loc") || name_is(n, "content_loc"))
			xml_emit_text(o, n, url, text, LINK_RESOURCE);
		break;
	case V_XHTML:
		if (name_is(n, "link") && has_token(attr(n, "rel", tmp), "alternate"))
			xml_emit_attr(o, n, url, attr(n, "href", tmp), 0);
		break;
	case V_OTHER:
		break;
	}
}

/* links_from_xml with the charset the HTTP header named (or NULL). */
static int xml_links(const char *url, const char *body, size_t len, const char *charset, link_fn fn,
		     void *arg)
{
	struct buf text = BUF_INIT;
	int ret = 0;

	/* clean UTF-8 as for HTML: libxml2 gives up on a NUL byte */
	charset_decode(&text, body, len, charset, CHARSET_XML);
	if (text.len == 0)
		goto out;
	if (text.len > INT_MAX) {
		ret = -1;
		goto out;
	}
	/* No XML_PARSE_NOENT, DTDLOAD or DTDVALID: external entities and DTDs
	 * are never read, entity references stay references (text_of skips
	 * them). IGNORE_ENC: the text is UTF-8 now, whatever its declaration says. */
	xmlDoc *doc = xmlReadMemory(text.data, (int)text.len, url, "UTF-8",
				    XML_PARSE_RECOVER | XML_PARSE_NONET | XML_PARSE_NOERROR |
					    XML_PARSE_NOWARNING | XML_PARSE_NOCDATA | XML_PARSE_IGNORE_ENC);
	if (!doc) {
		ret = -1;
		goto out;
	}
	xmlNode *root = xmlDocGetRootElement(doc);
	if (root && !strcmp((const char *)root->name, "html")) {
		/* XHTML served as XML */
		xmlFreeDoc(doc);
		ret = html_links(url, text.data, text.len, "utf-8", fn, arg, NULL);
		goto out;
	}
	struct out o;
	struct buf val = BUF_INIT, tmp = BUF_INIT;
	out_init(&o, fn, arg);
	for (xmlNode *n = doc->children; n; n = next_node(n, (xmlNode *)doc)) {
		if (n->type == XML_ELEMENT_NODE)
			xml_element(&o, n, url, &val, &tmp);
		else if (n->type == XML_PI_NODE && !strcmp((const char *)n->name, "xml-stylesheet"))
			xml_stylesheet(&o, n, url);
	}
	buf_release(&val);
	buf_release(&tmp);
	out_release(&o);
	xmlFreeDoc(doc);
out:
	buf_release(&text);
	return ret;
}

int links_from_xml(const char *url, const char *body, size_t len, link_fn fn, void *arg)
{
	return xml_links(url, body, len, NULL, fn, arg);
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
		meta->noindex = meta->nofollow = false;
	if (!content_type)
		return 0;
	const char *mt = content_type;
	while (ascii_space(*mt))
		mt++;
	size_t n = strcspn(mt, ";");
	while (n && ascii_space(mt[n - 1]))
		n--;
	char name[CHARSET_NAME_MAX];
	if (type_is(mt, n, "text/html") || type_is(mt, n, "application/xhtml+xml"))
		return html_links(url, body, len, charset_of_type(mt, name), fn, arg, meta);
	if (type_is(mt, n, "text/css"))
		return links_from_css(url, body, len, fn, arg);
	if (type_is(mt, n, "application/rss+xml") || type_is(mt, n, "application/atom+xml") ||
	    type_is(mt, n, "application/rdf+xml") || type_is(mt, n, "application/xml") ||
	    type_is(mt, n, "text/xml"))
		return xml_links(url, body, len, charset_of_type(mt, name), fn, arg);
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
