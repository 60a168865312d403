/* commit.h - the end of a run: its findings become the tree's manifest,
 * which is saved, and the files of pages gone are pruned once it is.
 *
 * Called once per run, after the renders (no lock: no thread runs).
 */
#ifndef CGISNAP_CRAWL_COMMIT_H
#define CGISNAP_CRAWL_COMMIT_H

#include <stdbool.h>

#include "crawl/engine.h"

/* prune: files of URLs that vanished or now fail may be removed. A full
 * crawl's findings are the whole manifest; an update's replace only the
 * entries it rendered. 0, or -1 with err. */
int commit_run(struct crawl *c, bool prune, char *err);

#endif
