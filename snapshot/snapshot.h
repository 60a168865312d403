/* snapshot.h - what 'snapshot' shares with 'watch': its options, the set-up
 * they describe (site, crawl configuration, origin, tree), and the summary
 * of a crawl. watch accepts every snapshot option and adds its own. */
#ifndef CGISNAP_SNAPSHOT_H
#define CGISNAP_SNAPSHOT_H

#include <stdbool.h>
#include <stdio.h>

#include "crawl.h"
#include "opts.h"
#include "origin.h"
#include "tree.h"
#include "url.h"

/* The options' storage (filled by opts_parse with snapshot_opts). */
struct snapshot_options {
	struct strlist seeds, include, exclude, strip, ignore_params;
	bool sort_query, follow_nofollow, respect_robots_meta, respect_no_store;
	bool no_prune, no_gzip, quiet, verbose, force;
	long max_pages, max_depth, loop_warn; /* -1 when not given */
	long jobs;
	long max_parse;              /* -1: the default */
	char *not_found;
};

extern struct snapshot_options snapshot_options;
extern const struct opt snapshot_opts[];

/* Everything a crawl needs, opened from the parsed options. */
struct snapshot_setup {
	struct site site;
	struct crawl_config crawl;
	struct origin *origin;
	struct tree tree;
	bool tree_open;
};

/* Check the options, open the origin, then claim (tree_claim: missing,
 * empty, a tree, or --force), open and lock the tree at dir, which must
 * not overlap --root. -1 with err on a usage or set-up error: nothing in the tree
 * was changed. */
int snapshot_setup_open(struct snapshot_setup *s, const char *dir, char *err);
void snapshot_setup_close(struct snapshot_setup *s);

/* The summary lines of a crawl, and each failed URL with its reason. */
void snapshot_report(const struct crawl_result *res, const char *what, bool quiet);

#endif
