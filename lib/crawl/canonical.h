/* canonical.h - a page's <link rel="canonical">: the page it names keeps
 * the file, this URL becomes a 301 to it, as a search engine reads the
 * link. Decided when the page is taken (canonical_alias: recorded as the
 * redirect at once, the named page crawled), and checked after the queue
 * (settle_canonicals): a chain of aliases (X names Y, which names Z) is
 * followed to its end, and X becomes a 301 to Z, one hop, as Y is; an
 * alias whose chain did not end at a stored page (a redirect back, a
 * 404, a failure) is queued again and stored as a page of its own, so a
 * redirect never leads nowhere, and an alias that would close a loop
 * (two pages naming each other) is refused: the first stays a redirect,
 * the other a page. --no-canonical-links turns it off.
 */
#ifndef CGISNAP_CRAWL_CANONICAL_H
#define CGISNAP_CRAWL_CANONICAL_H

#include <stdbool.h>

#include "crawl/engine.h"
#include "crawl/links.h"
#include "crawl/page.h"

/* Whether p, a 2xx page whose meta was read, is an alias of the page its
 * rel=canonical names: then p->e is the 301 to it, the named page is one
 * of p's links, and the pair is remembered for settle_canonicals. Not
 * when the options or robots.txt leave the named page out, when the two
 * would be one file (the spellings' own rule decides, claims.h), when the
 * named page's chain of aliases in this run leads back to p (or runs
 * over CANONICAL_CHAIN_MAX), for a seed (stored whatever
 * it names, as whatever its robots meta says), or for a job queued again
 * as a page. Unlocked. */
bool canonical_alias(struct crawl *c, struct page *p, const struct page_meta *meta);

/* The longest chain of aliases followed: far more than any site's. */
#define CANONICAL_CHAIN_MAX 16

/* After the queue: each alias whose chain ends at a stored page is a 301
 * to that page (its last link) and said in the result (canonical_links);
 * each other is queued again, to be a page. Returns how many were
 * queued. Forgets the pairs. */
long settle_canonicals(struct crawl *c);

/* Forget the pairs (crawl_free, an interrupted run). */
void free_canonicals(struct crawl *c);

#endif
