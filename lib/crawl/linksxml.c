/* linksxml.c - the links of an XML document: RSS 1.0 and 2.0, Atom,
 * sitemaps and their indexes, xml-stylesheet (links.h, docs/links.md). */
#include "crawl/links_impl.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include <libxml/parser.h>
#include <libxml/tree.h>

#include "crawl/charset.h"
#include "url/url.h"
#include "base/xalloc.h"

#define ATOM_NS "http://www.w3.org/2005/Atom"
#define RDF_NS "http://www.w3.org/1999/02/22-rdf-syntax-ns#"

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
	       links_name_is(n->parent, name);
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
	links_emit(o, base, value, len, flags);
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
	while (links_ascii_space(*p))
		p++;
	if (*p++ != '=')
		return;
	while (links_ascii_space(*p))
		p++;
	if (*p != '"' && *p != '\'')
		return;
	const char *end = strchr(p + 1, *p);
	if (end)
		links_emit(o, url, p + 1, (size_t)(end - p - 1), LINK_RESOURCE);
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
	while (links_ascii_space(*rel))
		rel++;
	if (!strncasecmp(rel, iana, sizeof iana - 1))
		rel += sizeof iana - 1;
	size_t n = strlen(rel);
	while (n && links_ascii_space(rel[n - 1]))
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
	links_text_of(text, n);
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
	if (links_name_is(n, "link") || links_name_is(n, "comments") || links_name_is(n, "loc")) {
		xml_emit_text(o, n, url, text, 0);
	} else if (links_name_is(n, "enclosure")) {
		xml_emit_attr(o, n, url, links_attr(n, "url", tmp), LINK_RESOURCE);
	} else if (links_name_is(n, "url") && parent_is(n, V_NONE, "image")) {
		xml_emit_text(o, n, url, text, LINK_RESOURCE);
	} else if (links_name_is(n, "guid")) {
		v = links_attr(n, "isPermaLink", tmp);
		size_t vn = v ? strlen(v) : 0;
		while (v && links_ascii_space(*v))
			v++, vn--;
		while (vn && links_ascii_space(v[vn - 1]))
			vn--;
		if (v && !(vn == 4 && !strncasecmp(v, "true", 4)))
			return;
		links_text_of(text, n);
		const char *t = buf_str(text);
		while (links_ascii_space(*t))
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
	if (links_name_is(n, "link")) {
		xml_emit_text(o, n, url, text, 0);
	} else if (links_name_is(n, "url") && parent_is(n, V_RSS1, "image")) {
		xml_emit_text(o, n, url, text, LINK_RESOURCE);
	} else if (links_name_is(n, "channel") || links_name_is(n, "item") || links_name_is(n, "image")) {
		unsigned flags = links_name_is(n, "image") ? LINK_RESOURCE : 0;
		xmlChar *about = rdf_attr(n, "about");
		if (!about && links_name_is(n, "image"))
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
		if (links_name_is(n, "li") && n->parent && parent_is(n->parent, V_RSS1, "items")) {
			xmlChar *r = rdf_attr(n, "resource");
			xml_emit_attr(o, n, url, (const char *)r, 0);
			xmlFree(r);
		}
		break;
	case V_ATOM:
		if (links_name_is(n, "link")) {
			flags = atom_rel_flags(links_attr(n, "rel", tmp));
			if (flags >= 0)
				xml_emit_attr(o, n, url, links_attr(n, "href", tmp), (unsigned)flags);
		} else if (links_name_is(n, "icon") || links_name_is(n, "logo")) {
			xml_emit_text(o, n, url, text, LINK_RESOURCE);
		} else if (links_name_is(n, "content")) {
			xml_emit_attr(o, n, url, links_attr(n, "src", tmp), 0);
		}
		break;
	case V_WFW:
		/* wfw:comment is the Comment API's POST endpoint */
		if (links_name_is(n, "commentRss"))
			xml_emit_text(o, n, url, text, 0);
		break;
	case V_SITEMAP:
		if (links_name_is(n, "loc"))
			xml_emit_text(o, n, url, text, 0);
		break;
	case V_IMAGE:
		if (links_name_is(n, "loc"))
			xml_emit_text(o, n, url, text, LINK_RESOURCE);
		break;
	case V_VIDEO:
		if (links_name_is(n, "thumbnail_loc") || links_name_is(n, "content_loc"))
			xml_emit_text(o, n, url, text, LINK_RESOURCE);
		break;
	case V_XHTML:
		if (links_name_is(n, "link") && links_has_token(links_attr(n, "rel", tmp), "alternate"))
			xml_emit_attr(o, n, url, links_attr(n, "href", tmp), 0);
		break;
	case V_OTHER:
		break;
	}
}

/* links_from_xml with the charset the HTTP header named (or NULL). */
int links_xml(const char *url, const char *body, size_t len, const char *charset, link_fn fn,
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
	 * are never read, entity references stay references (links_text_of skips
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
		ret = links_html(url, text.data, text.len, "utf-8", fn, arg, NULL);
		goto out;
	}
	struct out o;
	struct buf val = BUF_INIT, tmp = BUF_INIT;
	links_out_init(&o, fn, arg);
	for (xmlNode *n = doc->children; n; n = links_next_node(n, (xmlNode *)doc)) {
		if (n->type == XML_ELEMENT_NODE)
			xml_element(&o, n, url, &val, &tmp);
		else if (n->type == XML_PI_NODE && !strcmp((const char *)n->name, "xml-stylesheet"))
			xml_stylesheet(&o, n, url);
	}
	buf_release(&val);
	buf_release(&tmp);
	links_out_release(&o);
	xmlFreeDoc(doc);
out:
	buf_release(&text);
	return ret;
}

int links_from_xml(const char *url, const char *body, size_t len, link_fn fn, void *arg)
{
	return links_xml(url, body, len, NULL, fn, arg);
}
