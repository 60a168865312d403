/* origin_impl.h - what origin.c (the dispatcher) and open.c (opening and
 * closing) share with their parts: docroot.c (document-root resolution),
 * cgienv.c (the CGI environment) and the back ends cgi.c (programs run
 * directly), fcgi.c (FastCGI client), workers.c (php-cgi workers cgisnap
 * owns, through fcgi.c) and httporigin.c (libcurl), and what they all use
 * below them: response.c (the response type). Not for use outside those
 * files.
 */
#ifndef CGISNAP_ORIGIN_IMPL_H
#define CGISNAP_ORIGIN_IMPL_H

#include <stdbool.h>
#include <stddef.h>

#include "base/buf.h"
#include "origin/mount.h"
#include "origin/origin.h"
#include "trace/traceread.h"

/* php-cgi's argument for the private session directory's sessions: each
 * render that starts a session leaves a file there (a crawler sends no
 * cookie back), and Debian's php.ini collects none (its cron job knows
 * only the directories php.ini names). One session start in 1000 (the
 * divisor php.ini sets) removes those idle for gc_maxlifetime (24 min),
 * so a watch left running does not fill its temporary directory. */
#define SESSION_GC_ARG "session.gc_probability=1"
#include "base/spill.h"

/* One --cgi EXT=PROGRAM, or the FastCGI origin's implied "php". */
struct origin_handler {
	char *ext;      /* without the dot */
	char *prog;     /* absolute path; NULL for FastCGI */
	bool php;       /* php-cgi: gets the -d settings unless --no-php-defaults */
	struct workers *workers; /* php-cgi in --cgi-mode workers, --cgi-spawn; NULL: a process per render */
	char *command;  /* --cgi-spawn's COMMAND as given; NULL for --cgi */
};

struct fcgi_pool;
struct workers;
struct http_origin;

struct origin {
	enum origin_kind kind;
	/* CGI and FastCGI */
	char *root;                       /* realpath of --root */
	struct origin_handler *handlers;
	size_t nhandlers;
	struct strlist index_names;
	struct strlist static_exts;       /* --static-ext, without the dot; "" none */
	char *front_controller;           /* URL path, or NULL */
	struct mount *mounts;             /* --script-alias, --path-alias: paths absolute */
	size_t nmounts;
	bool follow_symlinks;             /* not --no-follow-symlinks */
	char *keep_out;                   /* origin_keep_out: real path of the tree, or NULL */
	struct strlist user_env;          /* validated NAME=VALUE, applied last */
	char *path_env;                   /* programs' PATH: ORIGIN_CGI_PATH or --env PATH= */
	char *php_session_dir;            /* private session.save_path, or NULL (SESSION_GC_ARG) */
	bool php_defaults;
	char *trace_lib;                  /* CGI only; NULL: no tracing */
	const struct runas *runas;        /* who runs the programs (borrowed); NULL: as we are */
	/* The site, as the CGI environment describes it. */
	char *site_origin;                /* "http://host[:port]" */
	char *http_host;                  /* "host[:port]" */
	char *server_name;
	char *server_port;
	bool https;
	/* Every origin. */
	long timeout_s;
	long max_output_mb;
	size_t max_output;                /* bytes */
	size_t memory_max;                /* bodies past this go to a file */
	int spill_dirfd;                  /* ... made in this directory (-1: $TMPDIR) */
	struct upstream *fcgi;            /* FastCGI: the --fastcgi servers */
	struct http_origin *http;
	char *server_addr;                /* the FastCGI address or HTTP base URL, for origin_describe */
};

/* A request resolved to a script under the root. */
struct origin_script {
	char *filename;                   /* absolute path of the script */
	char *dir;                        /* its directory: the program's cwd */
	char *script_name;                /* URL path of the script, decoded */
	char *path_info;                  /* decoded, "" when none */
	const struct origin_handler *handler; /* NULL: an executable run directly */
};

/* cgi.c: in a child between fork and exec, the signal mask emptied and
 * the signals a fresh program expects at their defaults, whatever
 * cgisnap ignores or handles (system calls only: the parent is
 * threaded). posix_spawn's children get the same through its attributes. */
void origin_child_signals(void);

/* cgi.c: run the script's program with env, its stdout into out (at most
 * o->max_output bytes), its stderr to the log, its dependency trace into
 * rs->deps_*. 0 when the program exited by itself, with its exit status
 * in *exit_status (not an error here: a complete response on stdout is
 * still the response, RFC 3875); -1 with err ("timed out after 30 s",
 * "killed by signal 11 (SIGSEGV)", "output over 64 MiB", ...). */
int cgi_run(const struct origin *o, const char *target, const struct origin_script *s,
	    const struct strlist *env, struct spill *out, struct origin_response *rs,
	    int *exit_status, char *err);

/* fcgi.c: a pool of connections to a FastCGI server at addr ("unix:/path",
 * "/path" or "HOST:PORT"); fcgi_open makes one test connection. */
struct fcgi_pool *fcgi_open(const char *addr, char *err);
/* Send one request with params env; the FCGI_STDOUT stream goes into out
 * (at most max_output bytes), FCGI_STDERR to the log. 0 when the request
 * ended, with the application's status in *app_status (as cgi_run's exit
 * status: not an error here); or -1 with err; or FCGI_GONE with err when
 * the server could not be reached, or broke a fresh connection too: the
 * server's fault, not the page's (out may hold part of an answer). */
#define FCGI_GONE (-2)
int fcgi_run(struct fcgi_pool *p, const char *target, const struct strlist *env,
	     long timeout_s, size_t max_output, struct spill *out, unsigned long *app_status,
	     char *err);
/* A reader of a stream beside the request (the tracer's pipe of a traced
 * worker): fcgi_run_side reads fd whenever it is readable while the
 * request waits on the server, and gives what came to feed (n == 0: the
 * end of the stream, or an error: not read any more). */
struct fcgi_side {
	int fd;
	void (*feed)(void *arg, const char *data, size_t n);
	void *arg;
	/* Not 0: the connection's own end is named for it (fcgi.c's
	 * name_own_end), so that the tracer says which connection its lines
	 * are of ("A conn_id", trace/protocol.h). */
	unsigned long conn_id;
};
/* fcgi_run, with side (NULL: none) read meanwhile. */
int fcgi_run_side(struct fcgi_pool *p, const char *target, const struct strlist *env,
		  long timeout_s, size_t max_output, struct spill *out, unsigned long *app_status,
		  const struct fcgi_side *side, char *err);
/* A pool for one of cgisnap's own traced workers (fcgi.c's top): every
 * request on a connection of its own, without FCGI_KEEP_CONN, closed at
 * its end; no second try; no test connection. */
struct fcgi_pool *fcgi_open_one_shot(const char *addr, char *err);
void fcgi_close(struct fcgi_pool *p);

/* upstream.c: the --fastcgi servers as one upstream pool, as nginx's
 * upstream with least_conn: each request goes to the server with the
 * fewest requests under way (the first given, on a tie), skipping one
 * that failed in the last UPSTREAM_DOWN_MS; a server that cannot be
 * reached (FCGI_GONE) is marked so, said once, and the request is tried
 * on the next, each server once at most. One address is the pool of
 * one. upstream_open makes a test connection to each: one that does not
 * answer is a set-up error naming it. */
#define UPSTREAM_DOWN_MS 5000
struct upstream;
struct upstream *upstream_open(const struct strlist *addrs, char *err);
/* As fcgi_run, on the servers of u. */
int upstream_run(struct upstream *u, const char *target, const struct strlist *env, long timeout_s,
		 size_t max_output, struct spill *out, unsigned long *app_status, char *err);
void upstream_close(struct upstream *u);

/* httporigin.c: HTTP through one libcurl multi handle driven by a thread.
 * origin_url: "scheme://host[:port]" to send requests to; site_origin:
 * the site's, sent as Host when it differs; bodies over memory_max bytes
 * go to a temporary file. http_origin_open asks for "/" once to see that
 * the server answers. */
struct http_polite {
	double wait_s;             /* between request starts, over all connections */
	const char *user_agent;    /* never NULL */
	const struct strlist *headers; /* checked "Name: value" lines */
	const char *netrc;         /* a readable file, or NULL */
};
struct http_origin *http_origin_open(const char *origin_url, const char *site_origin,
				     long jobs, long timeout_s, size_t max_output,
				     size_t memory_max, const struct http_polite *polite,
				     char *err);
void http_origin_spill_in(struct http_origin *h, int dirfd);
int http_origin_render(struct http_origin *h, const char *method, const char *target,
		       struct origin_response *rs, char *err);
void http_origin_close(struct http_origin *h);

/* cgi.c and workers.c: rs's dependency lists, for the trace reader; and
 * (response.c) the mark of a render whose trace is not whole (prog and
 * why as origin.h's untraced and untraced_why read). */
static inline struct trace_lists origin_trace_lists(struct origin_response *rs)
{
	return (struct trace_lists){ &rs->deps_read, &rs->deps_exist, &rs->deps_listed, &rs->deps_written };
}
void origin_mark_untraced(struct origin_response *rs, const char *prog, const char *why);

/* response.c: add a header line to rs (copies of name and value). */
void origin_response_add_header(struct origin_response *rs, const char *name, const char *value);

#endif
