/* crawlopts.h - the crawl's command line, shared by 'snapshot' and 'watch':
 * its options, the set-up they describe (site, crawl configuration,
 * origin, tree), and the summary of a crawl. Program code, next to
 * originopts.h; the engine itself is lib/crawl/crawl.h. watch accepts every
 * snapshot option and adds its own. */
#ifndef CGISNAP_CRAWLOPTS_H
#define CGISNAP_CRAWLOPTS_H

#include <stdbool.h>
#include <stdio.h>

#include "crawl/crawl.h"
#include "base/opts.h"
#include "origin/origin.h"
#include "tree/tree.h"
#include "url/url.h"

/* The options' storage (filled by opts_parse with crawl_opts). */
struct crawl_options {
	struct strlist seeds, include, exclude, strip, ignore_params, canonical, render_query, render_alone, view_families,
		volatiles;
	bool sort_query, follow_nofollow, respect_robots_meta, respect_no_store, no_canonical_links;
	bool no_prune, no_gzip, no_sync, quiet, verbose, force;
	bool keep_archives;
	long max_pages, max_depth, loop_warn, noindex_sample; /* -1 when not given */
	long jobs;
	long max_parse;              /* -1: the default */
	char *not_found;
	char *seed_command;          /* --seed-command: seeds the site prints */
	char *static_query;          /* "keep" (NULL) or "ignore" */
	char *robots_meta;           /* "pages" (NULL), "all" or "ignore" */
	char *progress;              /* "bar", "line", "none"; NULL: bar on a terminal, else line */
	long progress_interval;      /* -1: CRAWL_PROGRESS_INTERVAL */
};

extern struct crawl_options crawl_options;
extern const struct opt crawl_opts[];

/* Everything a crawl needs, opened from the parsed options. */
struct crawl_setup {
	struct site site;
	struct crawl_config crawl;
	struct origin *origin;
	struct tree tree;
	bool tree_open;
};

/* Check the options and fill s->crawl (compiled) and s->site from them;
 * nothing is opened, nothing run. -1 with err on a usage error. For a
 * command that reads a crawl's rules without crawling (verify); close
 * with crawl_setup_close. */
int crawl_setup_rules(struct crawl_setup *s, char *err);
/* crawl_setup_rules, then run --seed-command, open the origin, then claim (tree_claim: missing,
 * empty, a tree, or --force), open and lock the tree at dir, which must
 * not overlap --root. -1 with err on a usage or set-up error, TREE_BUSY
 * with err when another cgisnap holds the tree: nothing in the tree was
 * changed. */
int crawl_setup_open(struct crawl_setup *s, const char *dir, char *err);
/* Log a crawl_setup_open() failure (a busy tree only without -q) and
 * return the exit status for it: EXIT_BUSY or EXIT_USAGE. */
int crawl_setup_exit(int rc, const char *err);
void crawl_setup_close(struct crawl_setup *s);

/* Record the run in the tree's lastrun (lastrun.h) for 'cgisnap status':
 * command ran it and exits exit_status. A failure to write it is a
 * warning: the tree itself is written. */
void crawl_record_run(struct tree *t, const char *command, const struct crawl_result *res, int exit_status);

/* The summary lines of a crawl, and each failed URL with its reason. */
void crawl_report(const struct crawl_result *res, const char *what, bool quiet);
/* One line when the programs wrote to stderr since the last call: how
 * many lines, the first, and the file they are in (the tree's
 * .cgisnap/error.log, CRAWL_ERROR_LOG; -v shows each as it comes). */
void crawl_report_stderr(const struct crawl_setup *s, bool quiet);
#define CRAWL_ERROR_LOG "error.log"

#endif
