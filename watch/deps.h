/* deps.h - which pages a set of changed source files affects (the
 * recording of dependencies as the crawl renders is lib/deps/recorder.h).
 *
 * Three sources of knowledge, used together:
 *   - recorded dependencies (CGI origins, traced): the manifest's deps,
 *     looked up by a struct dep_index as "path -> pages". A file
 *     changed: the pages that read it (opened, stat'ed: also those that
 *     found it missing), and those that read its whole directory (C). A
 *     name appeared or went away: also the pages that only checked it
 *     exists (E) and those that listed its directory (L). A directory
 *     went away: the pages that depended on anything below it. A page
 *     whose render could not be traced (U: a statically linked program,
 *     one that closed the trace) is re-rendered on every change.
 *   - --depends 'REGEX => URL' rules: a POSIX ERE matched (unanchored)
 *     against the changed path; $0..$9 in URL are replaced by the match
 *     and its groups, $$ by a dollar sign.
 *   - --always URL: pages re-rendered on every change.
 * The result is ordered so that specific pages (few dependencies: the
 * page of the file that changed) come before aggregates (indexes,
 * backlinks, recent changes), so that the page the editor is looking at
 * is published first.
 */
#ifndef CGISNAP_WATCH_DEPS_H
#define CGISNAP_WATCH_DEPS_H

#include <pthread.h>
#include <regex.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"
#include "crawl/crawl.h"
#include "deps/recorder.h"
#include "base/hashmap.h"
#include "tree/manifest.h"
#include "base/rewrite.h"
#include "url/url.h"

/* The changes of one batch: absolute path -> FSW_* flags (fswatch.h),
 * merged over every event of the path; and the pages 'cgisnap notify'
 * named (canonical targets), which no file change stands for. */
struct changes {
	struct hashmap paths;  /* values: flags, cast to a pointer */
	struct strlist order;  /* paths in the order they first changed */
	struct strlist urls;   /* notified targets, in order, each once */
	struct hashmap url_seen;
};

#define CHANGES_INIT { HASHMAP_INIT, STRLIST_INIT, STRLIST_INIT, HASHMAP_INIT }

void changes_add(struct changes *c, const char *path, unsigned flags);
unsigned changes_flags(const struct changes *c, const char *path);
size_t changes_count(const struct changes *c); /* paths only */
/* A notified page: target is canonical (the site's). */
void changes_add_url(struct changes *c, const char *target);
/* "a, b, c and 4 more" from the first max paths (the caller frees it). */
char *changes_summary(const struct changes *c, size_t max);
void changes_clear(struct changes *c);

/* --depends rules (rewrite.h) and --always pages. */
struct watch_rules {
	struct rewrite *rules;
	size_t n;
	struct strlist always; /* canonical targets */
};

#define WATCH_RULES_INIT { NULL, 0, STRLIST_INIT }

/* Add the rule "REGEX => URL" (spaces around "=>" optional; the last
 * "=>" splits). -1 with err: "bad --depends rule 'x': expected 'REGEX =>
 * URL'", or the regex's error. */
int watch_rules_add(struct watch_rules *r, const char *spec, char *err);
/* Add an --always page: url is resolved against the site's URL and must
 * belong to the site. -1 with err otherwise. */
int watch_rules_always(struct watch_rules *r, const struct site *site, const char *url, char *err);
bool watch_rules_empty(const struct watch_rules *r);
void watch_rules_release(struct watch_rules *r);

/* The recorded dependencies, turned around: "path -> pages" is a lookup
 * in the tree's database (manifest_dependents: indexed by directory, a
 * dependency set shared by many pages found once), so a batch costs the
 * same in a tree of 1,000 pages or 100,000, and nothing is rebuilt after
 * one. The manifest gives each page's sort weight. */
struct dep_index {
	struct tree *tree;           /* NULL: no recorded dependencies */
	struct manifest *m;          /* the pages as the tree holds them (lazy, traced) */
};

#define DEP_INDEX_INIT { NULL, NULL }

/* Look the dependencies up in t's database (saved: the state of the last
 * commit), the weights in m; both must outlive ix's use. */
void dep_index_open(struct dep_index *ix, struct tree *t, struct manifest *m);

/* The pages to re-render for ch: from ix (may be empty), the rules and
 * the --always pages, without repeats, most specific first. site turns
 * the rules' URLs into targets; a URL of another site is skipped with a
 * warning. A notified URL (ch->urls) is re-rendered itself, first, with
 * the rules whose REGEX matches its target and the --always pages.
 * targets is appended to. */
void deps_targets(const struct dep_index *ix, const struct watch_rules *r, const struct site *site,
		  const struct changes *ch, struct strlist *targets);
/* The same, with why[i] saying why targets[i] was picked (for watch -v):
 * "PATH changed (R PATH)", "PATH created (L DIR)", "PATH removed (E
 * PATH)", "DIR removed (R DIR/x)", "PATH changed (C DIR)", "PATH changed
 * (U: ...)", "PATH changed (--depends 'SPEC')", "notified", "notified
 * TARGET (--depends 'SPEC')", "--always"; the first reason found for a
 * page, changes taken in order. */
/* -1 when a dependency lookup failed and the tree's pages could not be
 * listed either (logged): the caller re-crawls everything. */
int deps_targets_why(const struct dep_index *ix, const struct watch_rules *r, const struct site *site,
		     const struct changes *ch, struct strlist *targets, struct strlist *why);

/* What 'watch --poll' re-renders: the --always pages and every page a
 * --depends rule can name. A rule URL without $N references is one page;
 * one with them names every target of m it can expand to (each $N
 * standing for any text), matched against the target, or against the
 * page's absolute URL when the rule's URL is absolute. Sorted, without
 * repeats; appended to targets. */
void deps_poll_targets(const struct watch_rules *r, const struct site *site, struct manifest *m,
		       struct strlist *targets);

#endif
