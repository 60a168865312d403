/* canonical.h - a page's <link rel="canonical">: the page it names keeps
 * the file, this URL becomes a 301 to it, as a search engine reads the
 * link. Decided when the page is taken (canonical_alias: recorded as the
 * redirect at once, the named page crawled), and checked after the queue
 * (settle_canonicals): an alias whose named page did not end up a stored
 * page (a redirect back, a 404, a failure, another alias) is queued again
 * and stored as a page of its own, so a redirect never leads nowhere and
 * two pages naming each other never loop. --no-canonical-links turns it
 * off.
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
 * named page is itself an alias in this run, for a seed (stored whatever
 * it names, as whatever its robots meta says), or for a job queued again
 * as a page. Unlocked. */
bool canonical_alias(struct crawl *c, struct page *p, const struct page_meta *meta);

/* After the queue: each alias whose named page is a stored page is said
 * in the result (canonical_links); each other is queued again, to be a
 * page. Returns how many were queued. Forgets the pairs. */
long settle_canonicals(struct crawl *c);

/* Forget the pairs (crawl_free, an interrupted run). */
void free_canonicals(struct crawl *c);

#endif
