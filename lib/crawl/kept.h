/* kept.h - what a crawl learns that the next runs (and processes) keep,
 * in the tree's .cgisnap: the spans that change on every render
 * (volatile.h, VOLATILE_FILE) and the views, families cut by their sample
 * and URLs that said noindex (views.h, VIEWS_FILE). Missing or unreadable
 * files are learned again; a file is written (atomically) only when what
 * it holds changed. Called by crawl.c under no lock: between runs, or at a
 * run's end once the workers are gone.
 */
#ifndef CGISNAP_CRAWL_KEPT_H
#define CGISNAP_CRAWL_KEPT_H

#include <stdbool.h>

#include "base/buf.h"

struct crawl;
struct crawl_config;
struct volatiles;

/* The spans earlier runs learned (.cgisnap/volatile in the tree's
 * meta_fd; none when it is missing, a warning when unreadable: they are
 * learned again) and cfg's --volatile rules, into v (initialised here).
 * For the crawl, and for verify, which compares without them too. */
void kept_read_volatiles(struct volatiles *v, int meta_fd, const struct crawl_config *cfg);

/* At crawl_new: the spans and views earlier runs kept, the options' own
 * added (--volatile, --view-family). */
void kept_load(struct crawl *c);

/* The views as the options make them, nothing learned: a full crawl
 * samples afresh. */
void kept_init_views(struct crawl *c);

/* At a run's end: the spans, and the views too unless views is false (a
 * full crawl stopped halfway has not judged them all). */
void kept_save(struct crawl *c, bool views);

/* The spans c knows, one line each as .cgisnap/volatile has them (for
 * --write-profile). */
void kept_volatile_lines(const struct crawl *c, struct strlist *out);

#endif
