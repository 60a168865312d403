/* crawl.h - the crawl engine: renders pages through an origin, publishes
 * them into a tree, follows their links, and keeps the manifest. Driven
 * by 'snapshot' (one full crawl) and 'watch' (a full crawl, then
 * updates, with render hooks that record dependencies).
 *
 * Steps:
 *   1. Fill a struct crawl_config (crawl_config_init gives defaults);
 *      crawl_config_compile() checks and compiles its regexes.
 *   2. crawl_new() with an open origin, the site and a locked tree: it
 *      loads the tree's manifest. Optionally crawl_set_hooks() and
 *      crawl_set_removal_check().
 *   3. crawl_full(): every page reachable from the seeds (plus robots.txt
 *      and sitemaps); at the end of a complete crawl, files of URLs no
 *      longer reached, or now 404, are removed (unless prune is off).
 *      crawl_update(targets): re-render those targets, crawl links that are
 *      new to the manifest, remove pages that now answer 404/410.
 *      Both save the manifest and return the run's result.
 *   4. crawl_free().
 * The crawler only replaces or removes files the manifest records (size
 * and sha256 still as written); each publish is appended to the journal
 * before its rename, and crawl_new() replays a journal an interrupted run
 * left (manifest.h), so those files are known and pruned like others.
 * Renders run on cfg.jobs threads; the crawler never prints except the
 * progress (cfg.progress: a bar redrawn on a terminal, or a line every
 * cfg.progress_interval seconds), the line per URL of cfg.url_lines and,
 * as they happen, two warnings of a crawl running away (80% of max_pages
 * reached; a URL family taking ever-new values, loops.h) and the per-URL
 * lines of crawl_full() - the caller reports the result.
 *
 * Every URL of a run is counted in exactly one category of the result
 * (stored new, changed or unchanged, redirect, not found, failed,
 * skipped), so that pages is their sum; a URL that changes category
 * within the run (a page that becomes the redirect to its slash form) is
 * moved, not counted twice.
 */
#ifndef CGISNAP_CRAWL_H
#define CGISNAP_CRAWL_H

#include <regex.h>
#include <signal.h>
#include <stdbool.h>
#include <time.h>

#include "base/buf.h"
#include "tree/manifest.h"
#include "origin/origin.h"
#include "base/rewrite.h"
#include "tree/tree.h"
#include "url/url.h"

/* Defaults: a pager that links ?n=N+1 for ever stops at CRAWL_MAX_PAGES
 * URLs, and is named when its parameter took CRAWL_LOOP_WARN values. */
#define CRAWL_MAX_PAGES 100000
#define CRAWL_LOOP_WARN 1000
/* Default --noindex-sample: a URL family whose first this many renders
 * said robots noindex (none stored) is not rendered further (views.h). */
#define CRAWL_NOINDEX_SAMPLE 8
/* Default --max-parse: 16 MiB of HTML is far more than any real page. */
#define CRAWL_MAX_PARSE (16LL * 1024 * 1024)
/* A full crawl in which more than half of the URLs rendered (robots.txt
 * and sitemaps aside), and at least this many, answered 404 has failed:
 * the document root or the site URL is wrong, not the site. */
#define CRAWL_NOT_FOUND_MIN 5
/* Default seconds between two progress lines (CRAWL_PROGRESS_LINE). */
#define CRAWL_PROGRESS_INTERVAL 10

enum crawl_progress {
	CRAWL_PROGRESS_NONE,
	CRAWL_PROGRESS_BAR,  /* one line redrawn in place: stderr is a terminal */
	CRAWL_PROGRESS_LINE, /* a line every progress_interval seconds (cron, journald) */
};

/* What a page's <meta name="robots"> decides (--robots-meta).
 * ROBOTS_META_PAGES, the default: a page that says noindex is not a page
 * of the static site (not stored; a seed always is), and its nofollow is
 * honoured, since its links are the application's views, not the
 * site's; nofollow on a page that is stored is not, because a program
 * that says it on every page would cut the site off at its first page.
 * ROBOTS_META_ALL honours both everywhere; ROBOTS_META_IGNORE neither
 * (wikis mark freshly edited pages noindex: DokuWiki's profile). */
enum robots_meta { ROBOTS_META_PAGES, ROBOTS_META_ALL, ROBOTS_META_IGNORE };

struct crawl_config {
	struct strlist seeds;        /* targets or absolute URLs; default the site URL's path */
	struct strlist include;      /* --include REGEX on targets (any must match) */
	struct strlist exclude;      /* --exclude REGEX on targets (none may match) */
	struct strlist strip;        /* --strip REGEX removed from stored text */
	long max_pages;              /* 0: no bound; default CRAWL_MAX_PAGES */
	long max_depth;              /* -1: no bound; a page's resources (links.h) are
				      * no step further than the page */
	long loop_warn;              /* warn at this many values in a URL family (loops.h); 0: never */
	long long max_parse;         /* bodies over this many bytes are stored as they
				      * are: no links followed, no --strip */
	long jobs;
	/* Between full crawls, hold no entry of the manifest in memory: an
	 * update reads the entries it touches from the tree's database
	 * (manifest_set_lazy), and forgets them once saved. watch, traced:
	 * its memory and start-up then do not grow with the tree. */
	bool lazy_manifest;
	bool follow_nofollow;
	bool no_canonical_links;     /* a page's <link rel=canonical> elsewhere is no redirect */
	enum robots_meta robots_meta; /* what <meta name=robots> decides */
	long noindex_sample;         /* a URL family whose first N renders said noindex
				      * is not rendered further (views.h); 0: never */
	struct strlist view_families; /* --view-family: cut from their first member (views.h) */
	struct strlist volatile_rules; /* --volatile: spans compared without, as the lines of
					* .cgisnap/volatile (volatile.h), beside the tree's */
	bool respect_no_store;
	bool gzip;                   /* .gz siblings for compressible files */
	bool prune;
	bool keep_archives;          /* store archives made on the fly (archive.h) too */
	bool static_query_ignore;    /* a file under --root asked with a query is stored
				      * once, as the file without it (--static-query ignore) */
	enum crawl_progress progress;
	long progress_interval;      /* seconds between lines in CRAWL_PROGRESS_LINE */
	bool url_lines;              /* one line per URL: "200 new 34 ms 5123 bytes /x" (-v) */
	/* Set (by a signal handler: SIGINT) to stop the run: no new render
	 * starts, those under way finish and are recorded, nothing is pruned
	 * and the manifest is saved; the result says interrupted. NULL: never. */
	volatile sig_atomic_t *stop;
	char *not_found;             /* target whose 404 page becomes .cgisnap/404.html ("" none) */
	struct strlist render_alone; /* --render-alone REGEX: rendered with no other render
				      * under way (an application's cache bypass that rewrites
				      * the caches other pages read: DokuWiki's feed) */
	struct strlist render_query; /* --render-query 'REGEX => NAME=VALUE': asked of the
				      * origin with these added to the query, recorded,
				      * linked and stored as the target crawled */

	/* compiled by crawl_config_compile */
	regex_t *include_re, *exclude_re, *strip_re, *alone_re;
	size_t ninclude, nexclude, nstrip, nalone;
	struct rewrite *render_query_rw;
	size_t nrender_query;
};

void crawl_config_init(struct crawl_config *cfg);
/* -1 with err naming the bad regex ("bad --strip regex '(': ..."). */
int crawl_config_compile(struct crawl_config *cfg, char *err);
void crawl_config_release(struct crawl_config *cfg);

/* A failed URL and why, e.g. { "/x.cgi", "timed out after 30 s" }. */
struct crawl_failure {
	char *target;
	char *reason;
};

/* Why a URL that rendered was not stored. A skip is no failure: the run
 * stays complete, nothing is recorded for the URL, and a file an earlier
 * run stored for it is pruned like a vanished page's. */
enum crawl_skip_why {
	CRAWL_SKIP_ARCHIVE,   /* an archive made on the fly, without keep_archives */
	CRAWL_SKIP_OVERSIZE,  /* output over --max-output (origin_response.over_max_output) */
	CRAWL_SKIP_NOINDEX,   /* robots noindex (--robots-meta) */
	CRAWL_SKIP_NO_STORE,  /* Cache-Control no-store, with --respect-no-store */
	CRAWL_SKIP_VIEW,      /* not rendered: a family of noindex views (views.h) */
	CRAWL_NSKIP
};

struct crawl_skip {
	long n;
	char *example; /* the first such target in sort order */
	char *note;    /* e.g. "skipped 2 archives (e.g. /x.tgz): --keep-archives to store them" */
};

struct crawl_result {
	long pages;        /* URLs visited: stored (new, changed, unchanged) + redirects
			    * + not_found + failed + held + skipped */
	long stored_new, stored_changed, stored_unchanged, removed;
	long redirects;    /* 3xx recorded */
	long canonical;    /* ... of them, made by --canonical rules (not rendered) */
	long not_found;    /* 404/410 recorded */
	long failed;
	long held;         /* rendered, not taken: crawl_hooks.hold (held_targets names them) */
	long skipped;      /* the sum of skips[].n */
	struct crawl_skip skips[CRAWL_NSKIP];
	long long bytes;   /* bytes of the files stored (new, changed, unchanged) */
	double seconds;
	bool complete;     /* nothing failed, no bound was hit, no errors */
	bool bounded;      /* --max-pages or --max-depth stopped the crawl */
	bool cut_short;    /* --max-pages did: links found were not crawled */
	bool interrupted;  /* cfg.stop was set: the rest of the queue was not crawled */
	bool not_reached;  /* ... and the stop did leave a job of the queue undone */
	char *bound_note;  /* e.g. "--max-pages 100 reached: 42 URLs not crawled" */
	/* Full crawls: "3 stylesheets, scripts or images of pages answered
	 * 404 (...): '/icons/a.png' (on '/app'), ...; all 3 under '/icons/',
	 * where nothing under --root or a mount is: ..." (a warning; the exit
	 * status is as the counts make it), or NULL. */
	char *requisites_note;
	char *requisites_dir; /* ... the URL directory where nothing is ("/icons/"), or NULL */
	struct crawl_failure *failures;
	size_t nfailures;
	/* What failed the run as a whole (crawl_full), each a message: "the
	 * seed '/x' answered 404: TEXT" (any status >= 400; TEXT the first line
	 * of the body's text, or why the origin refused the path; a seed that
	 * redirects inside the site passes this on to its target), "the seed
	 * '/' redirects to 'URL', outside the site 'SITE': check --site-url", "21 of 22
	 * URLs answered 404 (e.g. '/a', '/b', '/c'): check --root and
	 * --site-url" (CRAWL_NOT_FOUND_MIN). The URLs themselves are counted
	 * as usual (not_found, failed): these add no count. */
	struct strlist errors;
	struct strlist changed_keys; /* pages' files written or removed */
	/* Every tree path this run wrote (pages and .gz siblings) and, apart,
	 * every one it removed (files, and directories left empty as "dir/"):
	 * what a mirror must copy and delete (watch --exec). No path is in
	 * both; one may be listed twice (sort and uniq them). */
	struct strlist written_paths, removed_paths;
	struct strlist rendered;     /* targets rendered in this run */
	struct strlist held_targets; /* targets held (crawl_hooks.hold), each once */
	struct strlist kept;         /* "not removing 'KEY': why": files left in place */
	struct strlist slash_redirects; /* "/a" recorded as a redirect to "/a/", whose file it shares */
	struct strlist aliases;         /* "X → Y": X a redirect to Y, another spelling of its file */
	struct strlist canonical_links; /* "X → Y": X a redirect to Y, the page its rel=canonical names */
	long recovered;              /* files an interrupted run published, found in the journal */
	/* What the run's commit cost (watch -v, tests): manifest entries it
	 * looked at, and rows the manifest's save compared with the
	 * database's. An update's grow with the change, not the tree. */
	long commit_visited;
	long long rows_compared;
	/* Entries a lazy manifest read from the database during the run
	 * (cfg.lazy_manifest): those the run touched, not the tree. */
	long long entries_read;
	/* Full crawls only (families.h): the lines naming query parameters
	 * and URL families that multiplied URLs, with the options that
	 * remove them (none: nothing fired), and one line per parameter. */
	struct strlist family_notes, family_table;
	/* What a run learned, as --write-profile keeps it: the view families
	 * cut ("FAMILY<TAB>N", views.h), and the spans compared without (the
	 * lines of .cgisnap/volatile). */
	struct strlist views_cut, volatile_rules;
};

/* The URLs res's run rendered: its pages but the views cut unrendered. */
static inline long crawl_rendered(const struct crawl_result *res)
{
	return res->pages - res->skips[CRAWL_SKIP_VIEW].n;
}

struct crawl;

struct crawl *crawl_new(const struct crawl_config *cfg, struct origin *origin, const struct site *site,
			struct tree *tree, char *err);
/* 0, or -1 with err when the tree could not be written (the manifest or a
 * removal failed): page failures are reported in res, not here. During
 * the renders the crawl logs, per URL, a response taken with a warning
 * (origin_response.warning) and, at -v (log_verbose), the first lines of
 * what an error response (status >= 400) or a failed render said, or why
 * the origin refused the path: "TARGET: 404: TEXT", "TARGET: output: TEXT". */
int crawl_full(struct crawl *c, struct crawl_result *res, char *err);
int crawl_update(struct crawl *c, const struct strlist *targets, struct crawl_result *res, char *err);
/* Asked at the end of each run, before anything is removed: when ok(arg)
 * is false nothing is pruned (a page that now fails, or was not reached,
 * keeps its file and its manifest line). watch refuses while a source is
 * missing: its pages answer 404 then, and are not gone. */
void crawl_set_removal_check(struct crawl *c, bool (*ok)(void *arg), void *arg);

/* What a caller learns from each render, and its say in what the
 * manifest keeps. watch records dependencies here (watch/deps.h);
 * snapshot sets none. */
struct crawl_hooks {
	/* After every render, whatever it answered or whether it failed (the
	 * --not-found probe too): rs as the origin gave it (after a failed
	 * render, empty but for deps_written); e the manifest entry being
	 * made for it, whose dependency lists the hook may fill, or NULL
	 * when the render failed or is no page. Called from the render
	 * threads at once: the hook locks what it shares. */
	void (*on_render)(void *arg, struct manifest_entry *e, const struct origin_response *rs);
	/* At the end of each run, after the renders, before the manifest m
	 * is saved: the hook may change the entries' dependencies. changed
	 * names the targets whose entries the run made or altered (NULL:
	 * every entry, crawl_full); only they are saved, so a hook that
	 * alters another entry appends its target. t: the tree, whose
	 * database still holds the last run's state (manifest_dependents). */
	void (*on_commit)(void *arg, struct manifest *m, struct strlist *changed, struct tree *t);
	void *arg;
	/* After on_render, for a page that rendered (e not NULL; no
	 * robots.txt or sitemap): true holds it. What was published before
	 * stays (its file and its manifest entry; none for a page new to the
	 * tree), the URL is counted as held (crawl_result.held_targets), its
	 * links are not followed and the run is not complete (nothing is
	 * pruned). watch holds a page whose render read a source that was
	 * being written while it ran: it may have read half a save, and the
	 * page is rendered again once the save is done. static_file: the
	 * file under --root the page is a copy of, read now (NULL for a
	 * render). Called from the render threads at once; NULL: nothing is
	 * held. */
	bool (*hold)(void *hold_arg, const struct manifest_entry *e, const struct origin_response *rs,
		     const char *static_file);
	void *hold_arg;
};

/* Set the hooks (copied; NULL members: none). Call before a run. */
void crawl_set_hooks(struct crawl *c, const struct crawl_hooks *h);
/* The targets an interrupted run published first, recovered from its
 * pending rows without dependencies (manifest_recover): to be rendered
 * again by a caller that follows their sources. */
const struct strlist *crawl_recovered_new(const struct crawl *c);
/* The crawl's manifest (owned by the crawl; valid until the next run):
 * lazy with cfg.lazy_manifest, but during a full crawl. */
struct manifest *crawl_manifest(struct crawl *c);
void crawl_result_release(struct crawl_result *res);
void crawl_free(struct crawl *c);

#endif
