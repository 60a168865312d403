/* linkshtml.c - the links of an HTML page (links.h, docs/links.md).
 *
 * libxml2's HTML parser (recovery mode, as htmlReadMemory runs it) reads
 * the page a piece at a time and calls back functions of our own, so that
 * no tree is built: a 16 MiB page of links cost some 400 MB as a tree,
 * and costs its own text now. The
 * references each element holds are kept, in document order, as they are
 * written; once the whole page is read they are resolved against its base
 * URL (the first <base href>, which applies to the links before it too)
 * and reported, after the robots meta and rel=canonical, which speak for
 * the whole page as well.
 */
#include "crawl/links_impl.h"

#include <ctype.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include <libxml/HTMLparser.h>
#include <libxml/parserInternals.h>

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

/* What the parse keeps of a page: its references, in the order found
 * (keep_ref's records); what speaks for the whole page; the <style>
 * being read. */
struct html {
	struct buf refs;
	char *base_href;         /* the first <base href>, as written */
	char *canonical;         /* the first <link rel=canonical href>, as written */
	struct page_meta *meta;
	bool in_style;           /* inside a <style> of CSS: its text goes to style */
	struct buf style;
};

/* How a kept reference is read once the base is known. */
enum ref_kind {
	REF_URL,     /* one URL */
	REF_SRCSET,  /* a srcset: every URL in it */
	REF_REFRESH, /* a refresh declaration's content */
	REF_CSS,     /* CSS text: a style attribute, a <style> */
};

/* A kept reference: its kind and link flags, a byte each, then its text
 * and a NUL (neither libxml2's values nor the decoded text hold one). */
static void keep_ref(struct html *h, enum ref_kind kind, unsigned flags, const char *s, size_t len)
{
	unsigned char head[2] = { (unsigned char)kind, (unsigned char)flags };
	buf_add(&h->refs, head, sizeof head);
	buf_add(&h->refs, s, len);
	buf_add(&h->refs, "", 1);
}

static void keep_str(struct html *h, enum ref_kind kind, unsigned flags, const char *s)
{
	if (s)
		keep_ref(h, kind, flags, s, strlen(s));
}

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

/* The value of attribute name in a start tag's atts (name, value, ...,
 * NULL; the parser lowercased the names and kept the first of each), ""
 * for one without a value, or NULL. */
static const char *attr(const xmlChar **atts, const char *name)
{
	for (; atts && atts[0]; atts += 2)
		if (!strcmp((const char *)atts[0], name))
			return atts[1] ? (const char *)atts[1] : "";
	return NULL;
}

/* What speaks for the whole page: the first <base href>, the robots
 * meta, the first rel=canonical. */
static void html_page_wide(struct html *h, const char *name, const xmlChar **atts)
{
	if (!h->base_href && !strcmp(name, "base")) {
		const char *href = attr(atts, "href");
		if (href)
			h->base_href = xstrdup(href);
	} else if (!strcmp(name, "meta")) {
		const char *v = attr(atts, "name");
		if (v && (!strcasecmp(v, "robots") || !strcasecmp(v, "cgisnap")))
			robots_meta(attr(atts, "content"), h->meta);
	} else if (!h->canonical && !strcmp(name, "link") && links_has_token(attr(atts, "rel"), "canonical")) {
		const char *href = attr(atts, "href");
		if (href)
			h->canonical = xstrdup(href);
	}
}

/* How html_refs[] reads an attribute, beside the link's own flags. */
#define REF_SRCSET_ATTR 0x100  /* a srcset: every URL in it */
#define REF_REL_NOFOLLOW 0x200 /* LINK_NOFOLLOW when the element's rel says nofollow */
#define REF_IMAGE_INPUT 0x400  /* only when the element's type is "image" */
#define REF_LINK_FLAGS (LINK_NOFOLLOW | LINK_RESOURCE)
_Static_assert(REF_LINK_FLAGS <= 0xff, "a kept reference's link flags fit its byte");
_Static_assert(!((REF_SRCSET_ATTR | REF_REL_NOFOLLOW | REF_IMAGE_INPUT) & REF_LINK_FLAGS),
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
	{ "img", "srcset", LINK_RESOURCE | REF_SRCSET_ATTR },
	/* lazy-loading scripts move the real image here */
	{ "img", "data-src", LINK_RESOURCE },
	{ "img", "data-srcset", LINK_RESOURCE | REF_SRCSET_ATTR },
	{ "input", "src", LINK_RESOURCE | REF_IMAGE_INPUT },
	{ "object", "data", LINK_RESOURCE },
	{ "script", "src", LINK_RESOURCE },
	{ "source", "src", LINK_RESOURCE },
	{ "source", "srcset", LINK_RESOURCE | REF_SRCSET_ATTR },
	{ "source", "data-srcset", LINK_RESOURCE | REF_SRCSET_ATTR },
	{ "table", "background", LINK_RESOURCE },
	{ "td", "background", LINK_RESOURCE },
	{ "th", "background", LINK_RESOURCE },
	{ "track", "src", LINK_RESOURCE },
	{ "use", "href", LINK_RESOURCE }, /* SVG */
	{ "use", "xlink:href", LINK_RESOURCE },
	{ "video", "src", LINK_RESOURCE },
	{ "video", "poster", LINK_RESOURCE },
};

/* Keeps what the html_refs[] entry r names in a start tag. */
static void html_ref(struct html *h, const xmlChar **atts, const struct html_ref *r)
{
	unsigned flags = r->flags & REF_LINK_FLAGS;
	const char *v;

	if (r->flags & REF_REL_NOFOLLOW) {
		if (links_has_token(attr(atts, "rel"), "nofollow"))
			flags |= LINK_NOFOLLOW;
	}
	if (r->flags & REF_IMAGE_INPUT) {
		v = attr(atts, "type");
		if (!v || strcasecmp(v, "image"))
			return;
	}
	keep_str(h, r->flags & REF_SRCSET_ATTR ? REF_SRCSET : REF_URL, flags, attr(atts, r->attr));
}

/* <link href>: a resource or a page by its rel, never an endpoint. */
static void html_link(struct html *h, const xmlChar **atts)
{
	const char *rel = attr(atts, "rel");
	if (!rel || links_any_token(rel, endpoint_rels) || strstr(rel, "://"))
		return;
	bool resource = links_any_token(rel, resource_rels);
	if (!resource && !links_any_token(rel, page_rels))
		return;
	const char *v = attr(atts, "type");
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
	keep_str(h, REF_URL, flags, attr(atts, "href"));
	if (resource)
		keep_str(h, REF_SRCSET, flags, attr(atts, "imagesrcset"));
}

/* <meta http-equiv=refresh content="5; url=...">: a page link. */
static void html_refresh(struct html *h, const xmlChar **atts)
{
	const char *v = attr(atts, "http-equiv");
	if (v && !strcasecmp(v, "refresh"))
		keep_str(h, REF_REFRESH, 0, attr(atts, "content"));
}

/* The parser's callbacks: an element starts, a <style> ends, text. */
static void on_start(void *ctx, const xmlChar *tag, const xmlChar **atts)
{
	struct html *h = ctx;
	const char *name = (const char *)tag;

	html_page_wide(h, name, atts);
	for (size_t i = 0; i < sizeof html_refs / sizeof html_refs[0]; i++) {
		const struct html_ref *r = &html_refs[i];
		if (r->tag[0] == name[0] && !strcmp(r->tag, name))
			html_ref(h, atts, r);
	}
	if (!strcmp(name, "link")) {
		html_link(h, atts);
	} else if (!strcmp(name, "meta")) {
		html_refresh(h, atts);
	} else if (!strcmp(name, "style")) {
		/* <style> of type text/css, or of none: its text is CSS */
		const char *v = attr(atts, "type");
		h->in_style = !v || !*v || !strncasecmp(v, "text/css", 8);
		buf_reset(&h->style);
	}
	const char *v = attr(atts, "style");
	if (v && *v)
		keep_str(h, REF_CSS, 0, v);
}

static void on_end(void *ctx, const xmlChar *tag)
{
	struct html *h = ctx;
	if (h->in_style && !strcmp((const char *)tag, "style")) {
		keep_ref(h, REF_CSS, 0, h->style.data ? h->style.data : "", h->style.len);
		h->in_style = false;
	}
}

static void on_text(void *ctx, const xmlChar *s, int len)
{
	struct html *h = ctx;
	if (h->in_style)
		buf_add(&h->style, s, (size_t)len);
}

/* Reports the kept references, resolved against base. */
static void report_refs(const struct html *h, struct out *o, const char *base)
{
	for (size_t at = 0; at < h->refs.len;) {
		const unsigned char *head = (const unsigned char *)h->refs.data + at;
		const char *s = (const char *)head + 2, *url;
		size_t n = strlen(s), len;
		at += 2 + n + 1;
		switch ((enum ref_kind)head[0]) {
		case REF_URL:
			links_emit(o, base, s, n, head[1]);
			break;
		case REF_SRCSET:
			srcset_scan(o, base, s, head[1]);
			break;
		case REF_REFRESH:
			if (refresh_url(s, &url, &len))
				links_emit(o, base, url, len, 0);
			break;
		case REF_CSS:
			links_css_links(o, base, s, n);
			break;
		}
	}
}

/* The text, handed to libxml2 a piece at a time as it asks. */
struct reader {
	const char *s;
	size_t len, at;
};

static int read_text(void *arg, char *out, int n)
{
	struct reader *r = arg;
	size_t take = r->len - r->at < (size_t)n ? r->len - r->at : (size_t)n;
	memcpy(out, r->s + r->at, take);
	r->at += take;
	return (int)take;
}

static int close_text(void *arg)
{
	(void)arg;
	return 0;
}

/* Parses text as HTML with h's callbacks: 0, or -1 when libxml2 could
 * not make a parser. As htmlReadMemory parses (the same recovery: content
 * before any start tag or after </html> is read, where a push parser
 * drops it), but with no tree built, and the text read a piece at a time:
 * htmlReadMemory's parser copies all of it, and converts all of it again. */
static int parse_html(struct html *h, const char *url, const char *text, size_t len)
{
	struct reader r = { text, len, 0 };
	xmlParserCtxtPtr ctxt = xmlNewParserCtxt();
	if (!ctxt)
		return -1;
	xmlParserInputBufferPtr in = xmlParserInputBufferCreateIO(read_text, close_text, &r, XML_CHAR_ENCODING_NONE);
	xmlParserInputPtr input = in ? xmlNewIOInputStream(ctxt, in, XML_CHAR_ENCODING_NONE) : NULL;
	if (!input) {
		xmlFreeParserInputBuffer(in);
		xmlFreeParserCtxt(ctxt);
		return -1;
	}
	inputPush(ctxt, input);
	memset(ctxt->sax, 0, sizeof *ctxt->sax);
	ctxt->sax->startElement = on_start;
	ctxt->sax->endElement = on_end;
	ctxt->sax->characters = on_text;
	ctxt->sax->cdataBlock = on_text;
	ctxt->userData = h;
	htmlCtxtUseOptions(ctxt, HTML_PARSE_RECOVER | HTML_PARSE_NOERROR | HTML_PARSE_NOWARNING |
					 HTML_PARSE_NONET);
	/* The text is UTF-8 already (charset_decode): a <meta charset> in it
	 * must not make the parser decode it again. */
	xmlCharEncodingHandlerPtr utf8 = xmlFindCharEncodingHandler("UTF-8");
	if (utf8) {
		xmlSwitchToEncoding(ctxt, utf8);
		xmlFree((xmlChar *)ctxt->input->encoding);
		ctxt->input->encoding = xmlStrdup(BAD_CAST "UTF-8");
	}
	ctxt->html = 1;
	if (!ctxt->input->filename)
		ctxt->input->filename = (char *)xmlStrdup(BAD_CAST url);
	htmlParseDocument(ctxt);
	xmlFreeParserCtxt(ctxt);
	return 0;
}

/* links_from_html with the charset the HTTP header named (or NULL). */
int links_html(const char *url, const char *body, size_t len, const char *charset,
	       link_fn fn, void *arg, struct page_meta *meta)
{
	struct page_meta dummy;
	struct buf text = BUF_INIT;
	struct html h;
	struct out o;
	char *base = NULL;

	if (!meta)
		meta = &dummy;
	meta->noindex = meta->nofollow = false;
	meta->canonical[0] = '\0';
	size_t n;
	const char *s = charset_text(&text, body, len, charset, CHARSET_HTML, &n);
	if (n > INT_MAX) {
		buf_release(&text);
		return -1;
	}
	memset(&h, 0, sizeof h);
	h.meta = meta;
	int rc = parse_html(&h, url, s, n);
	buf_release(&text);
	buf_release(&h.style);
	if (rc == 0) {
		struct buf scratch = BUF_INIT;
		if (h.base_href) {
			/* an unusable base (javascript:, garbage) leaves the document URL */
			base = links_resolve_ref(&scratch, url, h.base_href, strlen(h.base_href));
		}
		if (h.canonical) {
			char *abs = links_resolve_ref(&scratch, base ? base : url, h.canonical, strlen(h.canonical));
			if (abs && strlen(abs) < sizeof meta->canonical)
				strcpy(meta->canonical, abs);
			free(abs);
		}
		buf_release(&scratch);
		links_out_init(&o, fn, arg);
		report_refs(&h, &o, base ? base : url);
		links_out_release(&o);
	}
	free(base);
	free(h.base_href);
	free(h.canonical);
	buf_release(&h.refs);
	return rc;
}

int links_from_html(const char *url, const char *body, size_t len, link_fn fn, void *arg,
		    struct page_meta *meta)
{
	return links_html(url, body, len, NULL, fn, arg, meta);
}
