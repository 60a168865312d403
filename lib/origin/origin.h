/* origin.h - where pages come from: a CGI program run directly, a FastCGI
 * server, or an HTTP server. The crawler, watch, and serve's --fallback and
 * --dynamic modes all render through this one interface.
 *
 * Steps for a caller:
 *   1. Fill a struct origin_config (the commands do it from their options,
 *      originopts.h) and call origin_defaults() on it.
 *   2. origin_open(cfg, site, err) checks the set-up (root is a
 *      directory, each --cgi program is executable, the FastCGI or HTTP
 *      server answers) and returns NULL with err when it is wrong: that is
 *      the caller's exit status 2.
 *   3. origin_render() from any number of threads at once; each call fills
 *      a struct origin_response the caller releases.
 *   4. origin_close().
 *
 * Renders never print except a CGI program's stderr, which is logged a line
 * at a time as "cgisnap: TARGET: LINE" (log_raw), and never exit. (A php-cgi
 * worker's own messages outside any request, at its start, go to cgisnap's
 * stderr as they are.)
 */
#ifndef CGISNAP_ORIGIN_H
#define CGISNAP_ORIGIN_H

#include <stdbool.h>
#include <stddef.h>

#include "base/buf.h"
#include "base/runas.h"
#include "url/url.h"

struct origin_config {
	/* CGI: run programs under a document root, no server needed. */
	char *root;             /* --root DIR */
	struct strlist cgi;     /* --cgi EXT=PROGRAM, e.g. "php=/usr/bin/php-cgi" */
	struct strlist cgi_spawn; /* --cgi-spawn EXT=COMMAND: a pool of FastCGI workers */
	struct strlist static_exts; /* --static-ext EXT: such files are not source */
	char *index;            /* --index NAMES, default ORIGIN_INDEX */
	char *front_controller; /* --front-controller /index.php */
	struct strlist env;     /* --env NAME=VALUE */
	bool no_php_defaults;   /* --no-php-defaults: no opcache/session overrides */
	char *cgi_mode;         /* --cgi-mode fork|workers; NULL: workers for php-cgi */
	long cgi_max_requests;  /* --cgi-max-requests N; 0: WORKERS_MAX_REQUESTS (--cgi-spawn too) */
	/* Mounts, as Apache's ScriptAlias and Alias (CGI; path aliases for
	 * FastCGI too): see origin_render. */
	struct strlist script_aliases; /* --script-alias /PREFIX=PROGRAM */
	struct strlist path_aliases;   /* --path-alias /PREFIX=DIR */
	bool no_follow_symlinks; /* --no-follow-symlinks: links may not leave --root or DIR */
	/* FastCGI: "unix:/path" or "HOST:PORT", one or more (an upstream
	 * pool: upstream.c); --root gives SCRIPT_FILENAME. */
	struct strlist fastcgi;
	/* HTTP: "http://127.0.0.1:8080/" */
	char *origin_url;
	/* HTTP politeness, as wget's (refused with the other origins). */
	char *wait;             /* --wait S: seconds (fractional) between request starts, overall */
	char *user_agent;       /* --user-agent STR; NULL: ORIGIN_USER_AGENT */
	struct strlist headers; /* --header 'Name: value', sent with every request */
	char *netrc;            /* --netrc FILE: basic auth for the origin's host from FILE */
	/* Who runs the site's programs (base/runas.h): --user's value, and
	 * what it was resolved to (borrowed; NULL: as we are). */
	char *user;             /* --user USER[:GROUP] */
	const struct runas *runas;
	/* Every origin. */
	char *site_url;         /* --site-url URL (default: the --origin URL, else http://localhost/) */
	struct strlist aliases; /* --alias URL */
	long timeout_s;         /* --timeout S, default ORIGIN_TIMEOUT_S */
	long max_output_mb;     /* --max-output MB, default ORIGIN_MAX_OUTPUT_MB: larger responses
				 * fail, with over_max_output set */
	size_t memory_max;      /* not an option: bodies over this many bytes go to a
				 * temporary file; 0 is ORIGIN_MEMORY_MAX (tests set less) */
	long jobs;              /* set by the caller: renders in flight at most (HTTP connections) */
	bool passed_on;         /* set by the caller: the renders are passed on, never stored
				 * (serve --dynamic): php-cgi workers check their scripts as
				 * php.ini says (Debian: every 2 s), as php-fpm would, not on
				 * every request */
	/* Dependency tracing (watch), CGI only: the LD_PRELOAD library's path,
	 * or NULL for no tracing. Borrowed: nothing in origin frees it
	 * (origin_open keeps its own copy). */
	char *trace_lib;
};

/* The defaults, each written once: --help shows them, origin_defaults()
 * and origin_open() apply them. */
#define ORIGIN_INDEX "index.html,index.php"
/* The PATH a CGI or FastCGI program is run with, whatever the caller's
 * (--env PATH= to change it): the one Debian's Apache, started by
 * systemd, gives its programs. */
#define ORIGIN_CGI_PATH "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
#define ORIGIN_SITE_URL "http://localhost/"
#define ORIGIN_TIMEOUT_S 30
#define ORIGIN_MAX_OUTPUT_MB 64
#define ORIGIN_WAIT_MAX_S 3600
#ifndef CGISNAP_VERSION
#define CGISNAP_VERSION "unknown"
#endif
#define ORIGIN_USER_AGENT "cgisnap/" CGISNAP_VERSION

/* Defaults for the fields left unset (NULL, 0): index, site_url (the
 * --origin URL, else ORIGIN_SITE_URL), timeout_s, max_output_mb. Call
 * after option parsing. */
void origin_defaults(struct origin_config *cfg);

/* Free the strings and lists of a configuration filled by hand (tests,
 * tools); one filled by options is freed by opts_release() instead.
 * Every field becomes empty except trace_lib, which is borrowed. */
void origin_config_release(struct origin_config *cfg);

/* Which origin a configuration selects. */
enum origin_kind { ORIGIN_CGI, ORIGIN_FASTCGI, ORIGIN_HTTP };

struct origin_request {
	const char *target;      /* canonical "/path?query" */
	const char *method;      /* "GET" (default when NULL) or "HEAD" */
	const char *remote_addr; /* REMOTE_ADDR, default "127.0.0.1" */
};

struct origin_header {
	char *name;
	char *value;
};

/* A response body larger than this is kept in a temporary file, not in
 * memory (see origin_response.body_in_file). */
#define ORIGIN_MEMORY_MAX (1024 * 1024)
/* How much of a failed render's output is kept for messages. */
#define ORIGIN_OUTPUT_EXCERPT 4096

struct origin_response {
	int status;                   /* 200, 301, 404, ... */
	char *content_type;           /* NULL when the response had none */
	char *location;               /* Location as sent, or NULL */
	struct origin_header *headers; /* every header but Status, in order */
	size_t nheaders;
	struct buf body;
	/* A body over the memory limit is not in body (left empty) but in an
	 * unlinked temporary file the response owns: body_size bytes of
	 * body_fd from offset body_off (a CGI header block may come first).
	 * body_fd means nothing unless body_in_file. */
	bool body_in_file;
	int body_fd;
	long long body_off, body_size;
	/* CGI and FastCGI origins, static file under --root: the body is not
	 * read; this is the file to copy (its size in static_size), status
	 * 200 and content_type from mime_from_name(). NULL otherwise. */
	char *static_path;
	long long static_size;
	long render_ms;               /* wall time of the render */
	/* The render failed (-1) because the output passed --max-output: the
	 * program was stopped or the transfer cut there, nothing beyond was
	 * read. The one field besides deps_written a failed render sets. */
	bool over_max_output;
	/* The origin's own 404 for a path it refused (CGI and FastCGI: "..",
	 * dotfile segments, symbolic links leaving the root, see
	 * origin_render): why, naming the path under the root, e.g. "'lib/tpl'
	 * is a symbolic link leaving the document root '/srv/wiki'". NULL
	 * otherwise. The answer stays a 404; callers say this at -v. */
	char *refused;
	/* A response taken although its render was not clean, e.g. "the CGI
	 * program exited with status 1 after a complete response" (RFC 3875:
	 * the response is what the program wrote on stdout; Apache sends it
	 * too). NULL when clean. Callers log it once per URL. */
	char *warning;
	/* After a failed render (-1) only: the first ORIGIN_OUTPUT_EXCERPT
	 * bytes the program wrote on stdout, headers and all, NUL-terminated,
	 * so that callers can show what it said; NULL when it wrote nothing. */
	char *failed_output;
	/* Dependency trace (CGI with trace_lib): absolute paths the program
	 * read (opened read-only, stat'ed), only checked for existence
	 * (access'ed), listed (opendir, scandir) and wrote (opened for
	 * writing, created, renamed, removed). Sorted, no duplicates. */
	struct strlist deps_read;
	struct strlist deps_exist;
	struct strlist deps_listed;
	struct strlist deps_written;
	/* The trace is incomplete (CGI with trace_lib): the program that
	 * ran, and why, as "'PROG' WHY" reads ("is statically linked",
	 * "closed or replaced the trace descriptor"); both NULL when the
	 * render was traced whole. */
	char *untraced;
	char *untraced_why;
};

struct origin;

/* Check the set-up and open the origin; NULL with err when it is wrong
 * ("document root 'x' is not a directory", "CGI handler '/usr/bin/php-cgi'
 * is not executable", "front controller '/index.php' would be published
 * as source: add --cgi php=php-cgi", "choose one origin: ...", "cannot connect to
 * FastCGI server '...': ...", "cannot reach HTTP origin '...': ..."). The
 * site's origin ("scheme://host[:port]") gives the CGI environment its
 * HTTP_HOST, SERVER_NAME, SERVER_PORT and HTTPS, and the HTTP origin its
 * Host header; cfg and site are only read here. For php-cgi (a --cgi
 * program whose name starts with "php" and contains "cgi") without
 * --no-php-defaults, each run gets "-d opcache.enable=0 -d
 * session.save_path=DIR" with DIR a private directory made here and
 * removed with its contents by origin_close(). A php-cgi handler runs,
 * unless cfg->cgi_mode is "fork", as a pool of cfg->jobs (default:
 * cores) persistent FastCGI workers (workers.h) with opcache on instead
 * (same session directory): the same CGI environment, as FastCGI params,
 * and the same responses; with trace_lib, the same dependencies too
 * (each request traced apart; PHP's caches of paths and .user.ini off);
 * the workers start at their first render and are stopped by
 * origin_close(). Other handlers and *.cgi programs always run a process
 * per render. Each --cgi-spawn EXT=COMMAND is such a pool of cfg->jobs
 * workers whatever the mode: "/bin/sh -c 'exec COMMAND'" in --root, its
 * listening socket as fd 0 and its path in FCGI_SOCKET, or, when COMMAND
 * says {socket}, that word replaced by "$FCGI_SOCKET" and the program
 * binding it itself (workers.h); no php defaults. With trace_lib its
 * renders are untraced (rs->untraced is COMMAND). Errors: "bad
 * --cgi-spawn value 'x' (expected EXT=COMMAND)", "--cgi-spawn program
 * 'x' is not on PATH", "*.php has a handler already ('php=...')". */
struct origin *origin_open(const struct origin_config *cfg, const struct site *site, char *err);
enum origin_kind origin_kind(const struct origin *o);
/* Which traced paths the caller can use (a dependency recorder's choice,
 * dep_recorder_keeps): the paths of a persistent worker's start-up that
 * keep refuses are dropped once, when the start-up ends, instead of from
 * every request's lists they are merged into (a PHP worker's start-up
 * reads some 700 files, the system's time zones among them). keep runs on
 * the render threads; set it before the first render. */
void origin_set_trace_keep(struct origin *o, bool (*keep)(void *arg, const char *path), void *arg);
/* What renders run on, for messages and bench's report, into buf (len
 * bytes): "php-cgi workers (4)", "'perl app.fcgi' workers (4)" (each
 * handler's, ", " between), "fork" (a process per render: fork mode, *.cgi
 * alone, watch's traced php-cgi), "fastcgi 127.0.0.1:9000", "http
 * http://127.0.0.1:8080". */
void origin_describe(const struct origin *o, char *buf, size_t len);
/* The directories the origin runs or serves files from besides --root:
 * each --path-alias DIR, each --script-alias directory and the directory
 * of each --script-alias PROGRAM, real paths, appended to out: watch
 * records what renders read there. */
void origin_mount_dirs(const struct origin *o, struct strlist *out);

/* The directories the origin made for the programs it runs (PHP's
 * session directory), as it named them for the programs, appended to
 * out: what renders write there is theirs alone, no dependency. */
void origin_private_dirs(const struct origin *o, struct strlist *out);

/* The directories a URL reaches into besides --root: each --path-alias
 * DIR and --script-alias directory (a --script-alias PROGRAM exposes its
 * one file, not its directory). The tree must stay apart from them. */
void origin_exposed_dirs(const struct origin *o, struct strlist *out);

/* The pages a crawl of mounts alone (no --root: an empty document root)
 * starts from, appended to seeds: each --script-alias PROGRAM's prefix,
 * each --path-alias DIR's index; a --script-alias directory has no page
 * of its own. Nothing when page (the site URL's target) is under a
 * mount: it is the seed. 0, or -1 when no mount gives one. */
int origin_mount_seeds(const struct origin *o, const char *page, struct strlist *seeds);

/* Whether the URL directory dir ("/icons/") names nothing under --root
 * or a mount: no such directory (nor a file or a program). False for an
 * HTTP origin, which cannot tell. For the note on missing requisites: a
 * mount that is not there. */
bool origin_has_nothing_at(const struct origin *o, const char *dir);

/* Whether cfg names a document root: --root, or mounts alone (an empty
 * document root implied). The CGI and FastCGI origins need one. */
bool origin_config_has_docroot(const struct origin_config *cfg);
/* The limits the origin was opened with, defaults applied: a render's
 * time (--timeout, seconds) and output (--max-output, MiB). Callers that
 * wait on renders (serve's drain at exit) ask here rather than read the
 * options. */
long origin_timeout_s(const struct origin *o);
long origin_max_output_mb(const struct origin *o);
/* Make the temporary files of big bodies in the directory dirfd (a
 * tree's .cgisnap/, which must stay open until origin_close) instead of
 * $TMPDIR. Call before the first render. */
void origin_spill_in(struct origin *o, int dirfd);

/* Refuse, as a 404, a symbolic link under --root or a mount whose real
 * path lies in dir (the tree; it must exist): links are followed, and
 * one into the tree would have renders read cgisnap's own output,
 * .cgisnap/ and all, and publish it again under the link's URL. Nothing
 * else can lead there: the tree is apart from --root and the mounts
 * (tree_check_apart). CGI and FastCGI; call before the first render. */
void origin_keep_out(struct origin *o, const char *dir);

/* Render one request. 0: rs holds the response, whatever its status
 * (rs->warning says when it was not clean: a CGI program, or a FastCGI
 * application, that ended with a non-zero status after writing a
 * complete response). -1: no usable response; err says why in a few
 * words, e.g. "timed out after 30 s", "exited with status 3" (a non-zero
 * exit and no parseable response on stdout), "killed by signal 11
 * (SIGSEGV)" (whatever it wrote), "malformed header from script: 'Foo'", "no
 * Content-Type", "empty response", "output over 64 MiB", "local redirect
 * loop", "connection refused". Thread-safe. The call initialises rs
 * itself (an earlier response in it must have been released); on -1 rs
 * is left empty but for deps_written (what the failed render wrote),
 * failed_output and over_max_output. Either way the caller releases it.
 *
 * A target under a mount (the longest prefix that matches at a segment
 * boundary: /tool is /tool, /tool/x and /tool?q, never /toolbox) leaves
 * --root aside. --script-alias /PREFIX=PROGRAM runs PROGRAM with
 * SCRIPT_NAME /PREFIX, SCRIPT_FILENAME PROGRAM and PATH_INFO the rest of
 * the path percent-decoded (%2F too; "" and no PATH_INFO for /PREFIX
 * itself); PROGRAM runs directly, or through the --cgi handler of its
 * extension when it has one (FastCGI: only *.php). --path-alias
 * /PREFIX=DIR walks the rest of the path under DIR by the rules below,
 * SCRIPT_NAME /PREFIX/...; DOCUMENT_ROOT stays --root.
 *
 * CGI and FastCGI map the target's path onto --root segment by segment:
 * the first regular file decides (a script, with the rest as PATH_INFO,
 * or a static file when nothing is left: status 200, static_path set, no
 * body); a directory without its slash gets a 301 to the slash form, one
 * with it its first --index file; no file at all goes to the
 * --front-controller, or gives the origin's own 404 ("text/html", body
 * "Not Found"), as do "..", dotfile segments (through a link too) and a
 * link whose real path is in the tree (origin_keep_out). Symbolic links
 * are followed wherever they point, as Apache's Options FollowSymLinks
 * (the operator's own files; not SymLinksIfOwnerMatch): a link to a
 * file is that file, one to a directory is walked into, a dangling link
 * or a loop is no file. With --no-follow-symlinks a link whose real path
 * is outside --root (a --path-alias DIR for what is under it) gives the
 * 404; links staying inside still work (Apache without FollowSymLinks
 * refuses them all). Refusals set rs->refused (a directory whose index
 * file is refused too). A static file that looks like a script - an extension of
 * server-side code (php, phtml, cgi, pl, py, rb, sh, asp, jsp, ..., in
 * any case) on its name or, for a symbolic link, on the file it names,
 * or "#!" or "<?php" as its first bytes - and is not allowed by
 * --static-ext is never a response: -1 with "'index.php' would be
 * published as source: add --cgi php=php-cgi". Scripts are files named *.EXT for each --cgi EXT=PROGRAM
 * (PROGRAM gets the script's path as its one argument, except php-cgi,
 * which reads SCRIPT_FILENAME) and, for CGI, *.cgi programs run directly;
 * for FastCGI, *.php. A script answering with a local Location ("/path",
 * no Status) is followed inside the origin (RFC 3875 6.2.2), 10 times at
 * most; the dependency lists then hold every hop's paths. HTTP maps the
 * target onto the --origin server's scheme, host and port. */
int origin_render(struct origin *o, const struct origin_request *rq,
		  struct origin_response *rs, char *err);

/* The body's size, in memory or in its file. */
long long origin_body_size(const struct origin_response *rs);
/* Bring a body kept in a file into rs->body; -1 with err. */
int origin_body_load(struct origin_response *rs, char *err);
/* Drop the body, in memory or in a file. */
void origin_body_drop(struct origin_response *rs);

/* The value of a response header (case-insensitive name), or NULL. */
const char *origin_header(const struct origin_response *rs, const char *name);

void origin_response_init(struct origin_response *rs);
void origin_response_release(struct origin_response *rs);
void origin_close(struct origin *o);

#endif
