/* serve/serve.c - 'cgisnap serve': the command line, start-up, the main
 * loop (signals, inotify, log flushing) and the graceful stop. The
 * request path itself is in handler.c; serve.h maps the other parts. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "accesslog.h"
#include "cache.h"
#include "base/clock.h"
#include "base/cpus.h"
#include "commands.h"
#include "daemons.h"
#include "fallback.h"
#include "listen.h"
#include "base/log.h"
#include "base/opts.h"
#include "origin/origin.h"
#include "cli/originopts.h"
#include "serve.h"
#include "treewatch.h"
#include "base/xalloc.h"

#define DEFAULT_LISTEN "127.0.0.1:8080"
#define DEFAULT_CACHE_MB 64
#define DEFAULT_CACHE_CONTROL "public, max-age=60"
#define DEFAULT_IDLE_TIMEOUT 30
#define DEFAULT_MAX_CONNECTIONS 1024
#define DEFAULT_HEADER_TIMEOUT 10
/* A browser opens 6 connections per host; this leaves room for a few dozen
 * behind one NAT address and for load generators' usual -c 50..200. */
#define DEFAULT_MAX_PER_IP 256
#define DEFAULT_FILL_MAX 10000
#define DEFAULT_FILL_MAX_MB 1024
/* How long a stop waits for requests in flight (renders: their timeout). */
#define DRAIN_SECONDS 10

static char *listen_spec, *access_log, *cache_control;
static long threads, jobs, cache_mb = -1, idle_timeout, header_timeout, max_connections, max_per_ip = -1;
static long fill_max = -1, fill_max_mb = -1;
static struct strlist fill_include, fill_exclude;
static bool fallback, fill, dynamic, any_dir, verbose;

static const struct opt serve_opts[] = {
	{ "listen", 'l', OPT_STR, &listen_spec, "ADDR:PORT",
	  "address to listen on (default " DEFAULT_LISTEN "; [::1]:8080, *:8080; port 0: a free port, "
	  "named in the log's 'serving ... on http://ADDR:PORT/' line)", 0, 0 },
	{ "threads", 't', OPT_INT, &threads, "N", "worker threads (default: one per CPU it may run on)", 1,
	  1024 },
	{ "jobs", 'j', OPT_INT, &jobs, "N",
	  "renders at once (--fallback, --dynamic): render threads and php-cgi or --cgi-spawn"
	  " workers; more requests wait (default: --threads)", 1, 1024 },
	{ "access-log", 0, OPT_STR, &access_log, "FILE",
	  "combined-format access log, '-' for standard output, 'off' (default off)", 0, 0 },
	{ "cache-mb", 0, OPT_INT, &cache_mb, "N",
	  "MiB of memory for cached files; 0 reads every file per request (default 64)", 0,
	  1 << 20 },
	{ "cache-control", 0, OPT_STR, &cache_control, "VALUE",
	  "Cache-Control of files and permanent redirects, 'off' for none (default \"" DEFAULT_CACHE_CONTROL
	  "\")", 0, 0 },
	{ "any-dir", 0, OPT_BOOL, &any_dir, NULL,
	  "DIR may be a plain directory, not a cgisnap tree (scripts and dotfiles still 404)", 0, 0 },
	{ "idle-timeout", 0, OPT_INT, &idle_timeout, "S",
	  "close a connection idle (no byte at all) for S seconds (default 30)", 1, 86400 },
	{ "header-timeout", 0, OPT_INT, &header_timeout, "S",
	  "close a connection whose request head is not complete after S seconds, "
	  "trickled or not (default 10)", 1, 86400 },
	{ "max-connections", 0, OPT_INT, &max_connections, "N",
	  "connections open at once; a new one past that replaces the oldest idle one "
	  "(default 1024)", 1, 1000000 },
	{ "max-per-ip", 0, OPT_INT, &max_per_ip, "N",
	  "connections open at once from one address, more are closed on arrival; 0 for "
	  "no limit (default 256)", 0, 1000000 },
	{ "fallback", 0, OPT_BOOL, &fallback, NULL,
	  "render URLs the tree lacks through the origin (origin options below)", 0, 0 },
	{ "fill", 0, OPT_BOOL, &fill, NULL,
	  "with --fallback: store rendered pages in the tree (takes the tree's lock)", 0, 0 },
	{ "fill-max", 0, OPT_INT, &fill_max, "N",
	  "--fill stores at most N pages per run, 0 for no limit (default 10000)", 0, 1L << 40 },
	{ "fill-max-mb", 0, OPT_INT, &fill_max_mb, "MB",
	  "--fill stores at most MB MiB per run, 0 for no limit (default 1024)", 0, 1L << 30 },
	{ "include", 0, OPT_LIST, &fill_include, "REGEX",
	  "--fill stores only targets matching REGEX, as snapshot crawls (repeatable)", 0, 0 },
	{ "exclude", 0, OPT_LIST, &fill_exclude, "REGEX",
	  "--fill never stores targets matching REGEX (repeatable)", 0, 0 },
	{ "dynamic", 0, OPT_BOOL, &dynamic, NULL,
	  "serve every request from the origin, nothing from the tree (DIR optional)", 0, 0 },
	{ "verbose", 'v', OPT_BOOL, &verbose, NULL, "say more (reloads, stores, libmicrohttpd)", 0,
	  0 },
	OPT_END
};

static void print_help(const struct opt *const *tables)
{
	const struct opt *const serve_table[] = { tables[0], NULL };
	const struct opt *const origin_table[] = { tables[1], NULL };
	printf("usage: cgisnap serve [OPTIONS] DIR\n"
	       "       cgisnap serve --dynamic [OPTIONS] (--root DIR | --fastcgi ADDR | --origin URL)\n\n"
	       "Serve the snapshot tree DIR over HTTP with the dynamic site's URLs, as fast\n"
	       "as a static server: a request is mapped to its file the way snapshot stored\n"
	       "it (the tree's settings and manifest); recorded redirects are replayed,\n"
	       "and the tree's --canonical rules answer every URL they match with their\n"
	       "302 (crawled or not; --fallback and --dynamic do not render it);\n"
	       "ETag/Last-Modified answer 304s; Range gives 206; a fresh FILE.gz goes to\n"
	       "clients that accept gzip. Hot files are kept in memory as ready responses\n"
	       "and dropped as soon as inotify sees them replaced.\n\n"
	       "Options:\n");
	opts_print_help(stdout, serve_table);
	opts_print_common(stdout, tables, OPTS_CONFIG_FILE);
	printf("\nOrigin options (for --fallback and --dynamic, as for snapshot):\n");
	opts_print_help(stdout, origin_table);
	printf("\nBehaviour:\n"
	       "  Cache-Control: \"public, max-age=60\" by default: browsers and proxies reuse\n"
	       "    a page for a minute, then revalidate it with its ETag, which costs a 304;\n"
	       "    a page that watch regenerates is thus at most a minute stale anywhere.\n"
	       "  DIR must be a cgisnap tree (it has .cgisnap/): serving the site's source\n"
	       "    directory by mistake would publish its code. --any-dir serves a plain\n"
	       "    directory of static files.\n"
	       "  Not served, ever: anything under .cgisnap/, dotfiles, paths with '..',\n"
	       "    NUL, backslashes, overlong UTF-8 (400 or 404). An encoded '/' (%%2F) is\n"
	       "    part of its segment's name (/x%%2Fy is the file x%%2Fy/index.html), never a\n"
	       "    separator, and goes to the origin as it came. A URL with\n"
	       "    a segment starting with '.' (/.well-known/x) only as the manifest records\n"
	       "    it (its file is %%2Ewell-known/x), never from the origin; directory\n"
	       "    listings (a directory without index.html is 404); scripts (.php .cgi .pl\n"
	       "    .py .sh .rb .asp .jsp ... and every --cgi EXT) unless the manifest lists\n"
	       "    them as pages cgisnap rendered (404, or the origin with --fallback).\n"
	       "    Symbolic links are followed only while they stay inside DIR (openat2\n"
	       "    RESOLVE_BENEATH); on kernels without openat2 every symbolic link is\n"
	       "    refused. HTTP/1.1 requests without Host: 400.\n"
	       "  Freshness: files are replaced by rename (snapshot, watch); the next request\n"
	       "    after the inotify event gets the new bytes. The only window is between\n"
	       "    the rename and the server reading that event. A change of\n"
	       "    .cgisnap/settings reloads them. Redirects, types and statuses are\n"
	       "    looked up in .cgisnap/tree.db per request (the last committed save;\n"
	       "    nothing held in memory, --fill included: it holds only the pages it\n"
	       "    stored and has not saved yet, and saves only those).\n"
	       "  The 404 page is DIR/.cgisnap/404.html when the tree has one.\n"
	       "  Other methods than GET and HEAD: 405 with 'Allow: GET, HEAD'.\n"
	       "  Access log: off unless --access-log is given; lines are buffered and\n"
	       "    written every second and at exit; SIGHUP reopens the file (logrotate).\n"
	       "  SIGTERM, SIGINT: stop accepting, finish requests in flight, flush the log,\n"
	       "    exit 0.\n"
	       "  Renders (--fallback, --dynamic) run on threads of their own, as many as\n"
	       "    --jobs: workers go on serving files while the origin renders. A request\n"
	       "    past those waits in line for a free one, so php-cgi (--cgi, workers by\n"
	       "    default) and --cgi-spawn run --jobs worker processes at most, never one\n"
	       "    per request.\n"
	       "  --fill holds the tree's lock while serving: snapshot and watch are refused\n"
	       "    meanwhile (exit 75), as is --fill of a tree another cgisnap holds. It\n"
	       "    stores only 2xx answers (never a 404 per URL), of targets that pass\n"
	       "    --include/--exclude, have at most 32 path segments and a key of at most\n"
	       "    1024 bytes, until --fill-max pages or --fill-max-mb MiB were stored;\n"
	       "    beyond, pages are still rendered and served, not stored.\n"
	       "  Slow clients: a request head has --header-timeout seconds in all, the\n"
	       "    next head on a kept-alive connection too, from its first byte;\n"
	       "    trickling bytes does not extend it.\n");
}

/* Self-pipe: signal handlers only write the signal number. */
static int signal_pipe[2] = { -1, -1 };

static void on_signal(int sig)
{
	int saved = errno;
	unsigned char c = (unsigned char)sig;
	if (write(signal_pipe[1], &c, 1) < 0) {
		/* The pipe is full: the main loop has plenty to read already. */
	}
	errno = saved;
}

static int setup_signals(char *err)
{
	if (pipe2(signal_pipe, O_CLOEXEC | O_NONBLOCK) < 0)
		return err_sys(err, "cannot create a pipe");
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_signal;
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	/* Clients that go away must not kill the server mid-sendfile. */
	signal(SIGPIPE, SIG_IGN);
	return 0;
}

static void restore_signals(void)
{
	signal(SIGTERM, SIG_DFL);
	signal(SIGINT, SIG_DFL);
	signal(SIGHUP, SIG_DFL);
	for (int i = 0; i < 2; i++)
		if (signal_pipe[i] >= 0)
			close(signal_pipe[i]);
	signal_pipe[0] = signal_pipe[1] = -1;
}

/* inotify, turned into cache and meta updates. Files are invalidated as
 * their events are read; manifest, settings and 404 page are reread once
 * per batch of events (a snapshot rewrites them often). */
struct watch_ctx {
	struct server *s;
	bool reload_meta, reload_404;
};

static void on_file_changed(void *ctx, const char *key)
{
	struct server *s = ((struct watch_ctx *)ctx)->s;
	size_t n = strlen(key);
	cache_invalidate(s->cache, key);
	if (n > 3 && !strcmp(key + n - 3, ".gz")) {
		char *plain = xstrndup(key, n - 3);
		cache_invalidate(s->cache, plain);
		free(plain);
	}
}

static void on_dir_changed(void *ctx, const char *dir)
{
	struct server *s = ((struct watch_ctx *)ctx)->s;
	cache_invalidate_prefix(s->cache, dir);
}

static void on_meta_changed(void *ctx, const char *name)
{
	struct watch_ctx *w = ctx;
	if (!strcmp(name, "404.html"))
		w->reload_404 = true;
	else if (!strcmp(name, MANIFEST_DB_FILE) || !strcmp(name, MANIFEST_DB_FILE "-wal") || !strcmp(name, "settings"))
		w->reload_meta = true;
}

static void on_overflow(void *ctx)
{
	struct watch_ctx *w = ctx;
	log_debug("inotify queue overflowed: dropping the whole cache");
	cache_clear(w->s->cache);
	w->reload_meta = w->reload_404 = true;
}

static const struct treewatch_ops watch_ops = {
	on_file_changed, on_dir_changed, on_meta_changed, on_overflow,
};

/* Read the pending inotify events and act on them. */
static void process_events(struct server *s, struct treewatch *w)
{
	char err[ERR_LEN];
	struct watch_ctx ctx = { s, false, false };
	treewatch_process(w, &watch_ops, &ctx);
	/* With --fill this server is the tree's only writer: tree.db
	 * changes by its own saves, which need no new generation (each fill
	 * bumped it). */
	if (ctx.reload_meta && !s->cfg.fill) {
		if (meta_reload(&s->meta, &s->tree, origin_options.site_url, err) < 0)
			log_warn("keeping the old settings: %s", err);
		else
			log_debug("reloaded the settings");
	}
	if (ctx.reload_404)
		meta_reload_404(&s->meta, &s->tree);
}

/* The once-a-second chores: write the log, save the manifest (--fill). */
static void flush_all(struct server *s)
{
	char err[ERR_LEN];
	if (s->log && accesslog_flush(s->log, err) < 0)
		log_warn("%s", err);
	if (s->cfg.fill && meta_save_if_dirty(&s->meta, &s->tree, err) < 0)
		log_warn("%s", err);
}

/* Run until SIGTERM or SIGINT. */
static void main_loop(struct server *s, struct treewatch *w, struct daemons *d)
{
	char err[ERR_LEN];
	bool warned_incomplete = false;
	long long next_flush = now_ms() + 1000;
	for (;;) {
		struct pollfd pfd[2] = { { signal_pipe[0], POLLIN, 0 }, { w ? treewatch_fd(w) : -1, POLLIN, 0 } };
		long long wait = next_flush - now_ms();
		if (poll(pfd, 2, wait < 0 ? 0 : (int)wait) < 0 && errno != EINTR)
			log_warn("poll failed: %s", strerror(errno));
		if (pfd[1].revents & POLLIN) {
			process_events(s, w);
			if (!treewatch_complete(w) && !warned_incomplete) {
				log_warn("cannot watch every directory of '%s' (raise "
					 "fs.inotify.max_user_watches): caching turned off",
					 s->cfg.dir);
				cache_disable(s->cache);
				warned_incomplete = true;
			}
		}
		bool stop = false;
		unsigned char sig;
		while (read(signal_pipe[0], &sig, 1) == 1) {
			if (sig == SIGHUP) {
				if (s->log && accesslog_reopen(s->log, err) < 0)
					log_warn("%s", err);
			} else {
				stop = true;
			}
		}
		if (stop)
			return;
		if (now_ms() >= next_flush) {
			daemons_tick(d);
			flush_all(s);
			next_flush = now_ms() + 1000;
		}
	}
}

/* As many descriptors as the hard limit allows: connections and cached
 * files each hold one. Returns the soft limit now in force. */
static long raise_file_limit(void)
{
	struct rlimit rl;
	if (getrlimit(RLIMIT_NOFILE, &rl) < 0)
		return 1024;
	if (rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
		getrlimit(RLIMIT_NOFILE, &rl);
	}
	return rl.rlim_cur > 1L << 20 ? 1L << 20 : (long)rl.rlim_cur;
}

/* The checks opts_parse cannot make; NULL when the command line is fine. */
static const char *check_usage(const struct strlist *args)
{
	if (fill && !fallback && !dynamic)
		return "--fill needs --fallback";
	if (fill && dynamic)
		return "--fill stores into the tree, which --dynamic does not use";
	if ((fill_include.n || fill_exclude.n || fill_max >= 0 || fill_max_mb >= 0) && !fill)
		return "--include, --exclude, --fill-max and --fill-max-mb need --fill";
	if (cache_control && strpbrk(cache_control, "\r\n"))
		return "invalid --cache-control: a header value cannot contain CR or LF";
	for (const unsigned char *c = (const unsigned char *)(cache_control ? cache_control : ""); *c; c++)
		if ((*c < 0x20 && *c != '\t') || *c == 0x7f)
			return "invalid --cache-control: control character in the value";
	if (args->n > 1)
		return "expected one tree directory";
	if (!args->n && !dynamic)
		return "no tree directory given";
	return NULL;
}

static int run(struct server *s)
{
	char err[ERR_LEN];
	struct listen_addr addr;
	struct treewatch *w = NULL;
	struct daemons *d = NULL;
	int rc = EXIT_USAGE;

	if (listen_parse(listen_spec, &addr, err) < 0)
		return log_error("%s", err), EXIT_USAGE;
	long nofile = raise_file_limit();

	if (s->cfg.dir) {
		if (tree_open(&s->tree, s->cfg.dir, false, err) < 0)
			return log_error("%s", err), EXIT_USAGE;
		s->have_tree = true;
		if (s->tree.meta_fd < 0 && !s->cfg.any_dir && !s->cfg.dynamic) {
			log_error("'%s' is not a cgisnap tree (use --any-dir to serve a plain directory)",
				  s->cfg.dir);
			goto out;
		}
		int locked = s->cfg.fill ? tree_lock(&s->tree, err) : 0;
		if (locked < 0) {
			log_error("--fill: %s", err);
			rc = locked == TREE_BUSY ? EXIT_BUSY : EXIT_USAGE;
			goto out;
		}
	}
	if (meta_init(&s->meta, s->have_tree ? &s->tree : NULL, origin_options.site_url, err) < 0) {
		log_error("%s", err);
		goto out;
	}
	if (s->cfg.fill) {
		/* The lock is ours: files an interrupted writer (a killed
		 * snapshot, watch or serve --fill) published become entries. */
		long recovered = 0;
		if (manifest_recover(&s->meta.fills, &s->tree, &recovered, NULL, err) < 0) {
			log_error("%s", err);
			goto out;
		}
		if (recovered) {
			log_info("recorded %ld files an interrupted run had published", recovered);
			s->meta.journaled = true; /* emptied once they are saved */
		}
	}
	if (s->cfg.fallback || s->cfg.dynamic) {
		s->fallback = fallback_open(s, err);
		if (!s->fallback) {
			log_error("%s", err);
			goto out;
		}
	}
	if (access_log) {
		s->log = accesslog_open(access_log, err);
		if (!s->log) {
			log_error("%s", err);
			goto out;
		}
	}
	size_t budget = s->have_tree && !s->cfg.dynamic ? (size_t)s->cfg.cache_mb << 20 : 0;
	if (budget) {
		w = treewatch_open(s->cfg.dir, err);
		if (!w || !treewatch_complete(w)) {
			log_warn("%s: caching turned off", w ? "cannot watch every directory of the tree" : err);
			budget = 0;
		}
	}
	/* Descriptors: connections first, a margin, then cached large files
	 * (mapped ones hold none, but the same bound keeps their number in
	 * check). */
	long spare = nofile - s->cfg.max_connections - daemons_headroom(s->cfg.max_connections) - 64;
	size_t open_files = spare > 0 ? (size_t)(spare / 2 > 1024 ? 1024 : spare / 2) : 0;
	s->cache = cache_new(s->have_tree ? s->tree.fd : -1, budget, open_files, s->cfg.cache_control);

	if (setup_signals(err) < 0) {
		log_error("%s", err);
		goto out;
	}
	d = daemons_start(s, &addr, err);
	if (!d) {
		log_error("%s", err);
		goto out;
	}
	char renders[512] = "";
	if (s->fallback) {
		char mode[400];
		fallback_describe(s->fallback, mode, sizeof mode);
		snprintf(renders, sizeof renders, "; renders: %ld at once, %s", s->cfg.jobs, mode);
	}
	log_info("serving %s on http://%s/ (%ld threads%s%s)",
		 s->cfg.dynamic ? "the origin" : s->cfg.dir, addr.text, s->cfg.threads,
		 s->cfg.dynamic ? ", dynamic" : s->cfg.fallback ? ", with fallback" : "", renders);

	main_loop(s, w, d);
	daemons_drain(d, 1000LL * (DRAIN_SECONDS + (s->fallback ? fallback_timeout_s(s->fallback) : 0)));
	/* Renders resume their connections: all before the daemons stop. */
	fallback_stop(s->fallback);
	daemons_stop(d);
	d = NULL;
	rc = 0;
	log_info("stopped");
out:
	fallback_stop(s->fallback);
	daemons_stop(d);
	restore_signals();
	handler_release_pools();
	accesslog_close(s->log);
	if (s->cfg.fill && s->have_tree && meta_save_if_dirty(&s->meta, &s->tree, err) < 0) {
		log_error("%s", err);
		rc = EXIT_PARTIAL;
	}
	treewatch_close(w);
	cache_free(s->cache);
	fallback_close(s->fallback);
	meta_release(&s->meta);
	if (s->have_tree)
		tree_close(&s->tree);
	return rc;
}

int cmd_serve(int argc, char **argv)
{
	const struct opt *const tables[] = { serve_opts, origin_opts, NULL };
	struct strlist args = STRLIST_INIT;
	char err[ERR_LEN];
	struct server s;
	int rc;

	memset(&s, 0, sizeof s);
	rc = opts_parse(tables, argc, argv, OPTS_CONFIG_FILE, &args, err);
	rc = cli_parsed("serve", rc, err, print_help, tables);
	if (rc != CLI_GO_ON)
		goto out;
	const char *bad = check_usage(&args);
	if (bad) {
		rc = usage_error("serve", bad);
		goto out;
	}
	log_set_verbose(verbose);
	int ran = origin_opts_apache_conf(true, err) < 0 || origin_opts_user(true, err) < 0 ? -1
												 : origin_opts_site_url(err);
	if (ran < 0) {
		log_error("%s", err);
		rc = EXIT_USAGE;
		goto out;
	}
	if (ran)
		log_info("site URL %s (from --site-url-command)", origin_options.site_url);
	origin_defaults(&origin_options);
	opts_default(&listen_spec, DEFAULT_LISTEN);
	if (access_log && !strcmp(access_log, "off")) {
		free(access_log);
		access_log = NULL;
	}
	opts_default(&cache_control, DEFAULT_CACHE_CONTROL);

	s.cfg.dir = args.n ? args.items[0] : NULL;
	s.cfg.threads = threads > 0 ? threads : cpus_usable();
	if (s.cfg.threads < 1)
		s.cfg.threads = 1;
	s.cfg.jobs = jobs > 0 ? jobs : s.cfg.threads;
	s.cfg.cache_mb = cache_mb >= 0 ? cache_mb : DEFAULT_CACHE_MB;
	s.cfg.idle_timeout_s = idle_timeout > 0 ? idle_timeout : DEFAULT_IDLE_TIMEOUT;
	s.cfg.max_connections = max_connections > 0 ? max_connections : DEFAULT_MAX_CONNECTIONS;
	s.cfg.max_per_ip = max_per_ip >= 0 ? max_per_ip : DEFAULT_MAX_PER_IP;
	s.cfg.header_timeout_s = header_timeout > 0 ? header_timeout : DEFAULT_HEADER_TIMEOUT;
	s.cfg.any_dir = any_dir;
	s.cfg.fill_max = fill_max >= 0 ? fill_max : DEFAULT_FILL_MAX;
	s.cfg.fill_max_bytes = (long long)(fill_max_mb >= 0 ? fill_max_mb : DEFAULT_FILL_MAX_MB) << 20;
	s.cfg.fill_include = &fill_include;
	s.cfg.fill_exclude = &fill_exclude;
	for (size_t i = 0; i < origin_options.cgi.n + origin_options.cgi_spawn.n; i++) {
		const char *ext = i < origin_options.cgi.n ? origin_options.cgi.items[i]
							    : origin_options.cgi_spawn.items[i - origin_options.cgi.n];
		ext += *ext == '.';
		size_t n = strcspn(ext, "=");
		if (n)
			strlist_add_owned(&s.script_exts, xstrndup(ext, n));
	}
	s.cfg.cache_control = *cache_control && strcmp(cache_control, "off") ? cache_control : NULL;
	s.cfg.fallback = fallback;
	s.cfg.fill = fill;
	s.cfg.dynamic = dynamic;

	s.bad_request = fixed_html("<!DOCTYPE html>\n<title>400 Bad Request</title><h1>Bad Request</h1>\n");
	s.not_allowed = fixed_html("<!DOCTYPE html>\n<title>405 Method Not Allowed</title>"
				   "<h1>Method Not Allowed</h1>\n");
	MHD_add_response_header(s.not_allowed.r, MHD_HTTP_HEADER_ALLOW, "GET, HEAD");
	s.precondition_failed = fixed_html("<!DOCTYPE html>\n<title>412 Precondition Failed</title>"
					   "<h1>Precondition Failed</h1>\n");
	s.unavailable = fixed_html("<!DOCTYPE html>\n<title>503 Service Unavailable</title>"
				   "<h1>Service Unavailable</h1>\n");
	MHD_add_response_header(s.unavailable.r, MHD_HTTP_HEADER_RETRY_AFTER, "1");

	rc = run(&s);
out:
	struct fixed_response *fixed[] = { &s.bad_request, &s.not_allowed, &s.precondition_failed,
					   &s.unavailable };
	for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++)
		if (fixed[i]->r)
			MHD_destroy_response(fixed[i]->r);
	strlist_clear(&s.script_exts);
	strlist_clear(&args);
	opts_release(tables);
	origin_opts_user_release();
	return rc;
}
