/* links_impl.h - what the parts of links.c share: links.c (each link
 * resolved and reported once, the tree helpers, stylesheets, the choice
 * by media type), linkshtml.c (HTML) and linksxml.c (feeds and sitemaps).
 * Not for use outside those files.
 *
 * A document's links go through one struct out: out_init, then emit (or
 * emit_str) for each reference found, then out_release.
 */
#ifndef CGISNAP_LINKS_IMPL_H
#define CGISNAP_LINKS_IMPL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <libxml/tree.h>

#include "base/buf.h"
#include "base/hashmap.h"
#include "crawl/links.h"

/* The links a document reported, each by a 128-bit hash of its URL and
 * flags: a page of 400,000 links kept them as strings at 100 bytes each
 * (a collision, one link in 2^64 pairs, would drop a link). */
struct link_set {
	uint64_t (*slots)[2]; /* {0, 0}: empty */
	size_t cap, count;
};

struct out {
	link_fn fn;
	void *arg;
	struct link_set seen;
	struct buf ref;      /* scratch: the reference being cleaned */
};

/* links.c */
void links_out_init(struct out *o, link_fn fn, void *arg);
void links_out_release(struct out *o);
bool links_ascii_space(char c);
char *links_resolve_ref(struct buf *scratch, const char *base, const char *ref, size_t len);
void links_emit(struct out *o, const char *base, const char *ref, size_t len, unsigned flags);
void links_emit_str(struct out *o, const char *base, const char *ref, unsigned flags);
void links_css_links(struct out *o, const char *base, const char *s, size_t len);
xmlNode *links_next_node(xmlNode *n, xmlNode *root);
void links_text_of(struct buf *out, xmlNode *node);
const char *links_attr(xmlNode *node, const char *name, struct buf *tmp);
bool links_name_is(xmlNode *n, const char *name);
bool links_has_token(const char *s, const char *token);
bool links_any_token(const char *s, const char *const *tokens);

/* linkshtml.c */
int links_html(const char *url, const char *body, size_t len, const char *charset,
	       link_fn fn, void *arg, struct page_meta *meta);

/* linksxml.c */
int links_xml(const char *url, const char *body, size_t len, const char *charset, link_fn fn,
	      void *arg);

#endif
