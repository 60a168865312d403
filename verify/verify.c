/* verify/verify.c - 'cgisnap verify DIR LOG...': replay the GET and HEAD
 * requests of access logs against the origin and against the snapshot
 * tree, and say which answers would change were the tree to replace the
 * site.
 *
 * The tree answers as 'cgisnap serve' answers it (a serve started here,
 * on a port of 127.0.0.1 it picks) or, with --server URL, as a server
 * already serving it does (nginx or Apache with 'cgisnap config'): both
 * asked over HTTP, so that what is compared is what a visitor gets.
 * The origin is opened from the same options as snapshot's. Each
 * distinct URL is asked once of each, by --jobs threads; then the URLs
 * the tree lacks are explained (scope.h) and the report printed
 * (findings.h). Nothing is written to the tree.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "compare.h"
#include "findings.h"
#include "logread.h"
#include "scope.h"
#include "base/log.h"
#include "base/opts.h"
#include "base/xalloc.h"
#include "cli/crawlopts.h"
#include "cli/originopts.h"
#include "cli/outfile.h"
#include "cli/profileopts.h"
#include "cli/spawn.h"
#include "crawl/kept.h"
#include "crawl/volatile.h"
#include "inspect/inspect.h"

/* The largest answer taken from the tree's server: 1 TiB. */
#define TREE_OUTPUT_MAX_MB (1L << 20)
/* How long the tree's serve may take to start. */
#define SERVE_START_MS 15000

static struct {
	char *server;
	long sample;
	bool json;
	char *html;
} verify_options;

static const struct opt verify_opts[] = {
	{ "server", 0, OPT_STR, &verify_options.server, "URL",
	  "ask the tree's answers of the server at URL (nginx or Apache serving DIR, as 'cgisnap config' "
	  "writes it) instead of a 'cgisnap serve' that verify starts itself", 0, 0 },
	{ "sample", 0, OPT_INT, &verify_options.sample, "N",
	  "replay only the N most requested URLs of the logs (ties in URL order: the same logs give the "
	  "same sample)", 1, 1000000000 },
	{ "json", 0, OPT_BOOL, &verify_options.json, NULL, "print the report as one JSON object", 0, 0 },
	{ "html", 0, OPT_STR, &verify_options.html, "FILE",
	  "also write the report as one self-contained HTML page to FILE", 0, 0 },
	OPT_END
};

static void print_help(const struct opt *const *tables)
{
	printf("usage: cgisnap verify [OPTIONS] DIR LOG...\n\n"
	       "Before the tree DIR replaces the dynamic site: replay the GET and HEAD requests\n"
	       "of the access logs LOG (Apache's or nginx's common or combined format, plain\n"
	       "or gzip'ed; '-' for standard input) against the origin and against the tree,\n"
	       "each distinct URL once, and compare the answers: status, Location, Content-Type\n"
	       "and body (what --strip removes and the spans that change on every render left\n"
	       "out, as snapshot leaves them out). The origin options are snapshot's; give the\n"
	       "same options (or -c FILE) as the snapshot had, so that the URLs the tree lacks\n"
	       "are explained by the rule that left them out. Only GET and HEAD requests for\n"
	       "the site's own URLs are sent (others are counted and skipped); nothing is\n"
	       "written to DIR. The site is the one DIR was made for (its recorded\n"
	       "--site-url) unless --site-url names another.\n\n"
	       "Examples:\n"
	       "  cgisnap verify --root /usr/share/dokuwiki --cgi php=php-cgi out/ \\\n"
	       "      /var/log/apache2/access.log /var/log/apache2/access.log.2.gz\n"
	       "  zcat access.log.*.gz | cgisnap verify --origin http://127.0.0.1:8080/ --wait 0.1 \\\n"
	       "      --server http://127.0.0.1/ --sample 5000 --html verify.html out/ -\n\n"
	       "Options:\n");
	opts_print_help(stdout, tables);
	opts_print_common(stdout, tables, OPTS_CONFIG_FILE);
	printf("\nReport: how many of the requests answer alike, weighted by how often the logs\n"
	       "asked each URL, then the URLs that would change, grouped by cause and by URL\n"
	       "family (the path and its parameter names), the most requested first:\n"
	       "  not in the tree       the tree answers 404: the rule that left it out (an\n"
	       "                        --exclude, --include, robots.txt, a robots noindex, a\n"
	       "                        view family), a parameter --ignore-param would drop,\n"
	       "                        or never reached by the crawl;\n"
	       "  a 404 in the tree     the crawl recorded a 404 (or its file is missing);\n"
	       "  a redirect / status / Content-Type / body that differs (a body with its\n"
	       "                        first differing line);\n"
	       "  the tree's server gave no answer;\n"
	       "  the origin itself fails (no answer, or a 5xx): listed, not compared.\n"
	       "--json prints every URL as one object instead of the text; --html FILE writes\n"
	       "the same as a page (temp + rename).\n");
	printf("\nExit status: 0 every URL answers alike (the origin's own failures aside); 1\n"
	       "some URL would change, or the origin failed every one (nothing compared); 2\n"
	       "usage or set-up error (a log or DIR that cannot be read, no request for the\n"
	       "site in the logs, an origin or a --server that does not answer); %d\n"
	       "interrupted (SIGINT: the URLs replayed so far are reported).\n",
	       EXIT_INTERRUPTED);
}

struct replay {
	struct origin *origin, *tree;
	struct compare_ctx ctx;
	const struct logread *log;
	struct finding *out;     /* one per log target */
	bool *done;              /* replayed */
	atomic_size_t next, finished;
	pthread_mutex_t progress_mu;
	bool progress;
};

static void replay_one(struct replay *r, size_t i)
{
	struct finding *f = &r->out[i];
	struct origin_request rq = { .target = r->log->reqs[i].target, .method = "GET", .remote_addr = NULL };
	struct origin_response ro, rt;
	char eo[ERR_LEN], et[ERR_LEN];
	int rco = origin_render(r->origin, &rq, &ro, eo);
	int rct = origin_render(r->tree, &rq, &rt, et);
	f->origin_status = rco == 0 ? ro.status : 0;
	f->tree_status = rct == 0 ? rt.status : 0;
	if (rco < 0) {
		f->cause = CAUSE_ORIGIN_FAILED;
		f->detail = xasprintf("the origin failed: %s", eo);
	} else if (rct < 0) {
		f->cause = CAUSE_TREE_FAILED;
		f->detail = xasprintf("the tree's server failed: %s", et);
	} else {
		f->cause = compare_answers(&r->ctx, rq.target, &ro, &rt, &f->detail);
		if (f->cause == CAUSE_NOT_IN_TREE && ro.status >= 200 && ro.status < 300)
			compare_body_sha(&r->ctx, &ro, f->body_sha);
	}
	origin_response_release(&ro);
	origin_response_release(&rt);
}

static void *replay_worker(void *arg)
{
	struct replay *r = arg;
	for (;;) {
		size_t i = atomic_fetch_add(&r->next, 1);
		if (i >= r->log->n || cli_interrupted)
			break;
		replay_one(r, i);
		r->done[i] = true;
		size_t n = atomic_fetch_add(&r->finished, 1) + 1;
		if (r->progress) {
			pthread_mutex_lock(&r->progress_mu);
			progress_update(false, "verify: %zu/%zu URLs replayed", n, r->log->n);
			pthread_mutex_unlock(&r->progress_mu);
		}
	}
	return NULL;
}

/* Replay every target with jobs threads. */
static void replay_all(struct replay *r, long jobs)
{
	if (jobs < 1)
		jobs = 1;
	if ((size_t)jobs > r->log->n)
		jobs = r->log->n ? (long)r->log->n : 1;
	pthread_t *threads = xcalloc((size_t)jobs, sizeof *threads);
	long started = 0;
	for (; started < jobs; started++)
		if (pthread_create(&threads[started], NULL, replay_worker, r) != 0)
			break;
	if (!started)
		replay_worker(r);
	for (long i = 0; i < started; i++)
		pthread_join(threads[i], NULL);
	free(threads);
	if (r->progress)
		progress_end();
}

/* Open the tree's side: an HTTP origin on --server or on a serve of DIR
 * started here. NULL with err. */
static struct origin *open_tree_side(struct spawned *serve, const char *dir, const struct site *site, long jobs,
				     char *err)
{
	const char *url = verify_options.server;
	if (!url) {
		char *argv[] = { "cgisnap", "serve", "--listen", "127.0.0.1:0", "--access-log", "off", "--",
				 (char *)dir, NULL };
		if (spawn_start(serve, "tree's server (cgisnap serve)", argv, SERVE_START_MS, &cli_interrupted, err) < 0)
			return NULL;
		url = serve->url;
	}
	struct origin_config cfg;
	memset(&cfg, 0, sizeof cfg);
	cfg.origin_url = (char *)url;
	cfg.site_url = site->url;
	cfg.jobs = jobs;
	/* origin_options has its defaults (crawl_setup_rules applied them).
	 * The tree holds static files of any size (copied, not rendered):
	 * its answers are not bounded by --max-output. Big bodies go to a
	 * temporary file, compared from there (compare.h). */
	cfg.timeout_s = origin_options.timeout_s;
	cfg.max_output_mb = TREE_OUTPUT_MAX_MB;
	struct origin *o = origin_open(&cfg, site, err);
	if (!o && verify_options.server) {
		char why[ERR_LEN];
		snprintf(why, sizeof why, "%s", err);
		err_set(err, "--server '%s': %s", verify_options.server, why);
	}
	return o;
}

int cmd_verify(int argc, char **argv)
{
	const struct opt *const tables[] = { origin_opts, crawl_opts, profile_opts, verify_opts, NULL };
	struct strlist args = STRLIST_INIT;
	struct crawl_setup s;
	struct inspected in;
	struct site plain;
	struct logread lr;
	struct findings found;
	struct volatiles vol;
	struct scope scope;
	struct spawned serve = SPAWNED_INIT;
	struct outfile html;
	struct replay r;
	char err[ERR_LEN];
	bool have_scope = false, have_plain = false, have_vol = false;
	int rc = profile_opts_parse("verify", tables, argc, argv, &args, err);

	memset(&s, 0, sizeof s);
	memset(&in, 0, sizeof in);
	memset(&plain, 0, sizeof plain);
	memset(&found, 0, sizeof found);
	memset(&html, 0, sizeof html);
	memset(&r, 0, sizeof r);
	logread_init(&lr, &plain);
	rc = cli_parsed("verify", rc, err, print_help, tables);
	if (rc != CLI_GO_ON)
		goto out;
	if (args.n < 2) {
		rc = usage_error("verify", args.n ? "no access log given (LOG, or '-' for standard input)"
						  : "no tree given");
		goto out;
	}
	rc = EXIT_USAGE;
	if (verify_options.server && strncmp(verify_options.server, "http://", 7) &&
	    strncmp(verify_options.server, "https://", 8)) {
		rc = usage_error("verify", "--server needs an http:// or https:// URL");
		goto out;
	}
	const char *dir = args.items[0];
	if (inspect_open(&in, dir, err) < 0) {
		log_error("%s", err);
		goto out;
	}
	/* The site is the tree's unless the command line names another. */
	if (!origin_options.site_url)
		origin_options.site_url = xstrdup(in.site.url);
	if (crawl_setup_rules(&s, err) < 0) {
		log_error("%s", err);
		goto out;
	}
	if (verify_options.html && outfile_open(&html, "--html", verify_options.html, err) < 0) {
		log_error("%s", err);
		goto out;
	}
	/* The logs: their targets as sent, no query policy applied. */
	if (site_init(&plain, s.site.url, err) < 0) {
		log_error("%s", err);
		goto out;
	}
	have_plain = true;
	for (size_t i = 0; i < s.site.aliases.n; i++)
		strlist_add(&plain.aliases, s.site.aliases.items[i]);
	for (size_t i = 1; i < args.n; i++)
		if (logread_file(&lr, args.items[i], err) < 0) {
			log_error("%s", err);
			goto out;
		}
	if (!lr.n) {
		log_error("no GET or HEAD request for a URL of '%s' in the log%s (%lld line%s; %lld for other sites, "
			  "%lld of other methods, %lld in no access-log format): nothing to replay",
			  plain.url, args.n > 2 ? "s" : "", lr.lines, lr.lines == 1 ? "" : "s", lr.outside,
			  lr.other_methods, lr.malformed);
		goto out;
	}
	found.distinct = lr.n;
	if (verify_options.sample > 0)
		found.sampled_out = logread_keep_most(&lr, (size_t)verify_options.sample);

	struct origin_config cfg = origin_options;
	cfg.jobs = s.crawl.jobs;
	s.origin = origin_open(&cfg, &s.site, err);
	if (!s.origin) {
		log_error("%s", err);
		goto out;
	}
	cli_catch_sigint();
	r.tree = open_tree_side(&serve, dir, &s.site, s.crawl.jobs, err);
	if (!r.tree) {
		if (cli_interrupted) {
			rc = EXIT_INTERRUPTED;
			goto out;
		}
		log_error("%s", err);
		goto out;
	}
	kept_read_volatiles(&vol, in.tree.meta_fd, &s.crawl);
	have_vol = true;
	r.origin = s.origin;
	r.ctx.site = &s.site;
	r.ctx.crawl = &s.crawl;
	r.ctx.volatiles = &vol;
	r.log = &lr;
	r.out = xcalloc(lr.n ? lr.n : 1, sizeof *r.out);
	r.done = xcalloc(lr.n ? lr.n : 1, sizeof *r.done);
	pthread_mutex_init(&r.progress_mu, NULL);
	r.progress = s.crawl.progress == CRAWL_PROGRESS_BAR;
	replay_all(&r, s.crawl.jobs);
	pthread_mutex_destroy(&r.progress_mu);

	/* Why the tree lacks what it lacks: its own query policy, kept with it. */
	scope_open(&scope, &in.tree, &in.manifest, &in.site, &s.crawl);
	have_scope = true;
	found.items = xcalloc(lr.n ? lr.n : 1, sizeof *found.items);
	for (size_t i = 0; i < lr.n; i++) {
		if (!r.done[i]) {
			free(r.out[i].detail);
			continue;
		}
		struct finding *f = &found.items[found.n++];
		*f = r.out[i];
		f->target = xstrdup(lr.reqs[i].target);
		f->requests = lr.reqs[i].requests;
		if (f->cause == CAUSE_NOT_IN_TREE) {
			/* Where the origin redirects (or NULL), then why the tree lacks it. */
			char *redirect = f->detail, *why;
			f->cause = scope_explain(&scope, f->target, f->body_sha, &why);
			f->detail = redirect ? xasprintf("%s; %s", redirect, why) : why;
			if (redirect) {
				free(redirect);
				free(why);
			}
		}
	}
	found.interrupted = cli_interrupted;
	char origin_words[256];
	origin_describe(s.origin, origin_words, sizeof origin_words);
	found.site_url = s.site.url;
	found.origin = origin_words;
	found.tree = dir;
	found.tree_server = verify_options.server ? verify_options.server : "cgisnap serve";
	found.logs = args.n - 1;
	found.lines = lr.lines;
	found.other_methods = lr.other_methods;
	found.malformed = lr.malformed;
	found.outside = lr.outside;
	found.first_malformed = lr.first_malformed;
	findings_prepare(&found);
	if (verify_options.json)
		findings_json(stdout, &found);
	else
		findings_text(stdout, &found);
	fflush(stdout);
	rc = cli_interrupted ? EXIT_INTERRUPTED : findings_changes(&found) || !findings_compared(&found) ? EXIT_PARTIAL : 0;
	if (verify_options.html) {
		findings_html(html.f, &found);
		if (outfile_commit(&html, err) < 0) {
			log_error("%s", err);
			rc = EXIT_USAGE;
		} else if (!crawl_options.quiet) {
			log_info("wrote the report to '%s'", verify_options.html);
		}
	}
out:
	outfile_abort(&html);
	if (r.tree)
		origin_close(r.tree);
	spawn_stop(&serve, 5000);
	free(r.out);
	free(r.done);
	findings_release(&found);
	if (have_scope)
		scope_close(&scope);
	if (have_vol)
		volatiles_release(&vol);
	logread_release(&lr);
	if (have_plain)
		site_release(&plain);
	crawl_setup_close(&s);
	inspect_close(&in);
	cli_release(&args, tables);
	return rc;
}
