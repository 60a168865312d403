/* why.c - 'cgisnap why DIR URL': what a page's render depended on, by
 * kind, as watch recorded it; with --path P, which pages a change of P
 * re-renders. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "inspect.h"
#include "base/log.h"
#include "base/opts.h"
#include "tree/tree.h"
#include "base/xalloc.h"

static char *why_path;

static const struct opt why_opts[] = {
	{ "path", 0, OPT_STR, &why_path, "P",
	  "the pages whose recorded dependencies a change of file or directory P touches", 0, 0 },
	OPT_END
};

static void print_help(const struct opt *const *tables)
{
	printf("usage: cgisnap why DIR URL\n"
	       "       cgisnap why DIR --path P [URL]\n\n"
	       "Say what the page URL (a target such as /doku.php?id=start, or an absolute URL\n"
	       "of the site) of the tree DIR depends on, as watch recorded it while rendering,\n"
	       "grouped by kind: R read (any change matters), E checked for existence (its\n"
	       "creation or removal matters), L directory listed (a name appearing or going\n"
	       "away in it), C directory whose files were all read (any change of a file in\n"
	       "it), U untraced program (any change may matter). With --path P, the pages a\n"
	       "change of P touches, each with the kind and the recorded path that makes it\n"
	       "so (P a directory: also everything recorded below it); with URL too, only\n"
	       "that page. watch re-renders these, and the pages its --depends and --always\n"
	       "rules name (watch -v says why each URL is re-rendered). Only reads the tree.\n\n"
	       "Options:\n");
	opts_print_help(stdout, tables);
	printf("  -h, --help     show this help\n\n"
	       "Exit status: 0; 1 URL is not in the tree's manifest; 2 usage error or DIR is\n"
	       "not a readable cgisnap tree.\n");
}

/* p is dir or below it. */
static bool at_or_below(const char *p, const char *dir)
{
	size_t n = strlen(dir);
	if (n > 1 && dir[n - 1] == '/')
		n--;
	return !strncmp(p, dir, n) && (p[n] == '\0' || p[n] == '/' || (n == 1 && dir[0] == '/'));
}

/* Whether a change of path touches the recorded dependency dep of kind
 * (as watch/deps.c picks pages): the path itself, a name in a listed or
 * wholly read directory, anything below a directory that changed. */
static bool touches(char kind, const char *dep, const char *path)
{
	if (kind == 'U')
		return true;
	if (!strcmp(dep, path) || at_or_below(dep, path))
		return true;
	if (kind == 'L' || kind == 'C') {
		const char *slash = strrchr(path, '/');
		size_t n = slash ? (size_t)(slash - path) : 0;
		if (slash && n == 0)
			n = 1; /* a file in / */
		return slash && strlen(dep) == n && !strncmp(dep, path, n);
	}
	return false;
}

static void print_page(struct manifest_entry *e)
{
	char when[64];
	inspect_time((long)e->changed, when, sizeof when);
	printf("%s: %d", e->target, e->status);
	if (e->location)
		printf(", a redirect to %s", e->location);
	if (e->key)
		printf(", file %s (%lld bytes, %s)", e->key, e->bytes, e->content_type ? e->content_type : "no type");
	printf(", rendered in %ld ms, changed %s\n", e->render_ms, when);
	size_t total = manifest_deps_count(e);
	if (!total) {
		printf("no recorded dependencies (watch records them as it renders; snapshot does not)\n");
		return;
	}
	printf("depends on %zu path%s:\n", total, total == 1 ? "" : "s");
	for (const char *k = MANIFEST_DEP_KINDS; *k; k++) {
		struct strlist *l = manifest_deps(e, *k);
		if (!l->n)
			continue;
		printf("  %c %s (%zu):\n", *k, inspect_kind_name(*k), l->n);
		for (size_t i = 0; i < l->n; i++)
			printf("    %s\n", l->items[i]);
	}
}

/* The pages (only e when given) path touches: "KIND TARGET  (DEP)". */
static void print_dependents(const struct manifest *m, struct manifest_entry *only, const char *path)
{
	size_t n;
	struct manifest_entry **all = only ? NULL : manifest_sorted(m, &n);
	struct manifest_entry **list = only ? &only : all;
	if (only)
		n = 1;
	size_t pages = 0;
	printf("pages a change of '%s' touches:\n", path);
	for (size_t i = 0; i < n; i++) {
		bool any = false;
		for (const char *k = MANIFEST_DEP_KINDS; *k && !any; k++) {
			struct strlist *l = manifest_deps(list[i], *k);
			for (size_t j = 0; j < l->n && !any; j++) {
				if (!touches(*k, l->items[j], path))
					continue;
				printf("  %c %s  (%s %s)\n", *k, list[i]->target, inspect_kind_name(*k), l->items[j]);
				any = true;
			}
		}
		pages += any;
	}
	printf("%zu page%s\n", pages, pages == 1 ? "" : "s");
	free(all);
}

int cmd_why(int argc, char **argv)
{
	const struct opt *const tables[] = { why_opts, NULL };
	struct strlist args = STRLIST_INIT;
	struct inspected in;
	char err[ERR_LEN];
	char *abs = NULL, *target = NULL, *path = NULL;
	int rc = opts_parse(tables, argc, argv, 0, &args, err);

	memset(&in, 0, sizeof in);
	rc = cli_parsed("why", rc, err, print_help, tables);
	if (rc != CLI_GO_ON)
		goto out;
	if (args.n < 1 || args.n > 2 || (args.n == 1 && !why_path)) {
		rc = usage_error("why", args.n > 2 ? "give one tree and one URL"
				 : args.n ? "no URL given (or --path P)" : "no tree given");
		goto out;
	}
	if (why_path && !*why_path) {
		rc = usage_error("why", "--path needs a path");
		goto out;
	}
	if (inspect_open(&in, args.items[0], err) < 0) {
		log_error("%s", err);
		rc = EXIT_USAGE;
		goto out;
	}
	struct manifest_entry *e = NULL;
	if (args.n == 2) {
		const char *why;
		abs = url_resolve_why(in.site.url, args.items[1], &why);
		if (!abs) {
			log_error("bad URL '%s': %s", args.items[1], why);
			rc = EXIT_USAGE;
			goto out;
		}
		target = site_target(&in.site, abs);
		if (!target) {
			log_error("'%s' is not a URL of the site '%s'", args.items[1], in.site.url);
			rc = EXIT_USAGE;
			goto out;
		}
		e = manifest_get(&in.manifest, target);
		if (!e) {
			log_error("'%s' is not in the manifest of '%s'", target, args.items[0]);
			rc = EXIT_PARTIAL;
			goto out;
		}
	}
	if (why_path) {
		/* Recorded paths are absolute, links resolved, as the renders
		 * opened them. */
		path = tree_real_path(why_path);
		if (!path) {
			log_error("cannot resolve --path '%s'", why_path);
			rc = EXIT_USAGE;
			goto out;
		}
		print_dependents(&in.manifest, e, path);
	} else {
		print_page(e);
	}
	rc = 0;
out:
	free(abs);
	free(target);
	free(path);
	inspect_close(&in);
	strlist_clear(&args);
	opts_release(tables);
	return rc;
}
