/* crawlopts.c - the crawl's options and the set-up they describe
 * (crawlopts.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli/crawlopts.h"
#include "cli/apacheconf.h"
#include "crawl/lastrun.h"
#include "crawl/views.h"
#include "crawl/volatile.h"
#include "tree/publish.h"
#include "cli/cli.h"
#include "base/log.h"
#include "cli/originopts.h"
#include "origin/stderrlog.h"
#include "base/shcmd.h"
#include "base/xalloc.h"

#define STR_(x) #x
#define STR(x) STR_(x)

/* -1: not given, the crawl's default. */
struct crawl_options crawl_options = { .max_pages = -1, .max_depth = -1, .loop_warn = -1, .noindex_sample = -1, .max_parse = -1,
				       .progress_interval = -1 };

const struct opt crawl_opts[] = {
	{ "seed", 0, OPT_LIST, &crawl_options.seeds, "URL",
	  "start crawling here (repeatable; default the site URL's path)", 0, 0 },
	{ "seed-command", 0, OPT_STR, &crawl_options.seed_command, "CMD",
	  "run CMD (sh -c, in --root) at start: each line it prints is one more --seed (pages no link reaches, "
	  "such as archives; profiles: WordPress's)", 0, 0 },
	{ "jobs", 'j', OPT_INT, &crawl_options.jobs, "N", "render N pages at once (default: cores)", 1, 1024 },
	{ "ignore-param", 0, OPT_LIST, &crawl_options.ignore_params, "GLOB",
	  "drop query parameters named like GLOB (utm_*, fbclid; repeatable)", 0, 0 },
	{ "sort-query", 0, OPT_BOOL, &crawl_options.sort_query, NULL,
	  "put query parameters in a canonical (sorted) order", 0, 0 },
	{ "canonical", 0, OPT_LIST, &crawl_options.canonical, "'REGEX => URL'",
	  "record targets matching REGEX as a 302 to URL ($1..$9: groups; first rule wins), "
	  "crawl URL instead (repeatable)", 0, 0 },
	{ "render-query", 0, OPT_LIST, &crawl_options.render_query, "'REGEX => NAME=VALUE'",
	  "ask the origin for targets matching REGEX with NAME=VALUE added to the query, stored as "
	  "crawled (a cache bypass such as DokuWiki's purge=1; first rule wins; repeatable)", 0, 0 },
	{ "render-alone", 0, OPT_LIST, &crawl_options.render_alone, "REGEX",
	  "render targets matching REGEX with no other render under way (one whose cache bypass "
	  "rewrites the caches other pages read: DokuWiki's feed; repeatable)", 0, 0 },
	{ "include", 0, OPT_LIST, &crawl_options.include, "REGEX",
	  "crawl only targets matching REGEX, and the stylesheets, scripts and images of their pages, as wget -p (repeatable)", 0, 0 },
	{ "exclude", 0, OPT_LIST, &crawl_options.exclude, "REGEX",
	  "never crawl targets matching REGEX (repeatable)", 0, 0 },
	{ "max-pages", 0, OPT_INT, &crawl_options.max_pages, "N",
	  "stop after N URLs, spent across URL families breadth-first, with a warning (default " STR(CRAWL_MAX_PAGES) "; 0: no bound)",
	  0, 1L << 40 },
	{ "max-depth", 0, OPT_INT, &crawl_options.max_depth, "N",
	  "follow links at most N steps from a seed (a page's stylesheets, images and icons are no step)",
	  0, 1L << 20 },
	{ "loop-warn", 0, OPT_INT, &crawl_options.loop_warn, "N",
	  "warn when a URL's parameter takes N ever-new values (default " STR(CRAWL_LOOP_WARN)
	  "; 0: never)",
	  0, 1L << 40 },
	{ "strip", 0, OPT_LIST, &crawl_options.strip, "REGEX",
	  "remove matching text (per-request tokens, web bugs) before storing", 0, 0 },
	{ "max-parse", 0, OPT_INT, &crawl_options.max_parse, "BYTES",
	  "store larger bodies unparsed: no links followed, no --strip (default 16 MiB)", 0, 1L << 40 },
	{ "follow-nofollow", 0, OPT_BOOL, &crawl_options.follow_nofollow, NULL,
	  "also follow rel=\"nofollow\" links (edit, login, reply links)", 0, 0 },
	{ "no-canonical-links", 0, OPT_BOOL, &crawl_options.no_canonical_links, NULL,
	  "store a page whose <link rel=canonical> names another page of the site (default: a 301 to that "
	  "page, which is crawled)", 0, 0 },
	{ "robots-meta", 0, OPT_STR, &crawl_options.robots_meta, "pages|all|ignore",
	  "<meta name=robots>: pages (default): a noindex page is not stored, nor its nofollow links "
	  "followed; all: nofollow honoured on every page too; ignore: neither (wikis mark fresh pages "
	  "noindex)", 0, 0 },
	{ "respect-robots-meta", 0, OPT_BOOL, &crawl_options.respect_robots_meta, NULL,
	  "the same as --robots-meta all", 0, 0 },
	{ "noindex-sample", 0, OPT_INT, &crawl_options.noindex_sample, "N",
	  "a URL family (edit, history, login?returnto= views) whose first N pages said robots noindex, "
	  "none stored, is not rendered further (default " STR(CRAWL_NOINDEX_SAMPLE) "; 0: render every URL)",
	  0, 1L << 20 },
	{ "view-family", 0, OPT_LIST, &crawl_options.view_families, "FAMILY",
	  "a URL family known to be views (as the summary names it: '/index.php?action=…&title=…'): "
	  "its first --noindex-sample URLs are rendered for their links, the rest not, whatever those say "
	  "(--write-profile writes them; repeatable)", 0, 0 },
	{ "volatile", 0, OPT_LIST, &crawl_options.volatiles, "'SET<TAB>TEXT'",
	  "compare pages without the span after TEXT made of SET's bytes, as learned spans are "
	  "(.cgisnap/volatile's lines; --write-profile writes them; repeatable)", 0, 0 },
	{ "respect-no-store", 0, OPT_BOOL, &crawl_options.respect_no_store, NULL,
	  "skip pages sent with Cache-Control no-store/no-cache/private", 0, 0 },
	{ "not-found", 0, OPT_STR, &crawl_options.not_found, "TARGET",
	  "keep this URL's 404 page as the tree's 404 page (default /cgisnap-404-probe)", 0, 0 },
	{ "no-prune", 0, OPT_BOOL, &crawl_options.no_prune, NULL,
	  "keep files of URLs no longer reachable or now 404", 0, 0 },
	{ "force", 0, OPT_BOOL, &crawl_options.force, NULL,
	  "adopt a DIR that is neither empty nor a cgisnap tree (its files stay untouched)", 0, 0 },
	{ "keep-archives", 0, OPT_BOOL, &crawl_options.keep_archives, NULL,
	  "store archives made on the fly (tar.gz, zip, ... by type or attachment name): skipped by default",
	  0, 0 },
	{ "static-query", 0, OPT_STR, &crawl_options.static_query, "keep|ignore",
	  "ignore: a file under --root asked with a query (x.css?ver=6.1) is stored once as the file"
	  " (default keep: x.css@ver=6.1.css)", 0, 0 },
	{ "no-gzip", 0, OPT_BOOL, &crawl_options.no_gzip, NULL, "write no .gz siblings", 0, 0 },
	{ "no-sync", 0, OPT_BOOL, &crawl_options.no_sync, NULL,
	  "write without fsync: faster on a slow disk, but a power cut may then leave pages the next run "
	  "refuses to overwrite (a tree on tmpfs, or made anew each time, loses nothing by it)", 0, 0 },
	{ "progress", 0, OPT_STR, &crawl_options.progress, "bar|line|none",
	  "bar: one line redrawn on the terminal; line: a line every --progress-interval s "
	  "(default bar on a terminal, line otherwise; -q: none)", 0, 0 },
	{ "progress-interval", 0, OPT_INT, &crawl_options.progress_interval, "S",
	  "seconds between two --progress=line lines (default " STR(CRAWL_PROGRESS_INTERVAL) ")", 1, 86400 },
	{ "quiet", 'q', OPT_BOOL, &crawl_options.quiet, NULL, "print only failures", 0, 0 },
	{ "verbose", 'v', OPT_BOOL, &crawl_options.verbose, NULL,
	  "say more: a line per URL (status, ms, bytes, new/changed/unchanged/redirect/not-found/"
	  "failed/skipped), error pages' text", 0, 0 },
	OPT_END
};

static void copy_list(struct strlist *dst, const struct strlist *src)
{
	for (size_t i = 0; i < src->n; i++)
		strlist_add(dst, src->items[i]);
}

/* The largest output of --seed-command: URLs, many. */
#define SEED_COMMAND_MAX (4 * 1024 * 1024)

/* Run --seed-command in --root (or here) and add each non-empty line it
 * prints to seeds (check_seeds then checks them as it checks --seed). -1
 * with err when it cannot run, fails or prints too much; printing nothing
 * is no error: a site may have no such page yet. */
static int run_seed_command(const char *cmd, struct strlist *seeds, char *err)
{
	struct buf out = BUF_INIT;
	int status, rc = -1;
	bool too_long;
	if (shcmd_output("--seed-command", cmd, origin_options.root, origin_options.runas, SEED_COMMAND_MAX, &out, &status, &too_long,
			 err) < 0)
		return -1;
	if (too_long) {
		err_set(err, "--seed-command '%s' printed more than %d MiB", cmd, SEED_COMMAND_MAX / (1024 * 1024));
		goto out;
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		if (WIFEXITED(status))
			err_set(err, "--seed-command '%s' exited %d", cmd, WEXITSTATUS(status));
		else
			err_set(err, "--seed-command '%s' was killed by signal %d", cmd, WTERMSIG(status));
		goto out;
	}
	if (out.len && memchr(out.data, '\0', out.len)) {
		err_set(err, "--seed-command '%s' printed a NUL byte, not URLs", cmd);
		goto out;
	}
	struct strlist lines = STRLIST_INIT;
	char *text = xstrndup(out.data ? out.data : "", out.len);
	strlist_split(&lines, text, '\n');
	free(text);
	for (size_t i = 0; i < lines.n; i++) {
		char *line = lines.items[i];
		size_t n = strlen(line);
		if (n && line[n - 1] == '\r')
			line[--n] = '\0';
		if (n)
			strlist_add(seeds, line);
	}
	strlist_clear(&lines);
	rc = 0;
out:
	buf_release(&out);
	return rc;
}

/* The commands that ask the application itself (--seed-command, watch's
 * --source-command; a profile's PHP helpers) run as a request to the site
 * would: HTTP_HOST and SERVER_NAME are the site URL's, unless the caller
 * set them. Debian's WordPress picks /etc/wordpress/config-HOST.php by
 * HTTP_HOST: with "localhost" a real install's blog.example.org is not
 * found. Set in cgisnap's own environment (before any thread), which
 * the programs it renders with never see: theirs is built whole. */
static void ask_as_the_site(const struct site *site)
{
	const char *authority = strstr(site->origin, "://");
	authority = authority ? authority + 3 : site->origin;
	if (!getenv("HTTP_HOST"))
		setenv("HTTP_HOST", authority, 1);
	if (!getenv("SERVER_NAME")) {
		char *name = xstrndup(authority, strcspn(authority, ":"));
		if (*authority == '[') { /* [::1]:8080 */
			free(name);
			name = xstrndup(authority, strcspn(authority, "]") + 1);
		}
		setenv("SERVER_NAME", name, 1);
		free(name);
	}
}

/* Every seed must be a URL of the site: a seed the crawl could never
 * request ("javascript:", another host) is a usage error, not a failed
 * page found after the tree was opened. */
static int check_seeds(const struct site *site, const struct strlist *seeds, char *err)
{
	for (size_t i = 0; i < seeds->n; i++) {
		const char *why;
		char *abs = url_resolve_why(site->url, seeds->items[i], &why);
		if (!abs)
			return err_set(err, "bad --seed '%s': %s", seeds->items[i], why);
		char *t = site_target(site, abs);
		free(abs);
		if (!t)
			return err_set(err, "--seed '%s' is not a URL of the site '%s'", seeds->items[i],
				       site->url);
		free(t);
	}
	return 0;
}

int crawl_setup_rules(struct crawl_setup *s, char *err)
{
	const struct crawl_options *o = &crawl_options;
	memset(s, 0, sizeof *s);
	log_set_verbose(o->verbose);

	crawl_config_init(&s->crawl);
	copy_list(&s->crawl.seeds, &o->seeds);
	copy_list(&s->crawl.include, &o->include);
	copy_list(&s->crawl.exclude, &o->exclude);
	copy_list(&s->crawl.strip, &o->strip);
	copy_list(&s->crawl.render_query, &o->render_query);
	copy_list(&s->crawl.render_alone, &o->render_alone);
	for (size_t i = 0; i < o->view_families.n; i++)
		if (!views_family_shape(o->view_families.items[i]))
			return err_set(err, "bad --view-family '%s': a family as the summary names it, "
					    "such as '/index.php?action=…&title=…'", o->view_families.items[i]);
	copy_list(&s->crawl.view_families, &o->view_families);
	for (size_t i = 0; i < o->volatiles.n; i++) {
		struct volatiles v;
		volatiles_init(&v);
		volatiles_parse(&v, o->volatiles.items[i], strlen(o->volatiles.items[i]));
		size_t n = v.n;
		volatiles_release(&v);
		if (n != 1 || strchr(o->volatiles.items[i], '\n'))
			return err_set(err, "bad --volatile '%s': the bytes a span may hold, a tab, the text "
					    "before it (a line of .cgisnap/volatile)", o->volatiles.items[i]);
	}
	copy_list(&s->crawl.volatile_rules, &o->volatiles);
	if (o->jobs > 0)
		s->crawl.jobs = o->jobs;
	if (o->max_pages >= 0)
		s->crawl.max_pages = o->max_pages;
	if (o->loop_warn >= 0)
		s->crawl.loop_warn = o->loop_warn;
	if (o->noindex_sample >= 0)
		s->crawl.noindex_sample = o->noindex_sample;
	s->crawl.max_depth = o->max_depth;
	if (o->max_parse >= 0)
		s->crawl.max_parse = o->max_parse;
	s->crawl.follow_nofollow = o->follow_nofollow;
	s->crawl.no_canonical_links = o->no_canonical_links;
	if (o->robots_meta && strcmp(o->robots_meta, "pages") && strcmp(o->robots_meta, "all") &&
	    strcmp(o->robots_meta, "ignore"))
		return err_set(err, "bad --robots-meta '%s': pages, all or ignore", o->robots_meta);
	s->crawl.robots_meta = o->respect_robots_meta ? ROBOTS_META_ALL
			       : !o->robots_meta || !strcmp(o->robots_meta, "pages") ? ROBOTS_META_PAGES
			       : !strcmp(o->robots_meta, "all")                      ? ROBOTS_META_ALL
										     : ROBOTS_META_IGNORE;
	s->crawl.respect_no_store = o->respect_no_store;
	s->crawl.gzip = !o->no_gzip;
	publish_set_sync(!o->no_sync);
	s->crawl.prune = !o->no_prune;
	s->crawl.keep_archives = o->keep_archives;
	if (o->static_query && strcmp(o->static_query, "keep") && strcmp(o->static_query, "ignore"))
		return err_set(err, "bad --static-query '%s': keep or ignore", o->static_query);
	s->crawl.static_query_ignore = o->static_query && !strcmp(o->static_query, "ignore");
	if (o->progress && strcmp(o->progress, "bar") && strcmp(o->progress, "line") && strcmp(o->progress, "none"))
		return err_set(err, "bad --progress '%s': bar, line or none", o->progress);
	/* A bar needs a terminal to redraw on: elsewhere (cron, journald)
	 * it is the line. */
	if (o->quiet || (o->progress && !strcmp(o->progress, "none")))
		s->crawl.progress = CRAWL_PROGRESS_NONE;
	else if ((!o->progress || !strcmp(o->progress, "bar")) && progress_enabled())
		s->crawl.progress = CRAWL_PROGRESS_BAR;
	else
		s->crawl.progress = CRAWL_PROGRESS_LINE;
	s->crawl.progress_interval = o->progress_interval > 0 ? o->progress_interval : CRAWL_PROGRESS_INTERVAL;
	s->crawl.url_lines = o->verbose && !o->quiet;
	s->crawl.not_found = xstrdup(o->not_found ? o->not_found : "/cgisnap-404-probe");
	if (crawl_config_compile(&s->crawl, err) < 0)
		return -1;

	origin_defaults(&origin_options);
	if (site_init(&s->site, origin_options.site_url, err) < 0)
		return -1;
	for (size_t i = 0; i < origin_options.aliases.n; i++)
		if (site_add_alias(&s->site, origin_options.aliases.items[i], err) < 0)
			return -1;
	copy_list(&s->site.ignore_params, &o->ignore_params);
	s->site.sort_query = o->sort_query;
	ask_as_the_site(&s->site);
	for (size_t i = 0; i < o->canonical.n; i++)
		if (site_add_canonical(&s->site, o->canonical.items[i], err) < 0)
			return -1;
	if (site_check_canonical(&s->site, err) < 0)
		return -1;
	return check_seeds(&s->site, &o->seeds, err);
}

int crawl_setup_open(struct crawl_setup *s, const char *dir, char *err)
{
	const struct crawl_options *o = &crawl_options;
	if (crawl_setup_rules(s, err) < 0)
		return -1;
	if (o->seed_command) {
		struct strlist printed = STRLIST_INIT;
		int rc = run_seed_command(o->seed_command, &printed, err);
		if (rc == 0 && check_seeds(&s->site, &printed, err) < 0) {
			char why[ERR_LEN];
			snprintf(why, sizeof why, "%s", err);
			err_set(err, "--seed-command '%s': %s", o->seed_command, why);
			rc = -1;
		}
		/* Seeds besides the others: without --seed, the default one
		 * (the site URL) stays. */
		if (rc == 0 && printed.n && !s->crawl.seeds.n)
			strlist_add(&s->crawl.seeds, s->site.url);
		copy_list(&s->crawl.seeds, &printed);
		strlist_clear(&printed);
		if (rc < 0)
			return -1;
	}

	/* The crawl's jobs bound the HTTP origin's connections: they go in
	 * this open's own copy of the configuration (its strings borrowed,
	 * origin_open only reads them), not into the options. */
	struct origin_config cfg = origin_options;
	cfg.jobs = s->crawl.jobs;
	s->origin = origin_open(&cfg, &s->site, err);
	if (!s->origin)
		return -1;
	/* Mounts alone: the document root is empty, the mounts are the site. */
	if (!s->crawl.seeds.n && !origin_options.root && !origin_options.origin_url &&
	    origin_config_has_docroot(&origin_options)) {
		char *page = site_target(&s->site, s->site.url);
		int rc = origin_mount_seeds(s->origin, page, &s->crawl.seeds);
		free(page);
		if (rc < 0)
			return err_set(err, "no page to start from: without --root, give --seed (a --script-alias "
					    "directory has no page of its own)");
	}
	/* The tree must never overlap the site: pruning or publishing there
	 * would overwrite the site's own scripts. */
	if (origin_options.root && tree_check_apart(dir, origin_options.root, err) < 0)
		return -1;
	struct strlist mounted = STRLIST_INIT;
	origin_exposed_dirs(s->origin, &mounted);
	for (size_t i = 0; i < mounted.n; i++) {
		if (tree_check_apart_named(dir, mounted.items[i], "the mounted directory", err) < 0) {
			strlist_clear(&mounted);
			return -1;
		}
	}
	strlist_clear(&mounted);
	if (tree_claim(&s->tree, dir, o->force, err) < 0)
		return -1;
	s->tree_open = true;
	origin_spill_in(s->origin, s->tree.meta_fd);
	/* Links under --root are followed: none may lead into the tree. */
	origin_keep_out(s->origin, dir);
	int rc = tree_lock(&s->tree, err);
	if (rc != 0)
		return rc; /* TREE_BUSY too */
	/* Only the tree's holder writes its error log. */
	return origin_errlog_open(s->tree.meta_fd, CRAWL_ERROR_LOG, err);
}

int crawl_setup_exit(int rc, const char *err)
{
	if (rc == TREE_BUSY) {
		/* Not a fault: the run that holds the tree is doing the job.
		 * Under -q cron has nothing to mail. */
		if (!crawl_options.quiet)
			log_error("%s", err);
		return EXIT_BUSY;
	}
	log_error("%s", err);
	return EXIT_USAGE;
}

void crawl_setup_close(struct crawl_setup *s)
{
	if (s->origin)
		origin_close(s->origin);
	origin_errlog_close();
	if (s->tree_open)
		tree_close(&s->tree);
	free(s->crawl.not_found);
	strlist_clear(&s->crawl.seeds);
	strlist_clear(&s->crawl.include);
	strlist_clear(&s->crawl.exclude);
	strlist_clear(&s->crawl.strip);
	strlist_clear(&s->crawl.render_query);
	strlist_clear(&s->crawl.render_alone);
	strlist_clear(&s->crawl.view_families);
	strlist_clear(&s->crawl.volatile_rules);
	crawl_config_release(&s->crawl);
	site_release(&s->site);
	memset(s, 0, sizeof *s);
}

void crawl_record_run(struct tree *t, const char *command, const struct crawl_result *res, int exit_status)
{
	struct lastrun lr;
	char err[ERR_LEN];
	lastrun_from_result(&lr, command, res, exit_status);
	if (lastrun_save(t, &lr, err) < 0)
		log_warn("%s", err);
	lastrun_release(&lr);
}

static void human_bytes(long long n, char *out, size_t len)
{
	if (n >= 1048576)
		snprintf(out, len, "%.1f MiB", n / 1048576.0);
	else if (n >= 1024)
		snprintf(out, len, "%.1f KiB", n / 1024.0);
	else
		snprintf(out, len, "%lld bytes", n);
}

void crawl_report_stderr(const struct crawl_setup *s, bool quiet)
{
	struct strlist first = STRLIST_INIT;
	long n = origin_errlog_take(&first, 1);
	if (n && !quiet)
		log_info("the programs wrote %ld line%s to stderr (%s%s), in %s/.cgisnap/" CRAWL_ERROR_LOG
			 "%s", n, n == 1 ? "" : "s", n == 1 ? "" : "the first: ", first.n ? first.items[0] : "",
			 s->tree.path, log_verbose() ? "" : " (-v shows each)");
	strlist_clear(&first);
}

void crawl_report(const struct crawl_result *r, const char *what, bool quiet)
{
	char bytes[32];
	human_bytes(r->bytes, bytes, sizeof bytes);
	if (r->recovered && !quiet)
		log_info("recorded %ld files an interrupted run had published", r->recovered);
	if (!quiet) {
		log_info("%s: %ld URLs in %.1f s (%.1f pages/s)", what, r->pages, r->seconds,
			 r->seconds > 0 ? r->pages / r->seconds : 0.0);
		log_info("stored %ld files (%ld new, %ld changed, %ld unchanged), %ld removed, "
			 "%ld redirects, %ld not found, %ld failed, %ld skipped, %s",
			 r->stored_new + r->stored_changed + r->stored_unchanged, r->stored_new,
			 r->stored_changed, r->stored_unchanged, r->removed, r->redirects, r->not_found,
			 r->failed, r->skipped, bytes);
	}
	/* A page too big to store is missing from the tree: said even with -q. */
	for (int i = 0; i < CRAWL_NSKIP; i++) {
		if (r->skips[i].note && i == CRAWL_SKIP_OVERSIZE)
			log_warn("%s", r->skips[i].note);
		else if (r->skips[i].note && !quiet)
			log_info("%s", r->skips[i].note);
	}
	if (r->canonical && !quiet)
		log_info("%ld URL%s matched --canonical rules: recorded as redirects, not rendered",
			 r->canonical, r->canonical == 1 ? "" : "s");
	const struct strlist *sr = &r->slash_redirects;
	if (sr->n && !quiet)
		log_info("%zu URL%s recorded as a redirect to %s slash form: %s \u2192 %s/%s", sr->n,
			 sr->n == 1 ? "" : "s", sr->n == 1 ? "its" : "their", sr->items[0], sr->items[0],
			 sr->n == 1 ? "" : " ... (-v lists them)");
	for (size_t i = 0; i < sr->n; i++)
		log_debug("%s: a redirect to %s/ (both answered 200 with different bodies)", sr->items[i],
			  sr->items[i]);
	const struct strlist *al = &r->aliases;
	if (al->n && !quiet)
		log_info("%zu URL%s recorded as a redirect to another spelling of %s file: %s%s", al->n,
			 al->n == 1 ? "" : "s", al->n == 1 ? "its" : "their", al->items[0],
			 al->n == 1 ? "" : " ... (-v lists them)");
	for (size_t i = 0; i < al->n; i++)
		log_debug("%s (one file, bodies that differ)", al->items[i]);
	const struct strlist *cl = &r->canonical_links;
	if (cl->n && !quiet)
		log_info("%zu URL%s recorded as a redirect to the page %s <link rel=canonical> names: %s%s; "
			 "--no-canonical-links to store them", cl->n, cl->n == 1 ? "" : "s", cl->n == 1 ? "its" : "their",
			 cl->items[0], cl->n == 1 ? "" : " ... (-v lists them)");
	for (size_t i = 0; i < cl->n; i++)
		log_debug("%s (rel=canonical)", cl->items[i]);
	if (r->interrupted)
		log_warn("interrupted: %ld files published (%ld new, %ld changed), %ld unchanged, all recorded in "
			 "the manifest; nothing was pruned; the URLs not reached are as the last run left them",
			 r->stored_new + r->stored_changed, r->stored_new, r->stored_changed, r->stored_unchanged);
	else if (r->bound_note)
		log_warn("%s; nothing was pruned", r->bound_note);
	else if (r->failed && !quiet)
		log_warn("some URLs failed; nothing was pruned");
	else if (r->errors.n && !quiet)
		log_warn("the crawl failed; nothing was pruned");
	if (r->requisites_note) {
		/* The mount Apache has for it, when its configuration is here. */
		char *hint = r->requisites_dir ? apache_alias_hint(APACHE_CONF_DIR, r->requisites_dir) : NULL;
		log_warn("%s%s%s", r->requisites_note, hint ? "; " : "", hint ? hint : "");
		free(hint);
	}
	for (size_t i = 0; i < r->kept.n; i++)
		log_warn("%s", r->kept.items[i]);
	for (size_t i = 0; i < r->errors.n; i++)
		log_error("%s", r->errors.items[i]);
	for (size_t i = 0; i < r->nfailures; i++)
		log_error("failed: %s: %s", r->failures[i].target, r->failures[i].reason);
	/* Last, so that the options to paste end the output: the heading,
	 * then lines without the prefix (families.h). */
	if (quiet)
		return;
	if (log_verbose() && r->family_table.n) {
		log_info("query parameters (URLs carrying each, distinct bodies, distinct values):");
		for (size_t i = 0; i < r->family_table.n; i++)
			log_raw("  %s", r->family_table.items[i]);
	}
	for (size_t i = 0; i < r->family_notes.n; i++) {
		if (i)
			log_raw("%s", r->family_notes.items[i]);
		else
			log_info("%s", r->family_notes.items[i]);
	}
}
