/* status.c - 'cgisnap status DIR': a tree's state at a glance: its URLs
 * by status, its files, its recorded dependencies, the profile and site
 * settings it was made with, and what its last run did. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "inspect.h"
#include "crawl/lastrun.h"
#include "base/log.h"
#include "base/opts.h"
#include "base/xalloc.h"

static void print_help(const struct opt *const *tables)
{
	(void)tables;
	printf("usage: cgisnap status DIR\n\n"
	       "Print the state of the snapshot tree DIR: its URLs by HTTP status, its files\n"
	       "and their size, the dependencies watch recorded (by kind: R read, E checked\n"
	       "for existence, L directory listed, C directory's files all read, U untraced),\n"
	       "the profile and site settings it was made with, and the last run that wrote\n"
	       "it (snapshot, or a full crawl of watch): when, how long, its result and its\n"
	       "counts, and the URLs that failed. It only reads: a running watch may hold\n"
	       "the tree. 'cgisnap why DIR URL' tells what a page depends on.\n\n"
	       "Options:\n"
	       "  -h, --help     show this help\n\n"
	       "Exit status: 0, or 2 when DIR is not a readable cgisnap tree.\n");
}

/* Counts of each status, in order of status. */
struct status_count {
	int status;
	long n;
};

static int cmp_status(const void *a, const void *b)
{
	const struct status_count *x = a, *y = b;
	return (x->status > y->status) - (x->status < y->status);
}

static void print_urls(const struct manifest *m)
{
	size_t n;
	struct manifest_entry **e = manifest_sorted(m, &n);
	struct status_count *counts = NULL;
	size_t ncounts = 0;
	long files = 0, pages_with_deps = 0;
	long long bytes = 0;
	long kinds[sizeof MANIFEST_DEP_KINDS - 1] = { 0 };
	for (size_t i = 0; i < n; i++) {
		size_t j = 0;
		while (j < ncounts && counts[j].status != e[i]->status)
			j++;
		if (j == ncounts) {
			counts = xrealloc(counts, (ncounts + 1) * sizeof *counts);
			counts[ncounts++] = (struct status_count){ e[i]->status, 0 };
		}
		counts[j].n++;
		if (e[i]->key) {
			files++;
			bytes += e[i]->bytes;
		}
		if (manifest_deps_count(e[i]))
			pages_with_deps++;
		for (int k = 0; MANIFEST_DEP_KINDS[k]; k++)
			kinds[k] += (long)manifest_deps(e[i], MANIFEST_DEP_KINDS[k])->n;
	}
	if (ncounts > 1)
		qsort(counts, ncounts, sizeof *counts, cmp_status);
	printf("URLs: %zu, %ld with a file (%lld bytes)\n", n, files, bytes);
	for (size_t j = 0; j < ncounts; j++)
		printf("  %d: %ld\n", counts[j].status, counts[j].n);
	if (pages_with_deps)
		printf("dependencies: %ld pages record what their render read: R %ld, E %ld, L %ld, C %ld, U %ld, "
		       "A %ld, W %ld\n",
		       pages_with_deps, kinds[0], kinds[1], kinds[2], kinds[3], kinds[4], kinds[5], kinds[6]);
	else
		printf("dependencies: none recorded (watch records them as it renders; snapshot does not)\n");
	free(counts);
	free(e);
}

static void print_settings(const struct inspected *in)
{
	const struct site *s = &in->site;
	printf("site: %s\n", s->url);
	for (size_t i = 0; i < s->aliases.n; i++)
		printf("  alias %s\n", s->aliases.items[i]);
	for (size_t i = 0; i < s->ignore_params.n; i++)
		printf("  --ignore-param %s\n", s->ignore_params.items[i]);
	if (s->sort_query)
		printf("  --sort-query\n");
	for (size_t i = 0; i < s->ncanonical; i++)
		printf("  --canonical '%s'\n", s->canonical[i].spec);
}

static void print_lastrun(const struct lastrun *lr)
{
	char when[64];
	inspect_time(lr->started, when, sizeof when);
	printf("last run: %s at %s, %s s: %s (exit status %ld)\n", lr->command ? lr->command : "?", when,
	       lr->seconds ? lr->seconds : "?", lr->result ? lr->result : "?", lr->exit_status);
	printf("  %ld URLs: %ld stored (%ld new, %ld changed, %ld unchanged), %ld redirects, %ld not found, "
	       "%ld failed, %ld held, %ld skipped; %ld files removed\n",
	       lr->urls, lr->stored_new + lr->stored_changed + lr->stored_unchanged, lr->stored_new,
	       lr->stored_changed, lr->stored_unchanged, lr->redirects, lr->not_found, lr->failed, lr->held,
	       lr->skipped, lr->removed);
	for (size_t i = 0; i < lr->errors.n; i++)
		printf("  error: %s\n", lr->errors.items[i]);
	if (lr->failures.n)
		printf("failures of the last run (%ld):\n", lr->failed);
	for (size_t i = 0; i < lr->failures.n; i++)
		printf("  %s\n", lr->failures.items[i]);
	if ((long)lr->failures.n < lr->failed)
		printf("  ... and %ld more\n", lr->failed - (long)lr->failures.n);
}

int cmd_status(int argc, char **argv)
{
	const struct opt table[] = { OPT_END };
	const struct opt *const tables[] = { table, NULL };
	struct strlist args = STRLIST_INIT;
	struct inspected in;
	struct lastrun lr;
	bool found = false;
	char err[ERR_LEN];
	int rc = opts_parse(tables, argc, argv, 0, &args, err);

	memset(&in, 0, sizeof in);
	memset(&lr, 0, sizeof lr);
	rc = cli_parsed("status", rc, err, print_help, tables);
	if (rc != CLI_GO_ON)
		goto out;
	if (args.n != 1) {
		rc = usage_error("status", args.n ? "give one tree" : "no tree given");
		goto out;
	}
	if (inspect_open(&in, args.items[0], err) < 0 || lastrun_load(&in.tree, &lr, &found, err) < 0) {
		log_error("%s", err);
		rc = EXIT_USAGE;
		goto out;
	}
	char *profile = tree_load_profile(&in.tree, err);
	if (!profile && *err)
		log_warn("%s", err);
	printf("tree: %s\n", args.items[0]);
	printf("profile: %s\n", profile ? profile : "not recorded");
	free(profile);
	print_settings(&in);
	print_urls(&in.manifest);
	if (found)
		print_lastrun(&lr);
	else
		printf("last run: not recorded (made by a cgisnap that did not record it)\n");
	rc = 0;
out:
	lastrun_release(&lr);
	inspect_close(&in);
	strlist_clear(&args);
	opts_release(tables);
	return rc;
}
