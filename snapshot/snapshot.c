/* snapshot.c - 'cgisnap snapshot': render a whole dynamic site into a static
 * tree keyed by URL. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "commands.h"
#include "cli/cli.h"
#include "cli/crawlopts.h"
#include "deps/recorder.h"
#include "deps/depstate.h"
#include "crawl/links.h"
#include "base/log.h"
#include "cli/originopts.h"
#include "cli/profileopts.h"
#include "snapshot/learned.h"
#include "trace/tracer.h"
#include "base/xalloc.h"

static struct {
	bool no_trace;
	char *write_profile;
} snapshot_options;

static const struct opt snapshot_opts[] = {
	{ "no-trace", 0, OPT_BOOL, &snapshot_options.no_trace, NULL,
	  "do not record what CGI renders read (then 'watch' re-crawls the tree before watching)", 0, 0 },
	{ "write-profile", 0, OPT_STR, &snapshot_options.write_profile, "FILE",
	  "write what the run learned by itself (views cut, spans that change on every render; aliases "
	  "and suggestions as comments) to FILE, an option file for -c: the next run starts from it", 0, 0 },
	OPT_END
};

static void print_help(const struct opt *const *tables)
{
	printf("usage: cgisnap snapshot [OPTIONS] DIR\n\n"
	       "Crawl a dynamic site and store every page under DIR as a static file keyed\n"
	       "by its URL (docs/url-keys.md), so DIR serves the same URLs as the site.\n"
	       "Exactly one origin: --root (CGI programs run directly), --fastcgi, or --origin.\n\n"
	       "Examples:\n"
	       "  cgisnap snapshot --root /var/www/wiki --cgi php=php-cgi \\\n"
	       "      --seed /doku.php --strip '<img src=\"[^\"]*taskrunner[^>]*>' out/\n"
	       "  cgisnap snapshot --root /var/www/blog --cgi php=php-cgi \\\n"
	       "      --front-controller /index.php --site-url https://blog.example.org/ out/\n"
	       "  cgisnap snapshot --origin http://127.0.0.1:8080/ out/\n\n"
	       "Options (also from a file with -c FILE, one 'name = value' per line):\n");
	opts_print_help(stdout, tables);
	opts_print_common(stdout, tables, OPTS_CONFIG_FILE);
	printf("\nDependencies: with a CGI origin (--root) and the tracer at hand ($%s, else\n"
	       "build/%s beside the program, else %s/%s), every render\n"
	       "is traced as 'watch' traces it and the tree records what each page read,\n"
	       "so that 'watch' starts on it without a re-crawl (and re-renders only what\n"
	       "changed since the snapshot began). --no-trace, FastCGI and HTTP origins\n"
	       "record nothing: 'watch' then re-crawls first. Tracing never changes the\n"
	       "stored pages.\n",
	       TRACER_ENV, TRACER_NAME, CGISNAP_LIBDIR, TRACER_NAME);
	printf("\nKeys: a URL segment starting with '.' (/.well-known/x) is stored with that\n"
	       "dot written %%2E (%%2Ewell-known/x): no page is a dotfile. When /a and /a/ both\n"
	       "answer 200 with different bodies, /a/ is stored and /a recorded as a 301 to\n"
	       "it, as a static host answers; with --strip given, bodies that still differ\n"
	       "after it fail the URL instead.\n");
	printf("\nCanonical rules: --canonical '^/doku\\.php\\?id=[^&]*&do=index$ => /doku.php?do=index'\n"
	       "records every target REGEX matches (POSIX extended, on the canonical target\n"
	       "/path?query) as a 302 to URL without rendering it, and crawls URL instead;\n"
	       "$1..$9 in URL are REGEX's groups, $0 the match, $$ a '$'. The first matching\n"
	       "rule wins. URL must match no rule: a literal URL that does is a set-up\n"
	       "error, any other such target fails. The rules are saved with the tree: serve\n"
	       "and config answer every matching request with the 302, crawled or not.\n");
	printf("\nExit status: 0 all pages stored (or skipped: archives, responses over\n"
	       "--max-output, each kind named in the summary); 1 some URLs failed (the rest\n"
	       "is published), or a seed answered an error, or most URLs answered 404 (more\n"
	       "than half, and at least %d: a wrong --root or --site-url), or the\n"
	       "--write-profile FILE could not be written; 2 usage or set-up\n"
	       "error (nothing changed); 4 --max-pages (default %d) stopped the crawl: what\n"
	       "it reached is published, nothing is pruned, and the summary names the URL\n"
	       "families that took the budget; 75 the tree is busy: another snapshot, watch or\n"
	       "serve --fill holds its lock (nothing changed; silent under -q, for cron); %d interrupted (SIGINT, Ctrl-C: the renders under way\n"
	       "finish, what was published is recorded and said, nothing is pruned; a second\n"
	       "Ctrl-C stops at once, and the next run records what the first published).\n",
	       CRAWL_NOT_FOUND_MIN, CRAWL_MAX_PAGES, EXIT_INTERRUPTED);
	printf("\nOutput: a progress bar on a terminal, \"[=====>   ] 412/611 67%% 24.8 pages/s\n"
	       "ETA 8 s  /doku.php?id=...\" (the total is the URLs of the tree's last run, or\n"
	       "the URLs known so far, marked '+' as a lower bound); elsewhere a line every\n"
	       "--progress-interval seconds. -v adds a line per URL, \"200 new 34 ms 5123 bytes\n"
	       "/doku.php?id=start\", whose second word is the category the summary counts it\n"
	       "in (new, changed, unchanged, redirect, not-found, failed, skipped; a URL's last\n"
	       "line counts), the first lines of each error page and why a path was refused.\n"
	       "The summary adds up: its URLs are stored + redirects + not found + failed +\n"
	       "skipped, stored being new + changed + unchanged. 'cgisnap status DIR' shows the\n"
	       "last run again.\n");
}

/* The system's own directories: what a render reads there (libraries,
 * PHP's configuration, time zones) is no site's data. */
static const char *const system_dirs[] = { "/usr/", "/etc/", "/lib/", "/lib32/", "/lib64/", "/libx32/", "/bin/",
					   "/sbin/", "/opt/", "/proc/", "/sys/", "/dev/", "/run/", NULL };

/* What the renders read under the document root and the mounts, as watch
 * records it, and elsewhere but in the system's directories: watch's
 * --source list is not known here (a wiki's data directory may be
 * anywhere), and watch only hears of changes in its sources anyway. */
static void set_dep_roots(struct crawl_setup *s, struct dep_recorder *r)
{
	char *root = origin_options.root ? realpath(origin_options.root, NULL) : NULL;
	if (root)
		strlist_add_owned(&r->roots, root);
	origin_mount_dirs(s->origin, &r->roots);
	r->anywhere = true;
	for (size_t i = 0; system_dirs[i]; i++)
		strlist_add(&r->skip, system_dirs[i]);
	/* The directories the origin made for the programs (PHP's sessions),
	 * per run: by the name the programs are given and by the real path,
	 * which the recorder tries first (a TMPDIR through a link). */
	struct strlist own = STRLIST_INIT;
	origin_private_dirs(s->origin, &own);
	for (size_t i = 0; i < own.n; i++) {
		strlist_add_owned(&r->skip, xasprintf("%s/", own.items[i]));
		char *real = realpath(own.items[i], NULL);
		if (real && strcmp(real, own.items[i]))
			strlist_add_owned(&r->skip, xasprintf("%s/", real));
		free(real);
	}
	strlist_clear(&own);
}

/* After a complete traced crawl: the tree's dependencies are complete as
 * of the crawl's start (ds->since), with what the renders wrote. */
static int record_depstate(struct crawl_setup *s, struct dep_recorder *r, struct depstate *ds, char *err)
{
	struct strlist written = STRLIST_INIT;
	dep_recorder_written_lines(r, &written);
	int rc = depstate_save_written(&s->tree, &written, err);
	strlist_clear(&written);
	if (rc < 0)
		return -1;
	depstate_fingerprint(&origin_options, s->site.url, ds->origin);
	return depstate_save(&s->tree, ds, err);
}

int cmd_snapshot(int argc, char **argv)
{
	const struct opt *const tables[] = { origin_opts, crawl_opts, profile_opts, snapshot_opts, NULL };
	struct strlist args = STRLIST_INIT;
	struct crawl_setup s;
	struct crawl_result res;
	struct crawl *crawl = NULL;
	char err[ERR_LEN];
	bool links_ready = false;
	struct dep_recorder recorder;
	char *tracer = NULL;
	int rc = profile_opts_parse("snapshot", tables, argc, argv, &args, err);

	memset(&s, 0, sizeof s);
	memset(&res, 0, sizeof res);
	dep_recorder_init(&recorder);
	rc = cli_parsed("snapshot", rc, err, print_help, tables);
	if (rc != CLI_GO_ON)
		goto out;
	if (args.n != 1) {
		rc = usage_error("snapshot", args.n ? "give one output directory" : "no output directory given");
		goto out;
	}
	if (snapshot_options.write_profile && learned_check(snapshot_options.write_profile, err) < 0) {
		rc = usage_error("snapshot", err);
		goto out;
	}
	links_init();
	links_ready = true;
	/* Trace as watch does, where it can: a CGI origin with the library
	 * at hand. Without it the snapshot is the same, only watch re-crawls. */
	if (!snapshot_options.no_trace && origin_config_has_docroot(&origin_options) && !origin_options.fastcgi.n &&
	    !origin_options.origin_url) {
		tracer = tracer_locate(err);
		if (!tracer)
			log_debug("%s: no dependencies recorded", err);
	}
	origin_options.trace_lib = tracer;
	rc = crawl_setup_open(&s, args.items[0], err);
	if (rc < 0) {
		rc = crawl_setup_exit(rc, err);
		goto out;
	}
	if (tree_save_settings(&s.tree, &s.site, err) < 0 ||
	    tree_save_profile(&s.tree, profile_opts_used(), err) < 0) {
		log_error("%s", err);
		rc = EXIT_USAGE;
		goto out;
	}
	/* The first Ctrl-C stops the crawl (the renders under way finish and
	 * are recorded, the manifest is saved); a second one kills at once,
	 * leaving the journal to the next run. */
	s.crawl.stop = &cli_interrupted;
	cli_catch_sigint();
	/* Whatever the tree claimed about its dependencies stops being true
	 * as this crawl starts; a complete traced one claims it again. */
	if (depstate_clear(&s.tree, err) < 0) {
		log_error("%s", err);
		rc = EXIT_USAGE;
		goto out;
	}
	crawl = crawl_new(&s.crawl, s.origin, &s.site, &s.tree, err);
	if (!crawl) {
		log_error("%s", err);
		rc = EXIT_USAGE;
		goto out;
	}
	set_dep_roots(&s, &recorder);
	struct crawl_hooks hooks = dep_recorder_hooks(&recorder);
	if (tracer) {
		crawl_set_hooks(crawl, &hooks);
		origin_set_trace_keep(s.origin, dep_recorder_keeps, &recorder);
	}
	struct depstate ds = { DEPREC_POLICY, "", { 0, 0 } };
	clock_gettime(CLOCK_REALTIME, &ds.since);
	if (crawl_full(crawl, &res, err) < 0) {
		log_error("%s", err);
		rc = EXIT_PARTIAL;
	} else {
		rc = res.failed || res.errors.n ? EXIT_PARTIAL : res.cut_short ? EXIT_CUT_SHORT : 0;
		if (tracer && record_depstate(&s, &recorder, &ds, err) < 0) {
			log_error("%s", err);
			rc = EXIT_PARTIAL;
		}
	}
	char *what = xasprintf("snapshot of %s into '%s'", s.site.url, args.items[0]);
	crawl_report(&res, what, crawl_options.quiet);
	crawl_report_stderr(&s, crawl_options.quiet);
	free(what);
	if (res.interrupted)
		rc = EXIT_INTERRUPTED;
	else if (snapshot_options.write_profile) {
		if (learned_write(snapshot_options.write_profile, &res, s.site.url, err) < 0) {
			log_error("%s", err);
			if (rc == 0)
				rc = EXIT_PARTIAL;
		} else if (!crawl_options.quiet) {
			log_info("wrote what the run learned to '%s' (-c to start from it)", snapshot_options.write_profile);
		}
	}
	crawl_record_run(&s.tree, "snapshot", &res, rc);
out:
	crawl_result_release(&res);
	crawl_free(crawl);
	crawl_setup_close(&s);
	origin_options.trace_lib = NULL;
	free(tracer);
	dep_recorder_release(&recorder);
	if (links_ready)
		links_cleanup();
	cli_release(&args, tables);
	return rc;
}
