/* lastrun.h - DIR/.cgisnap/lastrun: what the last run that wrote the tree
 * did, for 'cgisnap status': "name = value" lines (the option-file
 * syntax, opts.h), replaced atomically at the end of each run:
 *
 *   command = snapshot
 *   started = 1796180846          (Unix time)
 *   seconds = 3.21
 *   result = complete             (complete, partial, failed, interrupted)
 *   exit-status = 0
 *   urls = 613                    (and new, changed, unchanged, redirects,
 *                                  not-found, failed, held, skipped, removed;
 *                                  held: rendered while a source was being
 *                                  written, not published, watch/stale.h)
 *   failure = /x.cgi: timed out after 30 s     (repeated, at most LASTRUN_MAX_LIST)
 *   error = the seed '/' answered 404          (repeated)
 *
 * snapshot writes it after each run, watch after each full crawl (not
 * after its batches: a batch that changed nothing writes nothing).
 */
#ifndef CGISNAP_LASTRUN_H
#define CGISNAP_LASTRUN_H

#include <stdbool.h>
#include <time.h>

#include "base/buf.h"
#include "crawl/crawl.h"
#include "tree/tree.h"

#define LASTRUN_FILE "lastrun"
/* Failures and errors kept: the first ones say what went wrong. */
#define LASTRUN_MAX_LIST 100

struct lastrun {
	char *command;
	long started;      /* Unix time */
	char *seconds;     /* as written ("3.21"): a duration to show, never to compute with */
	char *result;
	long exit_status;
	long urls, stored_new, stored_changed, stored_unchanged, redirects, not_found, failed, held, skipped,
		removed;
	struct strlist failures; /* "TARGET: REASON" */
	struct strlist errors;
};

/* The record of a finished crawl run by command, which exits exit_status. */
void lastrun_from_result(struct lastrun *lr, const char *command, const struct crawl_result *res,
			 int exit_status);
/* Write lr as the tree's lastrun (atomically). -1 with err. */
int lastrun_save(struct tree *t, const struct lastrun *lr, char *err);
/* Read the tree's lastrun into lr (zeroed first); 0 with *found false
 * when the tree has none (made before cgisnap recorded it). -1 with err
 * naming the file and line of a bad line. */
int lastrun_load(struct tree *t, struct lastrun *lr, bool *found, char *err);
void lastrun_release(struct lastrun *lr);

#endif
