/* verify/compare.h - whether the tree answers a URL as the origin does,
 * and if not, the cause.
 *
 * The statuses first; for two redirects, their Location (each resolved
 * against the URL asked: "/x" and "http://site/x" are one); for two 2xx
 * answers, the media type (and the charset when both name one), then the
 * body with what --strip removes left out of both and, when the bytes
 * still differ, the tree's volatile spans (volatile.h) left out: a render
 * time or a nonce is no difference, as it is none to the crawl. A body
 * over --max-parse (which the crawl stores as it is) is compared by its
 * size and its sha256, read from its file a piece at a time: never
 * brought into memory. Other equal statuses (404 and 404) are alike
 * whatever their bodies.
 */
#ifndef CGISNAP_VERIFY_COMPARE_H
#define CGISNAP_VERIFY_COMPARE_H

#include "crawl/crawl.h"
#include "crawl/volatile.h"
#include "origin/origin.h"
#include "url/url.h"

/* The causes, in the report's order. */
enum cause {
	CAUSE_ALIKE,
	CAUSE_NOT_IN_TREE,   /* the tree has no answer (404), the origin has one: a rule left it out, or
			      * the crawl never reached it (scope.h says which) */
	CAUSE_GONE_IN_TREE,  /* the tree answers 404 as recorded (or its file is missing), the origin 2xx/3xx */
	CAUSE_REDIRECT,      /* a redirect on one side, or two to different places */
	CAUSE_STATUS,        /* other statuses differ (the tree serves a page the origin no longer has) */
	CAUSE_TYPE,          /* Content-Type differs */
	CAUSE_BODY,          /* the body differs */
	CAUSE_TREE_FAILED,   /* the tree's server gave no answer */
	CAUSE_ORIGIN_FAILED, /* the origin gave no answer, or a 5xx: nothing to compare */
	NCAUSES
};

/* "not-in-tree", ... (JSON), and the report's headings. */
const char *cause_name(enum cause c);
const char *cause_title(enum cause c);

struct compare_ctx {
	const struct site *site;            /* for the redirects' base */
	const struct crawl_config *crawl;   /* --strip */
	const struct volatiles *volatiles;  /* the tree's spans (read only: threads share it) */
};

/* Compare the origin's answer (o) and the tree's (t) to target, both
 * rendered; their bodies may be loaded and stripped here. The cause,
 * with *detail (fresh, or NULL) saying how they differ: "origin 301 to
 * '/a/', tree 404", "line 12: origin '...', tree '...'". A tree 404
 * answer to an origin's 2xx or 3xx comes back CAUSE_NOT_IN_TREE: the
 * caller tells it from CAUSE_GONE_IN_TREE with the manifest; its detail
 * is where the origin redirects, or NULL. */
enum cause compare_answers(const struct compare_ctx *ctx, const char *target, struct origin_response *o,
			   struct origin_response *t, char **detail);

/* The sha256 of o's body as the crawl would store it (--strip applied),
 * into hex; "" when it cannot be read. For a URL the tree lacks: is its
 * body one the tree holds under another URL? */
void compare_body_sha(const struct compare_ctx *ctx, struct origin_response *o, char hex[65]);

/* The first line on which a and b differ: "line N: origin 'A', tree 'B'"
 * (each line cut at 80 bytes, from some way before the difference on a
 * long line, "..." where cut; control bytes as '?'); fresh. A body that
 * is not text is told by its sizes instead. */
char *compare_first_line(const char *a, size_t alen, const char *b, size_t blen);

#endif
