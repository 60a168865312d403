/* budget.h - spending --max-pages across URL families, breadth-first.
 *
 * A crawl that admits URLs in the order it finds them lets one page that
 * links 5,000 calendar months spend the whole budget on them: the pages
 * linked further down are never reached. So each family - the path and
 * the set of parameter names ("/cal/month.cgi?m=…"), or for a URL
 * without a query its directory ("/blog/…"): budget_family() - takes
 * its first members as they are found, up to its head (1% of the bound,
 * at least BUDGET_HEAD_MIN); the members found beyond wait. When the
 * queue has run dry, the waiting are admitted one per family in turn
 * (families in the order each was first seen, members in the order they
 * were found) until the bound; what is left is links not crawled. All of
 * it is decided in the drain's order and at the queue's end, so which
 * URLs fit under the bound is the same on every run and at any --jobs.
 * A family smaller than its head never waits: a site under the bound
 * is crawled in the order it always was.
 *
 *     struct budget b;
 *     budget_init(&b, max_pages);
 *     if (!budget_note(&b, target, depth, how)) ... it waits
 *     ... the queue ran dry:
 *     budget_round(&b, room, take, arg);   // or budget_drop(&b, drop, arg)
 *     budget_clear(&b);
 *
 * Not thread-safe: the crawl calls it under its lock.
 */
#ifndef CGISNAP_BUDGET_H
#define CGISNAP_BUDGET_H

#include <stdbool.h>
#include <stddef.h>

#include "base/buf.h"
#include "base/hashmap.h"

#define BUDGET_HEAD_MIN 10 /* members a family takes as found, at the least */
#define BUDGET_HEAD_SHARE 100 /* ... or 1/BUDGET_HEAD_SHARE of the bound */

struct budget_family;

struct budget {
	long head;                      /* 0: nothing waits (no bound) */
	struct hashmap families;        /* key -> struct budget_family * */
	struct budget_family **order;   /* as first seen */
	size_t nfamilies, cap;
	size_t waiting;
	struct buf key;                 /* scratch */
};

/* max_pages 0 (no bound): every URL is admitted as found. */
void budget_init(struct budget *b, long max_pages);
/* Note target, found depth links from a seed and queued as how says
 * (enqueue's bits, kept for its turn): true when it joins the queue now,
 * false when it waits (b keeps a copy). may_wait false: it joins now,
 * counted (seeds, requisites, robots.txt). */
bool budget_note(struct budget *b, const char *target, long depth, unsigned how, bool may_wait);
/* Admit up to room waiting URLs, one per family in turn, each handed to
 * take (the target is then the callee's). The count admitted. */
size_t budget_round(struct budget *b, long room,
		    void (*take)(void *arg, char *target, long depth, unsigned how), void *arg);
/* Drop every waiting URL, each named to drop first. The count dropped. */
size_t budget_drop(struct budget *b, void (*drop)(void *arg, const char *target), void *arg);
/* Free everything; b is empty and may be initialised again. */
void budget_clear(struct budget *b);

/* The family of target, into key: "/cal/month.cgi?m=…" (parameter names
 * sorted, each once), "/blog/…" for a URL without a query. */
void budget_family(const char *target, struct buf *key);

#endif
