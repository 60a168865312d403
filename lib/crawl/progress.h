/* progress.h - the crawl's progress: a bar redrawn on a terminal or a
 * line every few seconds for a log (crawl_config.progress).
 *
 * The workers call progress_show_locked after each render; the thread
 * that started them calls progress_tick_until_done, which returns once
 * every worker is done (crawl's running count reaches 0).
 */
#ifndef CGISNAP_CRAWL_PROGRESS_H
#define CGISNAP_CRAWL_PROGRESS_H

#include <stdbool.h>

#include "crawl/engine.h"

/* Seconds since the run began. */
double progress_seconds(const struct crawl *c);
/* Redraw the bar (at most 10 times a second unless force). Locked. */
void progress_show_locked(struct crawl *c, bool force);
/* Unlocked: takes the lock itself, and waits on the crawl's cond. */
void progress_tick_until_done(struct crawl *c);

#endif
