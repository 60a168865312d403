/* page.h - one page's way through a run: a struct carried through named
 * steps, each owned by one file.
 *
 *   render       ask the origin (page.c)
 *   take         by status: a redirect, a 404, an archive, or a page
 *                whose links are parsed (page.c, links.h) and whose file
 *                is keyed and published (store.c, claims.h)
 *   record       under the crawl's lock: the result's tally, the run's
 *                manifest; the links, into the job's yield (page.c)
 *   drain        the yields, in the order their jobs were queued: the
 *                links queued, the view families told (crawl.c)
 *
 * A worker calls page_process for each job; everything before record
 * runs unlocked, beside the other workers.
 */
#ifndef CGISNAP_CRAWL_PAGE_H
#define CGISNAP_CRAWL_PAGE_H

#include <stdbool.h>

#include "base/log.h"
#include "crawl/body.h"
#include "crawl/engine.h"
#include "crawl/tally.h"

/* How a page is recorded, once its steps are done. */
enum page_fate {
	PAGE_RECORDED, /* e goes into the run's manifest: a file, a redirect or a 404 */
	PAGE_ABSENT,   /* robots.txt or a sitemap that is not there: nothing counted */
	PAGE_FAILED,   /* err says why; what was published before stays */
	PAGE_HELD,     /* the hold hook held it; what was published before stays */
	PAGE_SKIPPED,  /* skip says why; nothing recorded */
};

/* A page's links: other pages, a step further from the seeds, and the
 * resources it needs to display (stylesheets, images, icons, manifests;
 * links.h), fetched with the page as wget -p does - no step further, and
 * even when a robots nofollow meta stops its page links. */
struct found_links {
	const struct crawl *c;
	struct strlist targets;
	struct strlist resources;
};

struct page {
	const struct job *j;
	char *url;                 /* where it was crawled: its links resolve against it */
	char *asked;               /* the target with --render-query's parameters, or NULL */
	struct origin_response rs; /* what the origin answered */
	bool answered;             /* the render did not fail: rs is a response */
	struct body_file body;     /* rs's body when it is in a file (open_body) */
	bool static_file;          /* the body is a file under --root (kept past load_body) */
	struct manifest_entry *e;  /* the entry being made, NULL: none */
	struct found_links links;
	enum page_fate fate;
	enum crawl_skip_why skip;  /* PAGE_SKIPPED: why */
	enum outcome stored;       /* how its file was published: new, changed or unchanged;
				    * OUTCOME_REDIRECT when it went to the slash form */
	char *seed_failed;         /* for crawl_result.errors, or NULL */
	bool seed_moved;           /* a seed redirecting inside the site: its target is a seed */
	char *redirect_to;         /* yielded to another spelling of its file: that one */
	struct strlist written, removed; /* the tree paths its publish wrote and removed */
	char err[ERR_LEN];         /* PAGE_FAILED: why */
};

/* Render j's target and record what it gave. Unlocked. */
void page_process(struct crawl *c, struct job *j);

#endif
