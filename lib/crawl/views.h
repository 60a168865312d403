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
 *     struct views v;
 *     views_init(&v, 8);
 *     if (views_cut(&v, "/i.php?title=P&action=edit"))  ... skip it
 *     views_note(&v, "/i.php?title=Q&action=edit", true);  // rendered: noindex
 *     views_release(&v);
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

struct views {
	struct hashmap fams; /* family -> struct view_family * */
	long sample;         /* 0: nothing is ever cut */
};

void views_init(struct views *v, long sample);
void views_release(struct views *v);

/* The families of target, as above, into keys (each owned by the
 * caller): how many, at most max. */
size_t views_keys(const char *target, char **keys, size_t max);

/* A rendered URL: noindex (not stored), or stored. */
void views_note(struct views *v, const char *target, bool noindex);

/* Whether target belongs to a family cut as a view: the family (the
 * views' own string), counted as one more URL not rendered; NULL when
 * target is to be rendered. */
const char *views_cut(struct views *v, const char *target);

/* The summary of what was cut, the largest families first (at most
 * `most` named): "N URLs of K families …"; empty when nothing was. */
void views_summary(const struct views *v, size_t most, struct buf *out);

#endif
