/* views.h - the application's views, told apart from its pages while a
 * crawl runs: URL families whose sampled members all said robots noindex.
 *
 * An application links every page to views of it (edit, history, info,
 * "what links here", a login form with returnto=<that page>), each a URL
 * of its own; each says noindex, so none is stored, but finding that out
 * costs a render per page and view (MediaWiki: nine renders of views for
 * every page). Once the first `sample` URLs rendered of a family all said
 * noindex and none of the family was stored, the family is a view: its
 * later URLs are not rendered (the crawl counts them as skipped, with the
 * family in the summary). A family whose member is stored is never cut.
 *
 * A URL's families (views_keys), each written as its URLs look with "…"
 * for what varies:
 *  - with two or more query pieces: its shape, the path and the sorted
 *    names ("/index.php?action=…&title=…"), and the shape with one
 *    piece's value spelled ("/index.php?action=edit&title=…");
 *  - a value with a "/" inside: the shape with that value cut after its
 *    last "/" ("/index.php?title=Special:WhatLinksHere/…"), the query's
 *    only piece too;
 *  - a path of three or more segments: the path cut after its last "/",
 *    with the query's shape ("/w/index.php/Special:History/…").
 * A path of one or two segments with at most one piece (/wiki/Page,
 * /index.php?title=Page, /doku.php?id=x) is no family: that is where a
 * site's pages live, and their order of discovery (views first, from a
 * sidebar) must not cut them.
 *
 * Whether a URL is cut depends on the URLs queued before it only, never
 * on which render ended first (or on --jobs): each URL takes a ticket
 * when it is queued, its place in each of its families; it is decided
 * at its turn, once every member queued before it is settled (heard
 * from, or cut), and a rendered member is heard in queue order (the
 * crawl's drain). A family's first `sample` members are thus always its
 * first queued, and so is what they said.
 *
 *     struct views v;
 *     views_init(&v, 8);
 *     struct view_ticket *t = views_admit(&v, "/i.php?title=P&action=edit");
 *     ...                              // at its turn: views_turn(t)
 *     if (views_cut(&v, t))  ... skip it, views_settle(t, VIEW_HEARD_NOTHING)
 *     else ... render it, then, in queue order: views_settle(t, VIEW_HEARD_NOINDEX)
 *     views_ticket_free(t);
 *     views_release(&v);
 *
 * An update (watch's batches) renders a link only when the tree does not
 * know it: so the URLs that said noindex (views_note_noindex) are known
 * too, as stored pages are, and not rendered again because a re-rendered
 * page links them (MediaWiki: Special:RecentChanges, linked from every
 * page, took seconds per batch). They and the families a full crawl cut
 * by their sample are kept in the tree (.cgisnap/views, one a line,
 * sorted: views_format_learned) for the updates of later processes
 * (watch started on a snapshot's tree), which never saw the sample
 * (views_learn). A full crawl samples and renders afresh.
 *
 * Memory: one record per family met, at most VIEWS_MAX_FAMILIES (later
 * ones are not tracked, so never cut). Not thread-safe: the crawl calls it
 * under its lock.
 */
#ifndef CGISNAP_VIEWS_H
#define CGISNAP_VIEWS_H

#include <stdbool.h>
#include <stddef.h>

#include "base/buf.h"
#include "base/hashmap.h"

#define VIEWS_MAX_KEYS 24          /* families of one URL looked at */
#define VIEWS_MAX_PIECES 8         /* query pieces looked at (more: no family) */
#define VIEWS_MAX_FAMILIES 100000
#define VIEWS_MAX_NOINDEX 1000000  /* noindex URLs remembered */
#define VIEWS_FILE "views"         /* in the tree's .cgisnap */

struct views {
	struct hashmap fams; /* family -> struct view_family * */
	long sample;         /* 0: no family is cut by its sample */
	long given;          /* families views_give named */
	struct hashmap noindex; /* URLs rendered that said noindex (values unused) */
	bool noindex_changed;   /* a URL noted or dropped since views_init */
};

void views_init(struct views *v, long sample);
void views_release(struct views *v);

/* The families of target, as above, into keys (each owned by the
 * caller): how many, at most max. */
size_t views_keys(const char *target, char **keys, size_t max);

/* What a member said, as it settles. */
enum view_heard {
	VIEW_HEARD_NOTHING, /* cut, not rendered, or neither stored nor noindex */
	VIEW_HEARD_NOINDEX, /* rendered: robots noindex, not stored */
	VIEW_HEARD_STORED,  /* rendered and stored */
};

/* target's place in each of its families, taken as it is queued; NULL
 * when it belongs to none (or nothing is ever cut). */
struct view_ticket *views_admit(struct views *v, const char *target);

/* Whether every member queued before t's URL, in each of its families,
 * has settled: then (and only then) views_cut may be asked. */
bool views_turn(const struct view_ticket *t);

/* Whether t's URL is cut as a view, at its turn: the family (the views'
 * own string), counted as one more URL not rendered; NULL when it is to
 * be rendered. t NULL: NULL. */
const char *views_cut(struct views *v, const struct view_ticket *t);

/* t's URL is done with: its families hear what it said, and their next
 * member may take its turn. A second call does nothing; t NULL neither. */
void views_settle(struct view_ticket *t, enum view_heard heard);

void views_ticket_free(struct view_ticket *t);

/* A new run numbers the members afresh: what a run stopped halfway left
 * unsettled never waits again. The families keep what they heard. */
void views_new_run(struct views *v);

/* A family the user names (--view-family, as the summary writes it): its
 * first `sample` members are rendered (for their links, as a sampled
 * family's are), the rest cut, whatever the first said: a profile
 * --write-profile wrote gives the next run the same tree without the
 * decision. With sample 0, cut from its first member. */
void views_give(struct views *v, const char *family);

/* A line of VIEWS_FILE: a family an earlier full crawl cut by its
 * sample, cut from its first member (ignored unless v samples: sample >
 * 0); or, when urls, a URL that said noindex. */
void views_learn(struct views *v, const char *line, bool urls);

/* target was rendered and said noindex (stored false), or was stored: it
 * is (no longer) one of the noindex URLs. */
void views_note_noindex(struct views *v, const char *target, bool stored);

/* Whether target said noindex when last rendered. */
bool views_noindex_known(const struct views *v, const char *target);

/* The families cut by their sample (this run's or learned; never the
 * given ones) and the noindex URLs, one a line, sorted, into out:
 * VIEWS_FILE's text. */
void views_format_learned(const struct views *v, struct buf *out);

/* Whether s is written as a family is: a path, "…" for what varies. */
bool views_family_shape(const char *s);

/* The families cut, as "FAMILY<TAB>N" (N: URLs not rendered), the
 * largest first, into out. */
void views_cut_list(const struct views *v, struct strlist *out);

/* The summary of what was cut, the largest families first (at most
 * `most` named): "N URLs not rendered, in K families whose first S pages
 * all said robots noindex (…)", and "N URLs not rendered, in K families
 * --view-family names (…)" for the given ones (given true); empty when
 * nothing was. */
void views_summary(const struct views *v, bool given, size_t most, struct buf *out);

#endif
