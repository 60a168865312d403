/* tally.h - the run's result: each URL counted in exactly one category,
 * failures, holds and skips, the paths written and removed, and the
 * notes said at the end (crawl_result in crawl.h).
 *
 * The _locked functions are called under the crawl's lock while renders
 * run; a URL tallied again (a page that becomes a redirect to its slash
 * form) moves from its first category to the new one.
 */
#ifndef CGISNAP_CRAWL_TALLY_H
#define CGISNAP_CRAWL_TALLY_H

#include "crawl/engine.h"
#include "tree/publish.h"

/* What became of a URL in a run: the result's category it is counted in. */
enum outcome {
	OUTCOME_NONE, /* not counted (yet) */
	OUTCOME_NEW,
	OUTCOME_CHANGED,
	OUTCOME_UNCHANGED,
	OUTCOME_REDIRECT,
	OUTCOME_NOT_FOUND,
	OUTCOME_FAILED,
	OUTCOME_HELD,
	OUTCOME_SKIPPED, /* + enum crawl_skip_why */
};

void tally_locked(struct crawl *c, const char *target, enum outcome o, int status, long ms, long long bytes);
/* A failure of the run's result, counted as failed (rs may be NULL). */
void add_failure_locked(struct crawl *c, const char *target, const char *reason,
			const struct origin_response *rs);
/* The same, keeping what was published before for target. */
void fail_locked(struct crawl *c, const char *target, const char *reason, const struct origin_response *rs);
void hold_locked(struct crawl *c, const char *target, const struct origin_response *rs);
void skip_locked(struct crawl *c, const char *target, enum crawl_skip_why why, const struct origin_response *rs);
/* Add what one publish or removal noted to the result's path lists. */
void paths_merge(struct crawl *c, const struct publish_paths *p);
/* At the end of a full crawl: its error when most URLs answered 404. */
void check_not_found(struct crawl *c, struct crawl_result *res);
/* At the end of a full crawl: the note naming the pages' stylesheets,
 * scripts and images that answered 404, with the likely cause. */
void missing_requisites_note(struct crawl *c, struct crawl_result *res);
/* At the end of a run: the note of each kind of skip. */
void skip_notes(const struct crawl *c, struct crawl_result *res);
/* Where the URLs of a run went, by family, largest first (at most max,
 * ties by name, so the same URLs give the same words), e.g.
 * "/cal/month.cgi?m=… 11, /… 2": a family is the URLs of one path with
 * one set of parameter names, or, without a query, those of one
 * directory. A fresh string. */
char *budget_families(const struct crawl *c, size_t max);

#endif
