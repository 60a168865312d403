/* bench/bench.c - 'cgisnap bench': the dynamic site against its snapshot.
 *
 * Starts this binary's 'serve --dynamic' (every request rendered by the
 * origin) and 'serve TREE' (the snapshot) on free ports of 127.0.0.1 -
 * or takes two servers the user runs (--dynamic-url, --static-url) - and
 * drives the same load at each in turn with the built-in generator
 * (loadgen.h), then prints an ab-like table and the ratio (report.h).
 * spawn.c starts and stops the servers, targets.c makes the URL list. */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "commands.h"
#include "loadgen.h"
#include "base/log.h"
#include "tree/manifest.h"
#include "base/opts.h"
#include "origin/origin.h"
#include "cli/originopts.h"
#include "machine.h"
#include "report.h"
#include "reporthtml.h"
#include "cli/spawn.h"
#include "targets.h"
#include "tree/tree.h"
#include "url/url.h"
#include "base/xalloc.h"

#define DEFAULT_CONCURRENCY 10
#define DEFAULT_DURATION_S 10.0
#define DEFAULT_SAMPLE 20
#define DEFAULT_CLIENT_THREADS 1
#define DEFAULT_REQUEST_TIMEOUT 30
/* How long a server bench starts may take to accept connections. */
#define START_TIMEOUT_MS 15000
/* How long a stopped server may take to finish (it drains requests). */
#define STOP_GRACE_MS 15000
#define PROBE_TIMEOUT_MS 5000
/* Warm-up: one request per URL, at most this many. */
#define WARMUP_MAX 200

static char *tree_dir, *urls_file, *dynamic_url, *static_url, *duration_arg, *html_file;
static struct strlist url_args;
static long concurrency, requests, client_threads, request_timeout, server_threads, sample_max;
static bool keepalive, json, no_warmup, verbose;

static const struct opt bench_opts[] = {
	{ "tree", 0, OPT_STR, &tree_dir, "DIR",
	  "the snapshot: served by 'cgisnap serve DIR'; its manifest gives the default URLs", 0, 0 },
	{ "url", 0, OPT_LIST, &url_args, "PATH", "request PATH, e.g. '/doku.php?id=start' (repeatable)", 0,
	  0 },
	{ "urls", 0, OPT_STR, &urls_file, "FILE", "request the paths in FILE, one per line", 0, 0 },
	{ "sample", 0, OPT_INT, &sample_max, "N",
	  "default URLs: N of the tree's HTML pages, evenly spread (default 20)", 1, 1000000 },
	{ "concurrency", 'c', OPT_INT, &concurrency, "N", "connections open at once (default 10)", 1,
	  100000 },
	{ "requests", 'n', OPT_INT, &requests, "N", "measure each server for N requests", 1, LONG_MAX },
	{ "duration", 'd', OPT_STR, &duration_arg, "S",
	  "measure each server for S seconds (default 10; decimals allowed)", 0, 0 },
	{ "keepalive", 'k', OPT_BOOL, &keepalive, NULL,
	  "keep connections open (HTTP keep-alive); default: a connection per request, as ab", 0, 0 },
	{ "client-threads", 0, OPT_INT, &client_threads, "N",
	  "load generator threads, each with its share of the connections (default 1: on a small machine the servers need the cores; the output warns when a thread was the bottleneck)", 1,
	  LOADGEN_MAX_THREADS },
	{ "request-timeout", 0, OPT_INT, &request_timeout, "S",
	  "a request unanswered after S seconds fails as an exception (default 30)", 1, 86400 },
	{ "server-threads", 0, OPT_INT, &server_threads, "N",
	  "--threads of the servers bench starts (default: serve's own, one per core)", 1, 1024 },
	{ "dynamic-url", 0, OPT_STR, &dynamic_url, "URL",
	  "measure this running server as the dynamic side, e.g. http://127.0.0.1:8080/", 0, 0 },
	{ "static-url", 0, OPT_STR, &static_url, "URL",
	  "measure this running server as the static side", 0, 0 },
	{ "no-warmup", 0, OPT_BOOL, &no_warmup, NULL,
	  "skip the warm-up (one request per URL before each measurement, not counted)", 0, 0 },
	{ "json", 0, OPT_BOOL, &json, NULL, "print the results as JSON", 0, 0 },
	{ "html", 0, OPT_STR, &html_file, "FILE",
	  "also write the results as one self-contained HTML page: request-rate bars, latency distribution, the machine, the table (inline SVG, nothing fetched)", 0, 0 },
	{ "verbose", 'v', OPT_BOOL, &verbose, NULL, "say more", 0, 0 },
	OPT_END
};

static void print_help(const struct opt *const *tables)
{
	(void)tables;
	const struct opt *const bench_table[] = { bench_opts, NULL };
	const struct opt *const origin_table[] = { origin_opts, NULL };
	printf("usage: cgisnap bench [ORIGIN OPTIONS] --tree DIR [OPTIONS]\n"
	       "       cgisnap bench --dynamic-url URL --static-url URL [OPTIONS]\n\n"
	       "Measure the dynamic site against its snapshot under the same load. bench\n"
	       "starts 'cgisnap serve --dynamic' with the origin options (every request is\n"
	       "rendered by the origin) and 'cgisnap serve DIR' (the snapshot), each on a free\n"
	       "port of 127.0.0.1, drives the same requests at one and then the other with\n"
	       "its own HTTP/1.1 load generator (epoll; like ab, or wrk with -k), prints a\n"
	       "table in ab's terms and the ratio of their request rates, and stops them.\n"
	       "With --dynamic-url and/or --static-url it measures servers already running\n"
	       "instead (say Apache with PHP, and Apache serving the tree); one alone is\n"
	       "measured alone, and --tree then only gives the default URLs.\n\n"
	       "Each side's mode is printed (a \"mode:\" line; \"mode\" in JSON): what the\n"
	       "dynamic server's renders run on - \"php-cgi workers (N)\" (--cgi php=php-cgi,\n"
	       "the default: N is --server-threads, else cores), \"'COMMAND' workers (N)\"\n"
	       "(--cgi-spawn), \"fork\" (a process per request: --cgi-mode fork, other\n"
	       "handlers, *.cgi), \"fastcgi ADDR\", \"http URL\"; \"static files\"; not known\n"
	       "(null) for a server bench did not start.\n\n"
	       "URLs: --url and --urls; by default %d of the tree's status-200 HTML pages\n"
	       "from its manifest (all when it has fewer), spread evenly over them in sorted\n"
	       "order, so the same tree gives the same list; \"/\" without a manifest.\n"
	       "Requests take the URLs in turn.\n\n"
	       "Options:\n",
	       DEFAULT_SAMPLE);
	opts_print_help(stdout, bench_table);
	opts_print_common(stdout, bench_table, OPTS_CONFIG_FILE);
	printf("%-30s %s\n", "", "(-c is ab's concurrency here, kept on purpose: no -c FILE)");
	printf("\nOrigin options (as for snapshot; passed on to 'cgisnap serve --dynamic'):\n");
	opts_print_help(stdout, origin_table);
	printf("\nCounting (ab's): complete requests got a whole response, whatever its\n"
	       "status; failures are connect (no connection), receive (reset, closed early or\n"
	       "not HTTP), length (a complete response whose body length differs from the\n"
	       "first response to the same URL: pages that vary per request count here) and\n"
	       "exceptions (timeouts, failed writes); non-2xx responses are counted apart.\n"
	       "With -n every request ends as complete or as one failure: complete + connect\n"
	       "+ receive + exceptions = N; with -d, requests still in flight at the end are\n"
	       "not counted (as wrk). Latencies are of complete requests; without -k they\n"
	       "run from the connect until the server closed (as ab's). Each server is\n"
	       "stopped after its run, so that renders it still has in flight do not slow\n"
	       "the next one down. The client's CPU is measured per thread: a thread\n"
	       "busy %d%% of the time or more may have been the bottleneck, which the\n"
	       "output says.\n\n"
	       "Per URL: the table and the JSON (\"per_url\" of each side) give each URL's\n"
	       "requests per second and latency 50%% and 99%%, for lists of up to %d URLs.\n"
	       "--html FILE writes the same figures as a page to share: a bar per side,\n"
	       "heights in proportion to requests per second; the latency distribution\n"
	       "(share of requests per bin, log scale); CPU model, cores, kernel, memory,\n"
	       "cgisnap version and what each side ran; the table as printed. Inline SVG\n"
	       "and CSS, no script, nothing fetched. The file is written beside FILE and\n"
	       "renamed over it once the run is done; a FILE that cannot be written is an\n"
	       "error before the measurement starts.\n\n"
	       "Exit status: 0 measured; 1 a server bench started failed on the way, or\n"
	       "the measurement itself failed (e.g. out of file descriptors);\n"
	       "2 usage or set-up error (bad options, no tree, unreachable server);\n"
	       "130 interrupted (the servers are stopped either way).\n",
	       (int)(LOADGEN_CPU_WARN * 100), LOADGEN_PATHS_MAX);
}

static volatile sig_atomic_t stop_requested;

static void on_signal(int sig)
{
	(void)sig;
	stop_requested = 1;
}

static void catch_signals(bool on)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on ? on_signal : SIG_DFL;
	sigemptyset(&sa.sa_mask);
	/* No SA_RESTART: waits return early and see the flag. */
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

/* Up to the hard limit: every connection of the load is a descriptor. */
static void raise_file_limit(void)
{
	struct rlimit rl;
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
}

static bool origin_given(void)
{
	return origin_options.root || origin_options.fastcgi.n || origin_options.origin_url ||
	       origin_options.cgi.n || origin_options.cgi_spawn.n || origin_options.front_controller || origin_options.env.n ||
	       origin_options.script_aliases.n || origin_options.path_aliases.n;
}

/* The checks opts_parse cannot make; NULL when the command line is fine. */
static const char *check_usage(const struct strlist *args, double *duration, char *msg, size_t len)
{
	if (args->n) {
		snprintf(msg, len, "unexpected argument '%s' (the tree goes with --tree)", args->items[0]);
		return msg;
	}
	if (requests && duration_arg)
		return "give -n or -d, not both";
	*duration = DEFAULT_DURATION_S;
	if (duration_arg) {
		char *end;
		errno = 0;
		*duration = strtod(duration_arg, &end);
		if (end == duration_arg || *end || errno || !(*duration > 0) || *duration > 86400) {
			snprintf(msg, len, "option '--duration' needs seconds (0 < S <= 86400), not '%s'",
				 duration_arg);
			return msg;
		}
	}
	if (dynamic_url || static_url) {
		if (origin_given())
			return "origin options are for the server bench starts: not with --dynamic-url or "
			       "--static-url";
		if (server_threads)
			return "--server-threads is for the servers bench starts: not with --dynamic-url or "
			       "--static-url";
		return NULL;
	}
	if (!tree_dir)
		return "no --tree given: the snapshot to measure (or --dynamic-url/--static-url for "
		       "servers already running)";
	if (!origin_config_has_docroot(&origin_options) && !origin_options.fastcgi.n && !origin_options.origin_url)
		return "no origin given: --root, --script-alias, --fastcgi or --origin, as for snapshot";
	return NULL;
}

/* The paths to request, and how they were chosen (fresh string). */
static int choose_paths(struct strlist *paths, char **from, char *err)
{
	for (size_t i = 0; i < url_args.n; i++) {
		if (targets_check(url_args.items[i], err) < 0)
			return -1;
		strlist_add(paths, url_args.items[i]);
	}
	if (urls_file && targets_read_file(paths, urls_file, err) < 0)
		return -1;
	if (urls_file && paths->n == url_args.n)
		return err_set(err, "'%s' lists no URL", urls_file);
	if (paths->n) {
		*from = xstrdup(urls_file && url_args.n ? "--url and --urls" : urls_file ? "--urls" : "--url");
		return 0;
	}
	if (tree_dir) {
		struct tree t;
		struct manifest m = MANIFEST_INIT;
		if (tree_open(&t, tree_dir, false, err) < 0)
			return -1;
		int rc = manifest_load(&m, &t, err);
		tree_close(&t);
		if (rc < 0)
			return -1;
		size_t total = 0, max = sample_max ? (size_t)sample_max : DEFAULT_SAMPLE;
		targets_sample(paths, &m, max, &total);
		manifest_release(&m);
		if (paths->n == total && total)
			*from = xasprintf("all %zu HTML pages of the tree's manifest", total);
		else if (paths->n)
			*from = xasprintf("%zu of the %zu HTML pages of the tree's manifest, evenly spread",
					  paths->n, total);
	}
	if (!paths->n) {
		strlist_add(paths, "/");
		*from = xstrdup(tree_dir ? "the tree's manifest lists no HTML page: the front page"
					 : "no --url nor --tree given: the front page");
	}
	return 0;
}

/* Check the origin options the way the dynamic server will, so that a
 * mistake is one clear line before anything starts; what its renders
 * will run on into mode (len bytes). */
static int check_origin(char *mode, size_t len, char *err)
{
	struct site site;
	/* Run here once: the dynamic server gets its answer as --site-url. */
	if (origin_opts_apache_conf(true, err) < 0 || origin_opts_user(true, err) < 0)
		return -1;
	int ran = origin_opts_site_url(err);
	if (ran < 0)
		return -1;
	if (ran)
		log_info("site URL %s (from --site-url-command)", origin_options.site_url);
	origin_defaults(&origin_options);
	if (site_init(&site, origin_options.site_url, err) < 0)
		return -1;
	/* The dynamic server renders --threads at once (its --jobs default):
	 * a pool of that size. Opening starts no worker. */
	long cores = sysconf(_SC_NPROCESSORS_ONLN);
	origin_options.jobs = server_threads ? server_threads : cores > 0 ? cores : 1;
	struct origin *o = origin_open(&origin_options, &site, err);
	site_release(&site);
	if (!o)
		return -1;
	origin_describe(o, mode, len);
	origin_close(o);
	return 0;
}

/* Append every origin option that has a value, "--name value", by
 * walking the table the command line was parsed with: an option added to
 * originopts.c reaches the dynamic server without a change here. An
 * integer outside its bounds was never given (0). */
static void add_origin_opts(struct strlist *a)
{
	char num[32];
	for (const struct opt *o = origin_opts; o->name; o++) {
		char *flag = xasprintf("--%s", o->name);
		switch (o->type) {
		case OPT_BOOL:
			if (*(const bool *)o->value)
				strlist_add(a, flag);
			break;
		case OPT_STR:
			if (*(char *const *)o->value) {
				strlist_add(a, flag);
				strlist_add(a, *(char *const *)o->value);
			}
			break;
		case OPT_INT: {
			long v = *(const long *)o->value;
			if (o->min < o->max && (v < o->min || v > o->max))
				break;
			snprintf(num, sizeof num, "%ld", v);
			strlist_add(a, flag);
			strlist_add(a, num);
			break;
		}
		case OPT_LIST: {
			const struct strlist *l = o->value;
			for (size_t i = 0; i < l->n; i++) {
				strlist_add(a, flag);
				strlist_add(a, l->items[i]);
			}
			break;
		}
		}
		free(flag);
	}
}

/* argv for 'cgisnap serve' (fresh list). */
static void serve_argv(struct strlist *a, bool dynamic, int port)
{
	char num[32];
	strlist_add(a, "cgisnap");
	strlist_add(a, "serve");
	if (dynamic)
		strlist_add(a, "--dynamic");
	strlist_add(a, "--listen");
	strlist_add_owned(a, xasprintf("127.0.0.1:%d", port));
	strlist_add(a, "--access-log");
	strlist_add(a, "off");
	if (server_threads) {
		strlist_add(a, "--threads");
		snprintf(num, sizeof num, "%ld", server_threads);
		strlist_add(a, num);
	}
	if (!dynamic) {
		strlist_add(a, "--");
		strlist_add(a, tree_dir);
		return;
	}
	add_origin_opts(a);
}

static int start_server(struct spawned *s, bool dynamic, char *err)
{
	struct strlist a = STRLIST_INIT;
	serve_argv(&a, dynamic, 0); /* the port it gets, it says (spawn.h) */
	strlist_add_owned(&a, NULL); /* execv's terminator */
	a.n--;
	if (verbose) {
		struct buf line = BUF_INIT;
		for (size_t i = 0; i < a.n; i++)
			buf_addf(&line, "%s%s", i ? " " : "", a.items[i]);
		log_info("starting: %s", line.data);
		buf_release(&line);
	}
	int rc = spawn_start(s, dynamic ? "dynamic server" : "static server", a.items, START_TIMEOUT_MS,
			     &stop_requested, err);
	strlist_clear(&a);
	return rc;
}

/* Stop a server bench started; a warning line when it did not end well. */
static void stop_server(struct spawned *s, struct strlist *warnings)
{
	if (!s->pid)
		return;
	char *name = xstrdup(s->name), *line = spawn_last_line(s);
	int status = spawn_stop(s, STOP_GRACE_MS);
	if (status != -1 && !(WIFEXITED(status) && WEXITSTATUS(status) == 0)) {
		char *w = WIFEXITED(status)
				  ? xasprintf("the %s exited with status %d%s%s", name, WEXITSTATUS(status),
					      line ? ": " : "", line ? line : "")
				  : xasprintf("the %s was killed by signal %d%s%s", name, WTERMSIG(status),
					      line ? ": " : "", line ? line : "");
		if (warnings)
			strlist_add_owned(warnings, w);
		else
			free(w);
	}
	free(name);
	free(line);
}

/* One side: its endpoint, the server bench started for it, its result. */
struct side {
	const char *name;
	char *server;
	struct loadgen_endpoint ep;
	bool have_ep;
	struct spawned proc;
	struct loadgen_result *res;
	long peak_rss_kb;
	const char *mode;      /* see report_side */
};

static int measure(struct side *sd, const struct loadgen_config *base, char *err)
{
	struct loadgen_config cfg = *base;
	cfg.endpoint = &sd->ep;
	if (!no_warmup) {
		struct loadgen_config warm = cfg;
		warm.concurrency = 1;
		warm.threads = 1;
		warm.requests = (long long)(cfg.npaths < WARMUP_MAX ? cfg.npaths : WARMUP_MAX);
		warm.keepalive = true;
		log_info("%s: warming up (%lld request%s)", sd->name, warm.requests,
			 warm.requests == 1 ? "" : "s");
		if (loadgen_run(&warm, sd->res, err) < 0)
			return -1;
		if (stop_requested)
			return 0;
	}
	if (cfg.requests > 0)
		log_info("%s: %lld requests on %ld connection%s", sd->name, cfg.requests, cfg.concurrency,
			 cfg.concurrency == 1 ? "" : "s");
	else
		log_info("%s: %g s on %ld connection%s", sd->name, cfg.duration_s, cfg.concurrency,
			 cfg.concurrency == 1 ? "" : "s");
	return loadgen_run(&cfg, sd->res, err);
}

static int run(double duration)
{
	char err[ERR_LEN];
	struct strlist paths = STRLIST_INIT, warnings = STRLIST_INIT;
	char *paths_from = NULL;
	struct side sides[2];
	size_t nsides = 0;
	struct outfile html = { 0 };
	int rc = EXIT_USAGE;
	bool spawn_mode = !dynamic_url && !static_url;

	memset(sides, 0, sizeof sides);
	for (size_t i = 0; i < 2; i++)
		sides[i].proc = (struct spawned)SPAWNED_INIT;

	if (tree_dir) {
		struct stat st;
		if (stat(tree_dir, &st) < 0) {
			log_error("cannot open tree '%s': %s", tree_dir, strerror(errno));
			goto out;
		}
		if (!S_ISDIR(st.st_mode)) {
			log_error("tree '%s' is not a directory", tree_dir);
			goto out;
		}
	}
	if (choose_paths(&paths, &paths_from, err) < 0) {
		log_error("%s", err);
		goto out;
	}
	char dynamic_mode[512];
	if (spawn_mode && check_origin(dynamic_mode, sizeof dynamic_mode, err) < 0) {
		log_error("%s", err);
		goto out;
	}
	/* Now, not after the run: a FILE that cannot be written is a set-up
	 * error found in a second, not after minutes of measuring. */
	if (html_file && outfile_open(&html, "--html", html_file, err) < 0) {
		log_error("%s", err);
		goto out;
	}
	if (spawn_mode || dynamic_url)
		sides[nsides++].name = "dynamic";
	if (spawn_mode || static_url)
		sides[nsides++].name = "static";

	raise_file_limit();
	catch_signals(true);
	for (size_t i = 0; i < nsides; i++) {
		struct side *sd = &sides[i];
		bool dyn = !strcmp(sd->name, "dynamic");
		const char *url = dyn ? dynamic_url : static_url;
		if (spawn_mode) {
			if (start_server(&sd->proc, dyn, err) < 0) {
				log_error("%s", err);
				goto out;
			}
			url = sd->proc.url;
			sd->server = dyn ? xstrdup("cgisnap serve --dynamic (the origin renders every request)")
					 : xasprintf("cgisnap serve '%s' (the snapshot)", tree_dir);
			sd->mode = dyn ? dynamic_mode : "static files";
		} else {
			sd->server = xstrdup(dyn ? "the server given with --dynamic-url"
					     : "the server given with --static-url");
		}
		if (loadgen_endpoint_parse(&sd->ep, url, err) < 0) {
			log_error("--%s-url: %s", sd->name, err);
			goto out;
		}
		sd->have_ep = true;
		if (loadgen_probe(&sd->ep, PROBE_TIMEOUT_MS, err) < 0) {
			log_error("%s", err);
			goto out;
		}
	}

	struct loadgen_config cfg = {
		.paths = paths.items,
		.npaths = paths.n,
		.concurrency = concurrency ? concurrency : DEFAULT_CONCURRENCY,
		.threads = client_threads ? client_threads : DEFAULT_CLIENT_THREADS,
		.requests = requests,
		.duration_s = duration,
		.keepalive = keepalive,
		.timeout_s = request_timeout ? (double)request_timeout : DEFAULT_REQUEST_TIMEOUT,
		.stop = &stop_requested,
	};
	bool server_failed = false;
	for (size_t i = 0; i < nsides && !stop_requested; i++) {
		struct side *sd = &sides[i];
		sd->res = xcalloc(1, sizeof *sd->res);
		if (measure(sd, &cfg, err) < 0) {
			/* Not a usage error: the command line was fine. */
			log_error("%s", err);
			rc = EXIT_PARTIAL;
			goto out;
		}
		report_warnings(&warnings, sd->name, sd->res, sysconf(_SC_NPROCESSORS_ONLN),
				sd->proc.pid != 0);
		/* Stopped now, the server finishes the requests the end of the
		 * run left in flight (renders) before the next side starts,
		 * rather than during its measurement. */
		if (sd->proc.pid) {
			sd->peak_rss_kb = spawn_peak_rss_kb(&sd->proc);
			size_t before = warnings.n;
			stop_server(&sd->proc, &warnings);
			server_failed |= warnings.n > before;
		} else {
			sd->peak_rss_kb = -1;
		}
	}
	if (stop_requested) {
		log_error("interrupted");
		rc = EXIT_INTERRUPTED;
		goto out;
	}
	rc = server_failed ? EXIT_PARTIAL : 0;
	struct report rep = {
		.nsides = nsides,
		.paths = paths.items,
		.npaths = paths.n,
		.paths_from = paths_from,
		.concurrency = cfg.concurrency,
		.threads = sides[0].res->threads,
		.requests = cfg.requests,
		.duration_s = cfg.duration_s,
		.keepalive = cfg.keepalive,
		.timeout_s = cfg.timeout_s,
		.warnings = &warnings,
	};
	for (size_t i = 0; i < nsides; i++)
		rep.sides[i] = (struct report_side){ sides[i].name, sides[i].server, sides[i].ep.url,
						     sides[i].res, sides[i].peak_rss_kb, sides[i].mode };
	if (json)
		report_json(stdout, &rep);
	else
		report_text(stdout, &rep);
	fflush(stdout);
	if (html_file) {
		struct machine m;
		machine_describe(&m);
		if (report_html_commit(&html, &rep, &m, err) < 0) {
			log_error("%s", err);
			rc = EXIT_PARTIAL;
		} else {
			log_info("wrote %s", html_file);
		}
	}
out:
	outfile_abort(&html);
	for (size_t i = 0; i < 2; i++) {
		stop_server(&sides[i].proc, NULL);
		if (sides[i].have_ep)
			loadgen_endpoint_release(&sides[i].ep);
		free(sides[i].server);
		if (sides[i].res)
			loadgen_result_release(sides[i].res);
		free(sides[i].res);
	}
	catch_signals(false);
	strlist_clear(&paths);
	strlist_clear(&warnings);
	free(paths_from);
	return rc;
}

int cmd_bench(int argc, char **argv)
{
	const struct opt *const tables[] = { bench_opts, origin_opts, NULL };
	struct strlist args = STRLIST_INIT;
	char err[ERR_LEN], msg[ERR_LEN];
	double duration = 0;
	int rc = opts_parse(tables, argc, argv, OPTS_CONFIG_FILE, &args, err);
	rc = cli_parsed("bench", rc, err, print_help, tables);
	if (rc == CLI_GO_ON) {
		const char *bad = check_usage(&args, &duration, msg, sizeof msg);
		if (bad) {
			rc = usage_error("bench", bad);
		} else {
			log_set_verbose(verbose);
			rc = run(duration);
		}
	}
	strlist_clear(&args);
	opts_release(tables);
	origin_opts_user_release();
	return rc;
}
