/* verify/scope.h - why the tree has no answer for a URL the origin
 * answers: the rule that left it out, named as the user would change it,
 * or what the crawl recorded for it.
 *
 * Asked in this order, of the URL's canonical target (the tree's own
 * query policy, as its server applies it):
 *  - the manifest lists it: a 404 or 410 recorded at crawl time, or its
 *    file missing from the tree (CAUSE_GONE_IN_TREE);
 *  - --exclude (the regex), --include (none matches), robots.txt (the
 *    tree's copy), a robots noindex the crawl heard (.cgisnap/views), a
 *    family cut as a view (.cgisnap/views, or --view-family);
 *  - the tree holds the URL without one of its parameters, and the body
 *    the origin sends for the URL: that parameter changes nothing here.
 *    When no URL of the tree carries it, --ignore-param would drop it (a
 *    tracking parameter); else a --canonical rule could send it there;
 *  - none of these: the crawl never reached it (no crawled page links it,
 *    or --max-pages or --max-depth stopped first).
 * The rules are the crawl options given to verify (the snapshot's, its
 * profile's too) and what the tree kept of its last crawl.
 */
#ifndef CGISNAP_VERIFY_SCOPE_H
#define CGISNAP_VERIFY_SCOPE_H

#include "base/hashmap.h"
#include "crawl/crawl.h"
#include "crawl/robots.h"
#include "tree/manifest.h"
#include "tree/tree.h"
#include "compare.h"

struct scope {
	const struct crawl_config *crawl; /* borrowed: --include, --exclude, --view-family */
	const struct site *site;          /* borrowed: the tree's site and query policy */
	const struct manifest *manifest;  /* borrowed */
	int tree_fd;                      /* borrowed */
	struct hashmap view_families;     /* families the last crawl cut */
	struct hashmap noindex;           /* URLs that said noindex */
	struct hashmap params;            /* names of the parameters the manifest's targets carry */
	struct robots robots;
	bool have_robots;
};

/* Read what the tree kept (its views, its robots.txt); never fails: what
 * cannot be read explains nothing. */
void scope_open(struct scope *s, struct tree *t, const struct manifest *m, const struct site *site,
		const struct crawl_config *crawl);
/* CAUSE_NOT_IN_TREE or CAUSE_GONE_IN_TREE for target (a normalised
 * target as requested), with *why (fresh) naming the rule or the record.
 * body_sha: the sha256 of the origin's body for it, as stored ("" when
 * none). */
enum cause scope_explain(const struct scope *s, const char *target, const char *body_sha, char **why);
void scope_close(struct scope *s);

#endif
